"""Every turn's DONE -> Prometheus counters and histograms, served at ``GET /metrics``.

Only numbers and names leave the process: the service, the stage a turn ended in, its
``next_action``, error codes, failure tags, models and agents -- never a message, a slot
value or a session id. Each app has metrics of its own (two apps in one process, as in
the tests, never share or collide). Recording a turn is a handful of dict look-ups into
plain numbers: the trace the turn already wrote is read after its DONE, nothing is timed
twice. ``prometheus_client`` writes the exposition, and is imported at the first scrape: a
server that is never scraped never loads it.
"""

from __future__ import annotations

import os
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from engine.runtime.values.events import Done

if TYPE_CHECKING:
    from prometheus_client.metrics_core import Metric

__all__ = ["TurnMetrics"]

# Turns answer in a millisecond without a model and in seconds with one.
TURN_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                10.0, 30.0)

COUNTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "flowctl_turns": ("Turns answered, by how they ended.",
                      ("service", "flow", "next_action", "stage")),
    "flowctl_turn_errors": ("Turns answered with an error code.", ("service", "code")),
    "flowctl_failure_tags": ("Failure tags in DONE's _trace.", ("service", "tag")),
    "flowctl_llm_calls": ("Logical model calls (retries included in one call).",
                          ("service", "model", "outcome")),
    "flowctl_llm_tokens": ("Tokens the providers counted.", ("service", "model", "direction")),
    "flowctl_step_failures": ("Agents and actions that failed.", ("service", "agent")),
}
"""Each counter: its help text and label names (the service first)."""

SECONDS = ("flowctl_turn_seconds", "Time from message to DONE.")
GAUGES = (("flowctl_turns_running", "Turns running now (streams included)."),
          ("flowctl_actions_pending", "Irreversible actions whose outcome is not known yet "
           "(asked again in the background)."))


def _created_series() -> bool:
    """Whether counters and histograms show when they were created (``*_created``), as
    prometheus_client does unless PROMETHEUS_DISABLE_CREATED_SERIES is set."""
    return os.environ.get("PROMETHEUS_DISABLE_CREATED_SERIES", "False").lower() \
        not in ("true", "1", "t")


class TurnMetrics:
    """The metrics of one served app; ``observe`` is called once per finished turn."""

    def __init__(self, service: str, *, active: Callable[[], int] = lambda: 0,
                 pending: Callable[[], int] = lambda: 0) -> None:
        self.service = service
        self._gauges = (active, pending)
        self._counts: dict[str, dict[tuple[str, ...], list[float]]] = {
            name: {} for name in COUNTERS}
        """counter -> label values (the service first) -> [value, time created]."""
        self._buckets = [0] * (len(TURN_BUCKETS) + 1)  # the last: above every bound
        self._seconds = [0.0, time.time()]  # [sum, time created]

    def _add(self, counter: str, labels: tuple[str, ...], amount: float = 1.0) -> None:
        counts = self._counts[counter]
        value = counts.get(labels)
        if value is None:
            counts[labels] = [amount, time.time()]
        else:
            value[0] += amount

    def observe(self, done: Done) -> None:
        """Count one finished turn from its DONE (payload and trace)."""
        service, trace, add = self.service, done.trace, self._add
        snapshot = done.state_snapshot  # READY in two flows is two rows
        add("flowctl_turns", (service, str(snapshot.get("flow") or ""), done.next_action,
                              str(snapshot.get("stage") or "")))
        seconds = trace.get("total_elapsed_ms", 0.0) / 1000
        self._buckets[bisect_left(TURN_BUCKETS, seconds)] += 1  # le: a bound counts its own
        self._seconds[0] += seconds
        if trace.get("error"):
            add("flowctl_turn_errors", (service, trace["error"]))
        for tag in trace.get("failure_tags", ()):
            add("flowctl_failure_tags", (service, tag))
        for entry in trace.get("agents", ()):
            model = entry.get("model")
            if model is not None:
                outcome = "ok" if entry["success"] else "fallback"
                add("flowctl_llm_calls", (service, model, outcome))
                add("flowctl_llm_tokens", (service, model, "in"), entry.get("tokens_in", 0))
                add("flowctl_llm_tokens", (service, model, "out"), entry.get("tokens_out", 0))
            elif not entry["success"]:
                add("flowctl_step_failures", (service, entry["agent"]))

    @property
    def content_type(self) -> str:
        """The exposition's media type."""
        from prometheus_client.exposition import CONTENT_TYPE_LATEST

        return CONTENT_TYPE_LATEST

    def exposition(self) -> bytes:
        """The text format Prometheus scrapes (``content_type``)."""
        from prometheus_client.exposition import generate_latest

        return generate_latest(self)  # a collector: anything with collect()

    def collect(self) -> Iterator[Metric]:
        """The metrics as prometheus_client's families: turns, their time, the other
        counters, the gauges."""
        from prometheus_client.metrics_core import Metric

        created = _created_series()
        counters = [self._counter(Metric(name, text, "counter"), labels, created)
                    for name, (text, labels) in COUNTERS.items()]
        yield counters[0]
        yield self._histogram(Metric(SECONDS[0], SECONDS[1], "histogram"), created)
        yield from counters[1:]
        for (name, text), read in zip(GAUGES, self._gauges, strict=True):
            gauge = Metric(name, text, "gauge")
            gauge.add_sample(name, {"service": self.service}, read())
            yield gauge

    def _histogram(self, family: Metric, created: bool) -> Metric:
        from prometheus_client.utils import floatToGoString

        name, service, total = family.name, {"service": self.service}, 0
        for bound, count in zip((*TURN_BUCKETS, float("inf")), self._buckets, strict=True):
            total += count
            family.add_sample(f"{name}_bucket", {**service, "le": floatToGoString(bound)},
                              total)
        family.add_sample(f"{name}_count", service, total)
        family.add_sample(f"{name}_sum", service, self._seconds[0])
        if created:
            family.add_sample(f"{name}_created", service, self._seconds[1])
        return family

    def _counter(self, family: Metric, label_names: tuple[str, ...], created: bool) -> Metric:
        name = family.name
        for labels, (value, since) in self._counts[name].items():
            named = dict(zip(label_names, labels, strict=True))
            family.add_sample(f"{name}_total", named, value)
            if created:
                family.add_sample(f"{name}_created", named, since)
        return family
