"""What a background run costs: the turn that starts it, the run to its final status, a
message answered while a run holds the session, and one event appended to the log.

In process, offline, over the SQLite store in a temporary directory, with the run log in
the same file (as ``flowctl serve`` keeps it), using docs/server.md's example flow
(``tests/docs_examples/flows/report.yaml``: one calculator call in the background):

- ``start turn``: "report please" -> DONE with the run's id (the run recorded ``pending``)
- ``run to final status``: from that DONE to the run's ``RUN_STATUS success`` in the log
- ``busy answer``: a message while a run holds the session (answered without its lock)
- ``event append``: one event written to a run's log (its own transaction)

Run: python bench/runs.py [--runs 200] [--events 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

from engine.compiler import compile_file  # noqa: E402
from engine.runs import Runs, SqliteRunLog  # noqa: E402
from engine.runs.log import FINAL, Runner, RunRecord  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402
from engine.store import SqliteStore  # noqa: E402

FLOW = ROOT / "tests" / "docs_examples" / "flows" / "report.yaml"


async def until_final(runs: Runs, run_id: str) -> None:
    while True:
        run = await runs.log.get(run_id)
        if run is not None and run.status in FINAL:
            return
        await asyncio.sleep(0)


async def starts(runs: Runs, count: int) -> tuple[list[float], list[float]]:
    """(µs of each starting turn, ms from its DONE to the run's final status)."""
    turns, finals = [], []
    for i in range(count):
        began = time.perf_counter()
        done = await runs.engine.reply(f"s{i}", "report please")
        answered = time.perf_counter()
        await until_final(runs, done.state_snapshot["meta"]["run"]["id"])
        turns.append((answered - began) * 1e6)
        finals.append((time.perf_counter() - answered) * 1e3)
    return turns, finals


async def busy(runs: Runs, count: int) -> list[float]:
    """µs of a message answered while a (never-ending) run holds the session."""
    engine = runs.engine
    async with engine.store.lock("busy"):  # the run's lock, held for the whole measurement
        await runs.log.create(RunRecord("busy-run", "busy", None, "report", "RUNNING",
                                        "running", time.time(), runs.me, time.time()))
        out = []
        for _ in range(count):
            began = time.perf_counter()
            await engine.reply("busy", "how is it going?")
            out.append((time.perf_counter() - began) * 1e6)
    return out


async def appends(log: SqliteRunLog, count: int) -> list[float]:
    await log.create(RunRecord("appends", "x", None, "report", "RUNNING", "running",
                               time.time(), Runner("bench", "bench", 0, None), time.time()))
    out = []
    for i in range(count):
        began = time.perf_counter()
        await log.append("appends", "AGENT_DONE", {"agent": "total", "success": True, "i": i})
        out.append((time.perf_counter() - began) * 1e6)
    return out


async def main(count: int, events: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sessions.db"
        store = SqliteStore(path)
        engine = Engine(compile_file(FLOW), store=store)
        log = SqliteRunLog(str(path))
        runs = Runs(engine, log)
        turns, finals = await starts(runs, count)
        answers = await busy(runs, count)
        written = await appends(log, events)
        await runs.stop(5)
        await engine.aclose()
        await log.close()
        await store.close()
    print(f"{'measure':<22} {'median':>10} {'p90':>10}")
    for name, values, unit in (("start turn", turns, "µs"), ("run to final status", finals,
                                                              "ms"),
                               ("busy answer", answers, "µs"), ("event append", written, "µs")):
        p90 = statistics.quantiles(values, n=10)[-1]
        print(f"{name:<22} {statistics.median(values):>8.1f}{unit} {p90:>8.1f}{unit}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs started (and messages "
                        "answered while one holds a session)")
    parser.add_argument("--events", type=int, default=2000, help="events appended to one log")
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.events))
