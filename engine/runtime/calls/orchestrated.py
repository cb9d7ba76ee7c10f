"""A finished turn -> the orchestrator shape's fields of its DONE (``response: orchestrator``).

``final_response`` is the reply; ``selected_agents`` the agent steps and actions that ran, in
order, each with what it gave (an agent step's result, an action's result, secrets
scrubbed); ``action_requests`` the action requests the gateway let through; and
``confidence_score`` the mean of the confidences the turn read its message with: each
intent reading's (``_trace.agents[].confidence`` of the ``intent`` entries), or, for a turn
that went on with a flow (an answer, a decision), the model's confidence when the model
read it and 1.0 when the rules did — they settle a message only when sure of it.
"""

from __future__ import annotations

from statistics import fmean
from typing import Protocol

from engine.compiler.compiled import CompiledService
from engine.runtime.calls.trace import Tracer
from engine.runtime.understanding.llm import LlmUnderstanding
from engine.runtime.values.events import Orchestrated


class Finished(Protocol):
    """What of a finished turn the shape reads (a ``TurnRun``)."""

    service: CompiledService
    tracer: Tracer
    llm: LlmUnderstanding | None
    asked: bool


def orchestrated(run: Finished, message: str) -> Orchestrated | None:
    """The fields, or None for a service with the plain DONE."""
    if run.service.response != "orchestrator":
        return None
    tracer = run.tracer
    read = [e["confidence"] for e in tracer.entries if "confidence" in e]
    if not read:
        read = [run.llm.confidence if run.asked and run.llm is not None else 1.0]
    return Orchestrated(final_response=message, selected_agents=list(tracer.selected),
                        action_requests=list(tracer.requests),
                        confidence_score=round(fmean(read), 4))


__all__ = ["orchestrated"]
