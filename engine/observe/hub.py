"""The server's observers of finished turns: metrics and traces, each optional.

A failing observer is logged and forgotten: watching a turn never breaks or slows it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

from engine.observe.metrics import TurnMetrics
from engine.observe.tracing import TurnTracer, tracer_from_env
from engine.runtime.values.events import Done

log = logging.getLogger("flowctl.http")

__all__ = ["Observers"]


class Observers:
    """What ``Turns`` tells about every turn it ran: ``finished(done, started_ns)``."""

    def __init__(self, metrics: TurnMetrics | None = None,
                 tracer: TurnTracer | None = None) -> None:
        self.metrics = metrics
        self.tracer = tracer

    @classmethod
    def for_server(cls, service: str, *, metrics: bool, env: Mapping[str, str],
                   active: Callable[[], int],
                   pending: Callable[[], int] = lambda: 0) -> Observers:
        """Metrics unless switched off; traces when the environment asks for them."""
        return cls(TurnMetrics(service, active=active, pending=pending) if metrics else None,
                   tracer_from_env(env, service))

    def finished(self, done: Done, started_ns: int) -> None:
        ended_ns = time.time_ns()
        try:
            if self.metrics is not None:
                self.metrics.observe(done)
            if self.tracer is not None:
                self.tracer.observe(done, started_ns, ended_ns)
        except Exception as err:  # an observer's bug must not reach the user
            log.error("observing turn %s failed: %s: %s", done.trace.get("turn_id"),
                      type(err).__name__, err)

    def close(self) -> None:
        if self.tracer is not None:
            self.tracer.close()
