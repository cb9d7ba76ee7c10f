"""Every turn's DONE -> an OpenTelemetry span with a child span per agent, model call and action.

Off unless the operator asks for it with the standard variables (``OTEL_TRACES_EXPORTER``,
``OTEL_EXPORTER_OTLP_ENDPOINT`` or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) and the ``otel``
extra is installed; off, nothing of OpenTelemetry's SDK is imported and a turn costs nothing
more. The spans are written when the turn has finished, from the DONE's ``_trace``: the turn's
span has its real start and end, and its children are laid end to end in the order they ran,
each as long as it took (the gaps between them are the engine's own work). Only names and
numbers go into spans, as in the metrics: no message, no slot value.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from engine.runtime.values.events import Done

log = logging.getLogger("flowctl.otel")

__all__ = ["TurnTracer", "tracer_from_env", "wanted"]

_SWITCHES = ("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
             "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def wanted(env: Mapping[str, str]) -> bool:
    """Whether the environment asks for traces (and has not switched the SDK off).

    >>> wanted({}), wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    (False, True)
    >>> wanted({"OTEL_TRACES_EXPORTER": "none"})
    False
    >>> wanted({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"})
    False
    """
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if env.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return False
    return any(env.get(name, "").strip() for name in _SWITCHES)


class TurnTracer:
    """Writes each finished turn as spans through a tracer provider."""

    def __init__(self, provider: Any, service: str) -> None:
        self.service = service
        self.provider = provider
        self.tracer = provider.get_tracer("flowctl")

    def close(self) -> None:
        """Export what is still buffered (at shutdown)."""
        shutdown = getattr(self.provider, "shutdown", None)
        if shutdown is not None:
            shutdown()

    def observe(self, done: Done, started_ns: int, ended_ns: int) -> None:
        trace, snapshot = done.trace, done.state_snapshot
        turn = self.tracer.start_span(
            f"turn {self.service}", start_time=started_ns,
            attributes={"flowctl.service": self.service, "flowctl.turn_id": trace["turn_id"],
                        "flowctl.next_action": done.next_action,
                        "flowctl.stage": str(snapshot.get("stage") or ""),
                        "flowctl.failure_tags": list(trace.get("failure_tags", ()))})
        if trace.get("error"):
            turn.set_attribute("flowctl.error", trace["error"])
        from opentelemetry import trace as api  # the extra is installed: we got this far

        parent = api.set_span_in_context(turn)
        at = started_ns
        for entry in trace.get("agents", ()):
            took = int(entry["elapsed_ms"] * 1_000_000)
            child = self.tracer.start_span(entry["agent"], context=parent, start_time=at,
                                           attributes=_attributes(entry))
            if not entry["success"]:
                child.set_status(api.Status(api.StatusCode.ERROR, entry.get("error") or ""))
            at = min(at + took, ended_ns)
            child.end(end_time=at)
        turn.end(end_time=ended_ns)


_GEN_AI = {"provider": "gen_ai.system", "model": "gen_ai.request.model",
           "tokens_in": "gen_ai.usage.input_tokens", "tokens_out": "gen_ai.usage.output_tokens"}


def _attributes(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A trace entry's numbers and names; a model call's under OpenTelemetry's gen_ai names."""
    kept = {"flowctl.retries": entry["retries"]}
    kept.update({name: entry[key] for key, name in _GEN_AI.items() if key in entry})
    return kept


def tracer_from_env(env: Mapping[str, str], service: str) -> TurnTracer | None:
    """The tracer the operator asked for, exporting over OTLP/HTTP; None when not asked, or
    when the ``otel`` extra is missing (said once in the log)."""
    if not wanted(env):
        return None
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        log.warning("OpenTelemetry variables are set but the otel extra is not installed "
                    "(pip install 'flowctl[otel]'); no traces are exported")
        return None
    name = env.get("OTEL_SERVICE_NAME", "").strip() or f"flowctl-{service}"
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return TurnTracer(provider, service)
