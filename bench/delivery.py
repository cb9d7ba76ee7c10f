"""What reporting a paid transfer's delivery costs: the confirm turn with and without it.

A turn that settles an irreversible action, run the way the HTTP transport runs it, keeps
its reply in the session as *untold*, and the transport then reports the DONE delivered
(one more locked load and commit). This compares the confirm turn of flows/transfer.yaml on
a SQLite store, in process (no report) and as a transport runs it (kept, then told):
median milliseconds of N confirm turns, several rounds side by side.

Run from the repository root: python bench/delivery.py [--turns 150] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

from engine.compiler import compile_file  # noqa: E402
from engine.runtime.conversation.outcomes import reporting_delivery  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402
from engine.store import SqliteStore  # noqa: E402


async def confirm_turns(turns: int, report: bool) -> float:
    """The median confirm turn (ms): each session asks for a transfer, then confirms it."""
    if report:
        reporting_delivery.set(True)
    service = compile_file(ROOT / "flows" / "transfer.yaml")
    with tempfile.TemporaryDirectory() as directory:
        engine = Engine(service, store=SqliteStore(Path(directory) / "s.db"))
        times = []
        for i in range(turns):
            await engine.reply(f"s{i}", "엄마한테 1만원 보내줘")
            started = time.perf_counter()
            done = await engine.reply(f"s{i}", "확인")
            if report and done.delivered is not None:
                await done.delivered()
            times.append((time.perf_counter() - started) * 1000)
        await engine.aclose()
    return statistics.median(times)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=150, help="confirm turns per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, side by side")
    args = parser.parse_args()
    for n in range(args.rounds):
        plain = await confirm_turns(args.turns, False)
        reported = await asyncio.create_task(confirm_turns(args.turns, True),
                                             context=contextvars.copy_context())
        print(f"round {n + 1}: confirm turn {plain:.2f} ms in process, {reported:.2f} ms "
              f"kept and told (+{reported - plain:.2f} ms, x{reported / plain:.2f})")


if __name__ == "__main__":
    asyncio.run(main())
