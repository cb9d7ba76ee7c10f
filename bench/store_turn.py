"""The session store's share of a turn: lock, load and commit of one session, alone on its
SQLite file (one server process), as a turn does them — nothing else of the engine.

With ``--checkout DIR`` (repeatable) the same loop runs against other checkouts too (a
``git worktree`` of an earlier commit), each in its own interpreter, alternating run by
run, so a change to the store is measured side by side with what it replaces.

Run: python bench/store_turn.py [--runs 5] [--turns 4000] [--checkout /tmp/before]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

from bench.side_by_side import measure, table  # noqa: E402

# one run, in a fresh interpreter on the checkout given: the median µs of a turn's store work
_RUN = """
import asyncio, statistics, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from engine.store import SqliteStore

SESSION = {"flow": "transfer", "stage": "READY", "slots": {"target": "엄마", "amount": 10000},
           "meta": {"batch_total": 1}, "history": ["엄마한테 만원 보내줘"] * 6}

async def main(turns: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(f"{tmp}/s.db")
        samples = []
        for n in range(turns):
            session = f"s{n % 50}"
            start = time.perf_counter_ns()
            async with store.lock(session):
                record = await store.load(session)
                await store.commit(session, SESSION,
                                   expected_version=record.version if record else 0)
            samples.append((time.perf_counter_ns() - start) / 1000)
        await store.close()
    print(statistics.median(samples[turns // 8:]))

asyncio.run(main(int(sys.argv[2])))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=4000)
    parser.add_argument("--checkout", action="append", default=[], type=Path,
                        help="another checkout to measure beside this one")
    args = parser.parse_args()
    trees = [ROOT, *args.checkout]
    outputs = measure(_RUN, trees, args.runs, str(args.turns))
    table(trees, [[float(out) for out in runs] for runs in outputs],
          "median µs a turn (range over runs)")

if __name__ == "__main__":
    main()
