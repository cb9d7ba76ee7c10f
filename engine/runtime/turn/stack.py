"""The session's flow stack -> flows pushed, queued and started within a turn.

The flow in progress is on top; under it wait the flows it interrupted (``interrupted``),
the flows that called it (``caller``) and the flows the user asked for in the same message
(``queued``). Taking them up again when the top flow ends is ``conversation/unwind.py``.
Every change is noted for DONE's ``_trace.stack``; the stack itself is in
``state_snapshot.stack``.
"""

from __future__ import annotations

from typing import Literal

from engine.compiler.compiled import CompiledFlow, CompiledService, shown
from engine.runtime.turn.reply import Reply
from engine.runtime.understanding.context import TurnState
from engine.runtime.understanding.understand import Intent
from engine.runtime.values.events import Reading, StackEntry, StackOp
from engine.runtime.values.session import Frame, Meta, SessionState

PENDING = "pending"
"""The ``cause`` of a task waiting, with an irreversible action's outcome unknown, under a
flow the user began meanwhile: when it comes back its target is asked again (never "go
on?", whose "no" would cancel a task that may have run)."""

MAX_DEPTH = 8
"""Flows waiting under the current one at most: a deeper push is refused (lint proves the
flows' own calls cannot recurse; this bounds interruptions of interruptions)."""


def entries(session: SessionState, sensitive: frozenset[str] = frozenset()) -> list[StackEntry]:
    """The waiting flows, most recent last, as DONE's ``state_snapshot.stack`` shows them."""
    return [StackEntry(flow=f["flow"], stage=f["stage"], kind=f["kind"],
                       slots=shown(f["slots"], sensitive)) for f in session.stack]


class FlowStack:
    """A turn's changes to the session's flow stack, noted in ``ops``."""

    __slots__ = ("ops", "reading", "reply", "state")

    def __init__(self, state: TurnState, reply: Reply, reading: Reading) -> None:
        self.state, self.reply, self.reading = state, reply, reading
        self.ops: list[StackOp] = []

    @property
    def started(self) -> bool:
        """A flow was started this turn."""
        return any(op["op"] == "start" for op in self.ops)

    def full(self) -> bool:
        return len(self.state.session.stack) >= MAX_DEPTH

    def push(self, kind: Literal["interrupted", "caller"], reason: str, *,
             ok: str | None = None) -> None:
        """Put the current task under a new one (``ok`` fires in it when that one ends)."""
        state = self.state
        # an interrupting flow starts afresh; a called one sees the caller's values by name
        hide = state.flow.fresh if kind == "interrupted" else ()
        frame = state.session.push(kind, state.flow.slots, hide)
        if ok is not None:
            frame["ok"] = ok
        if kind == "interrupted":
            frame["cause"] = reason
        self.ops.append(StackOp(op="push", flow=frame["flow"], reason=reason))

    def queue(self, later: list[tuple[str, str]]) -> None:
        """Flows (with the words said for each) to start, in order, once the current is done."""
        session = self.state.session
        for flow, message in reversed(later):
            session.stack.append(Frame(kind="queued", flow=flow, stage=None, slots={},
                                       meta=Meta(), task_queue=[], filling_turns=0,
                                       task_id="", journal={}, message=message))
            self.ops.append(StackOp(op="queue", flow=flow, reason="several intents"))

    def start(self, flow: CompiledFlow, intent: Intent, reason: str) -> bool:
        """Start a task of ``flow`` on top; False (its ``refused`` said) when its guard
        does not hold, the task pushed under it this turn back on top as it was."""
        if reason not in ("call", "handoff") and not any(op["op"] in ("start", "refused")
                                                           for op in self.ops):
            self.reading["intent"] = intent.name  # the first flow the message itself asked for
        if flow.guard is not None and not flow.guard.render(self.state.view()):
            self.reply.say(flow.refused)
            if self.ops and self.ops[-1]["op"] == "push":  # the task put under it comes
                self.ops.pop()  # back as it was: its values, its journal, its stage, and
                self.state.session.restore(self.state.session.stack.pop())  # its question
                self.state.enter(self.state.flow)
                self.reply.say(self.state.stage.reprompt or self.state.stage.say)
            self.ops.append(StackOp(op="refused", flow=flow.name, reason="guard"))
            return False
        self.state.route(flow, intent, called=reason == "call")
        self.ops.append(StackOp(op="start", flow=flow.name, reason=reason))
        return True

    def link(self, flow: CompiledFlow) -> None:
        self.ops.append(StackOp(op="link", flow=flow.name, reason="link"))


def answered(flow: CompiledFlow, service: CompiledService) -> bool:
    """A one-stage flow with nothing to collect (an answer: the order status, a balance) is
    done once it has spoken, terminal stage or not; the default and chit-chat flows are
    conversation, not tasks."""
    return len(flow.stages) == 1 and not flow.slots and \
        flow.name not in (service.default_flow, service.patterns.chitchat)


__all__ = ["MAX_DEPTH", "PENDING", "FlowStack", "answered", "entries"]
