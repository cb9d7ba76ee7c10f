"""Turn events: a closed union; ``wire(event)`` gives the wire protocol's (name, payload).

Transports only serialise these (SSE ``event:`` = name, ``data:`` = JSON payload); the
names and DONE fields are the public wire protocol clients depend on and must not change.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict, assert_never

from engine.runtime.values.admission import Refusal
from engine.runtime.values.session import Meta, QueuedTask


class UiHint(TypedDict):
    """What the client may show besides the message."""

    buttons: list[str]


class Hook(TypedDict):
    """A server-side hook an `emit` step raised, delivered with the turn's DONE."""

    type: str
    data: dict[str, Any]


class StateSnapshot(TypedDict):
    """The session after the turn, as the client sees it."""

    flow: str | None
    stage: str | None
    slots: dict[str, Any]
    missing_required: list[str]
    filling_turns: int
    meta: Meta
    task_queue: list[QueuedTask]
    stack: list[StackEntry]


class StackEntry(TypedDict):
    """A flow waiting under the current one (DONE's ``state_snapshot.stack``)."""

    flow: str
    stage: str | None
    kind: str
    slots: dict[str, Any]
    """The waiting flow's values (sensitive ones masked), as ``state_snapshot.slots`` shows
    the top flow's."""


class StackOp(TypedDict):
    """A change to the flow stack in this turn (DONE's ``_trace.stack``)."""

    op: Literal["push", "pop", "start", "link", "queue", "refused"]
    flow: str
    reason: str


class TraceEntry(TypedDict):
    """One agent, model call or action of the turn."""

    agent: str
    elapsed_ms: float
    success: bool
    retries: int
    error: str | None
    provider: NotRequired[str]
    model: NotRequired[str]
    tokens_in: NotRequired[int]
    tokens_out: NotRequired[int]
    tokens_cached: NotRequired[int]
    """Input tokens the provider served from its prompt cache, when it says so."""
    confidence: NotRequired[float]
    """The intent entry's: how sure the reading of the message's intent was."""
    fallback: NotRequired[bool]


class Trace(TypedDict):
    """DONE's ``_trace``: the turn's id, its time and every agent that ran."""

    turn_id: str
    total_elapsed_ms: float
    agents: list[TraceEntry]
    error: NotRequired[str]
    error_kind: NotRequired[str]
    """What failed a ``turn_failed`` turn: store, template, action, tool, understanding,
    validator or internal."""
    stack: NotRequired[list[StackOp]]
    failure_tags: NotRequired[list[str]]
    reading: NotRequired[Reading]


class Reading(TypedDict):
    """How the turn read the message (``_trace.reading``): the intent it started a flow for
    (None: no intent), the slot values it set (sensitive ones masked), the decision it took
    and who settled it: ``rules``, or ``model`` when the turn's one model call was made.
    ``flowctl eval`` scores these against labelled messages."""

    intent: str | None
    slots: dict[str, Any]
    decision: str | None
    by: str


@dataclass(frozen=True, slots=True)
class AgentStart:
    agent: str
    label: str


@dataclass(frozen=True, slots=True)
class LlmToken:
    text: str


@dataclass(frozen=True, slots=True)
class LlmDone:
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class AgentDone:
    agent: str
    label: str
    success: bool
    stage: str | None = None
    result: Any = None


@dataclass(frozen=True, slots=True)
class TaskProgress:
    index: int
    total: int
    slots: dict[str, Any]


class SelectedAgent(TypedDict):
    agent_name: str
    order: int
    output: Any


class Orchestrated(TypedDict):
    """DONE's fields for a service with ``response: orchestrator``: the reply again, the
    agent steps and actions that ran (in order, with what each gave), the action requests
    the gateway let through, and how sure the turn was of what it read (0.0-1.0)."""

    final_response: str
    selected_agents: list[SelectedAgent]
    action_requests: list[dict[str, Any]]
    confidence_score: float


@dataclass(frozen=True, slots=True)
class Done:
    """Always the last event of a turn, also when the turn failed."""

    message: str
    next_action: str
    ui_hint: UiHint
    state_snapshot: StateSnapshot
    hooks: list[Hook] = field(default_factory=list)
    trace: Trace = field(default_factory=lambda: Trace(turn_id="", total_elapsed_ms=0.0,
                                                       agents=[]))
    requires_confirmation: bool | None = None
    """The reply asks the user to confirm something: a `respond` step's
    `requires_confirmation`; None: whether ``next_action`` is CONFIRM."""
    next_suggested_actions: list[str] = field(default_factory=list)
    """Short next steps a client may offer (a `respond` step's `next`)."""
    orchestrated: Orchestrated | None = None
    """The orchestrator shape's fields (``response: orchestrator``), added to the payload."""
    refusal: Refusal | None = field(default=None, repr=False, compare=False)
    """Why the turn did not run (the payload shows it as ``_trace.error`` where it is one)."""
    delivered: Callable[[], Awaitable[None]] | None = field(default=None, repr=False,
                                                            compare=False)
    """For a transport that reports delivery (``engine.reporting_delivery``): await it once
    this DONE reached the client; until then the turn's outcome is told again next turn."""

    def payload(self) -> dict[str, Any]:
        extra: dict[str, Any] = dict(self.orchestrated or {})
        return {"message": self.message, "next_action": self.next_action,
                "ui_hint": self.ui_hint, "state_snapshot": self.state_snapshot,
                "hooks": self.hooks, "_trace": self.trace,
                "requires_confirmation": (self.next_action == "CONFIRM"
                                          if self.requires_confirmation is None
                                          else self.requires_confirmation),
                "next_suggested_actions": self.next_suggested_actions, **extra}


Event = AgentStart | LlmToken | LlmDone | AgentDone | TaskProgress | Done


def wire(event: Event) -> tuple[str, Any]:
    """The SSE event name and JSON payload of ``event``."""
    match event:
        case AgentStart(agent, label):
            return "AGENT_START", {"agent": agent, "label": label}
        case LlmToken(text):
            return "LLM_TOKEN", text
        case LlmDone(payload):
            return "LLM_DONE", payload
        case AgentDone():
            body: dict[str, Any] = {"agent": event.agent, "label": event.label,
                                    "success": event.success}
            if event.stage is not None:
                body["stage"] = event.stage
            if event.result is not None:
                body["result"] = event.result
            return "AGENT_DONE", body
        case TaskProgress(index, total, slots):
            return "TASK_PROGRESS", {"index": index, "total": total, "slots": slots}
        case Done():
            return "DONE", event.payload()
        case _:
            assert_never(event)
