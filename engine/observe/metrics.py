"""Every turn's DONE -> Prometheus counters and histograms, served at ``GET /metrics``.

Only numbers and names leave the process: the service, the stage a turn ended in, its
``next_action``, error codes, failure tags, models and agents -- never a message, a slot
value or a session id. Each app has a registry of its own (two apps in one process, as in
the tests, never share or collide). Recording a turn is a handful of dict look-ups: the
trace the turn already wrote is read after its DONE, nothing is timed twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.runtime.values.events import Done

if TYPE_CHECKING:
    from prometheus_client import Counter

__all__ = ["TurnMetrics"]

# Turns answer in a millisecond without a model and in seconds with one.
TURN_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                10.0, 30.0)


class TurnMetrics:
    """The metrics of one served app; ``observe`` is called once per finished turn."""

    def __init__(self, service: str, *, active: Callable[[], int] = lambda: 0,
                 pending: Callable[[], int] = lambda: 0) -> None:
        # Imported here: a server with metrics off (FLOWCTL_METRICS=0) never loads it.
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
        from prometheus_client.exposition import CONTENT_TYPE_LATEST

        self.content_type = CONTENT_TYPE_LATEST
        """The exposition's media type."""
        self.service = service
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.turns = Counter("flowctl_turns", "Turns answered, by how they ended.",
                             ["service", "flow", "next_action", "stage"], registry=r)
        self.seconds = Histogram("flowctl_turn_seconds", "Time from message to DONE.",
                                 ["service"], buckets=TURN_BUCKETS, registry=r)
        self.errors = Counter("flowctl_turn_errors", "Turns answered with an error code.",
                              ["service", "code"], registry=r)
        self.tags = Counter("flowctl_failure_tags", "Failure tags in DONE's _trace.",
                            ["service", "tag"], registry=r)
        self.llm_calls = Counter("flowctl_llm_calls", "Logical model calls (retries included "
                                 "in one call).", ["service", "model", "outcome"], registry=r)
        self.llm_tokens = Counter("flowctl_llm_tokens", "Tokens the providers counted.",
                                  ["service", "model", "direction"], registry=r)
        self.steps = Counter("flowctl_step_failures", "Agents and actions that failed.",
                             ["service", "agent"], registry=r)
        streams = Gauge("flowctl_turns_running", "Turns running now (streams included).",
                        ["service"], registry=r)
        streams.labels(service).set_function(active)
        waiting = Gauge("flowctl_actions_pending", "Irreversible actions whose outcome is "
                        "not known yet (asked again in the background).", ["service"],
                        registry=r)
        waiting.labels(service).set_function(pending)
        # The children every turn touches, found once: ``labels()`` checks its arguments and
        # takes a lock each time (a few µs a turn). Flows, stages and next actions are few.
        self._seconds = self.seconds.labels(service)
        self._ended: dict[tuple[str, str, str], Counter] = {}

    def observe(self, done: Done) -> None:
        """Count one finished turn from its DONE (payload and trace)."""
        service, trace = self.service, done.trace
        snapshot = done.state_snapshot  # READY in two flows is two rows
        ended = (str(snapshot.get("flow") or ""), done.next_action,
                 str(snapshot.get("stage") or ""))
        counter = self._ended.get(ended)
        if counter is None:
            counter = self._ended[ended] = self.turns.labels(service, *ended)
        counter.inc()
        self._seconds.observe(trace.get("total_elapsed_ms", 0.0) / 1000)
        if trace.get("error"):
            self.errors.labels(service, trace["error"]).inc()
        for tag in trace.get("failure_tags", ()):
            self.tags.labels(service, tag).inc()
        for entry in trace.get("agents", ()):
            model = entry.get("model")
            if model is not None:
                outcome = "ok" if entry["success"] else "fallback"
                self.llm_calls.labels(service, model, outcome).inc()
                self.llm_tokens.labels(service, model, "in").inc(entry.get("tokens_in", 0))
                self.llm_tokens.labels(service, model, "out").inc(entry.get("tokens_out", 0))
            elif not entry["success"]:
                self.steps.labels(service, entry["agent"]).inc()

    def exposition(self) -> bytes:
        """The text format Prometheus scrapes (``content_type``)."""
        from prometheus_client.exposition import generate_latest

        return generate_latest(self.registry)
