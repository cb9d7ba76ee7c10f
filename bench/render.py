"""What rendering a message and counting a turn cost, side by side in one process.

Messages: every message of a flow (by default flows/transfer.yaml) that renders on a sample
turn context, once from its compiled plan (what a server runs) and once as the code jinja2
compiles the same source to, run the way the engine runs a template without a plan (its
sandboxed environment, the turn context handed over as is: what a message with ``if``,
``for`` or ``set`` blocks ran before plans covered them). Both must give the same text; a
message either cannot render on the sample context is left out and counted.

Counting: one finished turn recorded by the server's metrics (plain numbers until a scrape)
and by prometheus_client's own Counter and Histogram objects (what it used before).

Run: python bench/render.py [--flow flows/transfer.yaml] [--repeat 5] [--number 20000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import timeit
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

from engine.compiler import compile_file  # noqa: E402
from engine.compiler.templates import base_context, environment, renders  # noqa: E402
from engine.observe.metrics import COUNTERS, SECONDS, TURN_BUCKETS, TurnMetrics  # noqa: E402

CONTEXT: dict[str, Any] = {
    "slots": {"target": "엄마", "recipient": "엄마", "amount": 35000, "date": "2026-12-01",
              "memo": None},
    "batch": {"index": 1, "total": 3, "remaining": 2, "counts": {"EXECUTED": 1}},
    "errors": {}, "missing": ["amount"], "progress": " (1/3)", "meta": {},
    "result": {"balance": 120000, "ok": True}, "summary": "", "turn": {"message": "네"},
    "completed": [{"outcome": "EXECUTED", "slots": {"target": "엄마", "amount": 10000}},
                  {"outcome": "CANCELLED", "slots": {"target": "아빠", "amount": 5000}}],
    "ask": lambda name: f"{name}?", "stage": "READY", "flow": "transfer", "context": {},
    "value": None, "today": "2026-11-29", "now": "10:00", "agents": {}, "retrieved": {},
    "filling_turns": 1, "max_fill_turns": 5,
}
"""A turn of a transfer in the middle of a batch of three: what the messages read."""


def best(call: Any, repeat: int, number: int) -> float:
    """Microseconds per call, the best of ``repeat`` timings of ``number`` calls."""
    return min(timeit.repeat(call, number=number, repeat=repeat)) / number * 1e6


def messages(flow: Path, repeat: int, number: int) -> None:
    service, env = compile_file(flow), environment()
    ctx = {**base_context(), **CONTEXT}
    rows: list[tuple[str, bool, float, float]] = []
    skipped = 0
    for name, compiled in sorted(service.messages.items()):
        template = renders(env.compile(env.parse(compiled.source)))
        try:
            ours, theirs = compiled.render(ctx), template(ctx)
        except Exception:  # needs a context this sample does not give
            skipped += 1
            continue
        assert ours == theirs, (name, ours, theirs)
        planned = compiled.plan is not None
        rows.append((name, planned, best(lambda c=compiled: c.render(ctx), repeat, number),
                     best(lambda t=template: t(ctx), repeat, number)))
    print(f"{flow.name}: {len(rows)} messages rendered ({skipped} need another context)")
    print(f"{'message':28s} {'plan':>5s} {'plan µs':>9s} {'jinja2 µs':>10s} {'ratio':>6s}")
    for name, planned, plan_us, jinja_us in rows:
        print(f"{name[:28]:28s} {'yes' if planned else 'no':>5s} {plan_us:9.2f} "
              f"{jinja_us:10.2f} {jinja_us / plan_us:5.1f}x")
    with_blocks = [r for r in rows if "{%" in service.messages[r[0]].source]
    for label, chosen in (("all", rows), ("with {% %} blocks", with_blocks)):
        if chosen:
            print(f"median over {label} ({len(chosen)}): plan "
                  f"{statistics.median(r[2] for r in chosen):.2f} µs, jinja2 "
                  f"{statistics.median(r[3] for r in chosen):.2f} µs")


def counting(repeat: int, number: int) -> None:
    from prometheus_client import CollectorRegistry, Counter, Histogram

    done = SimpleNamespace(trace={"total_elapsed_ms": 0.8, "failure_tags": [], "agents": []},
                           state_snapshot={"flow": "transfer", "stage": "READY"},
                           next_action="CONFIRM")
    metrics = TurnMetrics("transfer")
    registry = CollectorRegistry()
    turns = Counter("flowctl_turns", COUNTERS["flowctl_turns"][0],
                    list(COUNTERS["flowctl_turns"][1]), registry=registry)
    seconds = Histogram(SECONDS[0], SECONDS[1], ["service"], buckets=TURN_BUCKETS,
                        registry=registry).labels("transfer")
    children: dict[tuple[str, str, str], Any] = {}

    def by_prometheus() -> None:  # what recording a turn did before, line by line
        trace, snapshot = done.trace, done.state_snapshot
        ended = (str(snapshot.get("flow") or ""), done.next_action,
                 str(snapshot.get("stage") or ""))
        counter = children.get(ended)
        if counter is None:
            counter = children[ended] = turns.labels("transfer", *ended)
        counter.inc()
        seconds.observe(trace.get("total_elapsed_ms", 0.0) / 1000)
        if trace.get("error"):
            raise AssertionError("no error in this turn")
        for _ in trace.get("failure_tags", ()):
            raise AssertionError("no tags in this turn")
        for _ in trace.get("agents", ()):
            raise AssertionError("no agents in this turn")

    ours = best(lambda: metrics.observe(done), repeat, number)  # type: ignore[arg-type]
    theirs = best(by_prometheus, repeat, number)
    print(f"\ncounting one turn: plain numbers {ours:.2f} µs, prometheus_client's objects "
          f"{theirs:.2f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flow", default=str(ROOT / "flows" / "transfer.yaml"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--number", type=int, default=20000)
    args = parser.parse_args()
    messages(Path(args.flow), args.repeat, args.number)
    counting(args.repeat, args.number)


if __name__ == "__main__":
    main()
