"""A turn's metrics are plain numbers until a scrape; the scrape gives exactly what
prometheus_client's own Counter, Histogram and Gauge objects give for the same turns (the
``*_created`` times aside)."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import generate_latest

from engine.observe.metrics import COUNTERS, GAUGES, SECONDS, TURN_BUCKETS, TurnMetrics


def done(ms: float, *, error: str | None = None, tags: tuple[str, ...] = (),
         agents: tuple[dict[str, Any], ...] = (), flow: str | None = "transfer",
         stage: str | None = "READY", next_action: str = "CONFIRM") -> Any:
    trace = {"total_elapsed_ms": ms, "failure_tags": list(tags), "agents": list(agents),
             **({"error": error} if error else {})}
    return SimpleNamespace(trace=trace, next_action=next_action,
                           state_snapshot={"flow": flow, "stage": stage})


def reference(service: str, turns: list[Any]) -> bytes:
    """The same turns counted by prometheus_client's own metric objects."""
    registry = CollectorRegistry(auto_describe=True)
    counters = {name: Counter(name, text, list(labels), registry=registry)
                for name, (text, labels) in COUNTERS.items()}
    seconds = Histogram(SECONDS[0], SECONDS[1], ["service"], buckets=TURN_BUCKETS,
                        registry=registry)
    seconds.labels(service)
    for name, text in GAUGES:
        Gauge(name, text, ["service"], registry=registry).labels(service).set(len(name))
    for turn in turns:
        snapshot = turn.state_snapshot
        counters["flowctl_turns"].labels(service, str(snapshot["flow"] or ""),
                                         turn.next_action, str(snapshot["stage"] or "")).inc()
        seconds.labels(service).observe(turn.trace["total_elapsed_ms"] / 1000)
        if turn.trace.get("error"):
            counters["flowctl_turn_errors"].labels(service, turn.trace["error"]).inc()
        for tag in turn.trace["failure_tags"]:
            counters["flowctl_failure_tags"].labels(service, tag).inc()
        for entry in turn.trace["agents"]:
            if entry.get("model") is not None:
                model = entry["model"]
                outcome = "ok" if entry["success"] else "fallback"
                counters["flowctl_llm_calls"].labels(service, model, outcome).inc()
                tokens = counters["flowctl_llm_tokens"]
                tokens.labels(service, model, "in").inc(entry.get("tokens_in", 0))
                tokens.labels(service, model, "out").inc(entry.get("tokens_out", 0))
            elif not entry["success"]:
                counters["flowctl_step_failures"].labels(service, entry["agent"]).inc()
    return generate_latest(registry)


def without_times(text: bytes) -> str:
    return re.sub(r"(_created(\{[^}]*\})?) \S+", r"\1 T", text.decode())


MODEL_OK = {"model": "small", "success": True, "tokens_in": 120, "tokens_out": 9}

SEQUENCES = {
    "none": [],
    "one": [done(0.8)],
    "mixed": [done(1.0), done(0.001 * 1000, error="turn_failed", tags=("A", "B")),
              done(2.5, flow=None, stage=None, next_action="ASK"), done(30_000.0),
              done(45_000.0, agents=(MODEL_OK, {"agent": "check", "success": False},
                                     {"model": "small", "success": False}))],
    "bounds": [done(bound * 1000) for bound in TURN_BUCKETS],  # each bound counts itself
}


@pytest.mark.parametrize("turns", SEQUENCES.values(), ids=SEQUENCES.keys())
def test_a_scrape_is_what_prometheus_clients_own_metrics_give(turns: list[Any]) -> None:
    metrics = TurnMetrics("transfer", active=lambda: len(GAUGES[0][0]),
                          pending=lambda: len(GAUGES[1][0]))
    for turn in turns:
        metrics.observe(turn)
    ours, theirs = without_times(metrics.exposition()), without_times(
        reference("transfer", turns))
    blocks = re.split(r"(?m)^(?=# HELP )", theirs)
    # prometheus_client lists metrics as registered; ours as declared (histogram second)
    assert sorted(re.split(r"(?m)^(?=# HELP )", ours)) == sorted(blocks)
    assert "_created" in ours


def test_created_series_follow_prometheus_clients_switch(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setenv("PROMETHEUS_DISABLE_CREATED_SERIES", "true")
    metrics = TurnMetrics("transfer")
    metrics.observe(done(1.0))
    text = metrics.exposition().decode()
    assert "flowctl_turns_total{" in text and "_created" not in text
