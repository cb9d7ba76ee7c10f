"""The session store's share of a turn: lock, load and commit of one session, alone on its
SQLite file (one server process), as a turn does them — nothing else of the engine.

With ``--checkout DIR`` (repeatable) the same loop runs against other checkouts too (a
``git worktree`` of an earlier commit), each in its own interpreter, alternating run by
run, so a change to the store is measured side by side with what it replaces.

Run: python bench/store_turn.py [--runs 5] [--turns 4000] [--checkout /tmp/before]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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
    medians: list[list[float]] = [[] for _ in trees]
    for _ in range(args.runs):
        for tree, values in zip(trees, medians, strict=True):
            out = subprocess.run([sys.executable, "-c", _RUN, str(tree), str(args.turns)],
                                 capture_output=True, text=True, check=True).stdout
            values.append(float(out))
    base = statistics.median(medians[0])
    print(f"{'checkout':<40}{'median µs a turn (range over runs)':>38}{'vs this':>10}")
    for tree, values in zip(trees, medians, strict=True):
        mid = statistics.median(values)
        print(f"{str(tree):<40}{mid:>20.1f} ({min(values):.1f}–{max(values):.1f}){'':>4}"
              f"{mid / base:>9.2f}x")


if __name__ == "__main__":
    main()
