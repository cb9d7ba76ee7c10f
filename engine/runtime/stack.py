"""The session's flow stack -> flows pushed, started, taken up again within a turn.

The flow in progress is on top; under it wait the flows it interrupted (``interrupted``),
the flows that called it (``caller``) and the flows the user asked for in the same message
(``queued``). When the top flow ends, ``unwind`` takes the next one up: an interrupted flow
resumes (asking first when it declares ``resume``), a caller goes on with the called flow's
``result``, a queued flow starts with the words the user said for it. Every change is
noted for DONE's ``_trace.stack``; the stack itself is in ``state_snapshot.stack``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from engine.compiler.compiled import CompiledFlow, CompiledService, shown
from engine.runtime.events import StackEntry, StackOp
from engine.runtime.session import Frame, Meta, SessionState
from engine.runtime.understand import Intent, Understanding, understand

if TYPE_CHECKING:
    from engine.runtime.turn import TurnRun

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
    """A turn's changes to the session's flow stack."""

    __slots__ = ("ops", "run")

    def __init__(self, run: TurnRun) -> None:
        self.run = run
        self.ops: list[StackOp] = []

    def full(self) -> bool:
        return len(self.run.state.session.stack) >= MAX_DEPTH

    def push(self, kind: Literal["interrupted", "caller"], reason: str, *,
             ok: str | None = None) -> None:
        """Put the current task under a new one (``ok`` fires in it when that one ends)."""
        state = self.run.state
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
        session = self.run.state.session
        for flow, message in reversed(later):
            session.stack.append(Frame(kind="queued", flow=flow, stage=None, slots={},
                                       meta=Meta(), task_queue=[], filling_turns=0,
                                       task_id="", journal={}, message=message))
            self.ops.append(StackOp(op="queue", flow=flow, reason="several intents"))

    def start(self, flow: CompiledFlow, intent: Intent, reason: str) -> bool:
        """Start a task of ``flow`` on top; False (its ``refused`` said) when its guard
        does not hold."""
        run = self.run
        if reason not in ("call", "handoff") and not any(op["op"] in ("start", "refused")
                                                           for op in self.ops):
            run.reading["intent"] = intent.name  # the first flow the message itself asked for
        if flow.guard is not None and not flow.guard.render(run.state.view()):
            run.reply.say(flow.refused)
            self.ops.append(StackOp(op="refused", flow=flow.name, reason="guard"))
            return False
        run.state.route(flow, intent, called=reason == "call")
        run.routed = True  # nothing was asked in the new flow yet: no bare answers this turn
        self.ops.append(StackOp(op="start", flow=flow.name, reason=reason))
        return True

    def link(self, flow: CompiledFlow) -> None:
        self.ops.append(StackOp(op="link", flow=flow.name, reason="link"))


async def correct_caller(run: TurnRun, rules: Understanding) -> bool:
    """A message that changes a value of the flow that called the current one ("make it a
    medium" while the payment it called asks for the card): the called flow is left (it had
    not acted yet), the caller takes the change (``meta.corrected`` says so) and goes back to
    collecting from its initial stage, so what it confirmed with the old value is confirmed
    again with the new one. False (nothing done) for anything else."""
    state = run.state
    session = state.session
    if not session.stack or session.stack[-1]["kind"] != "caller" or session.journal or \
            not state.flow.interruptible or rules.ops or rules.decision is not None or \
            rules.tasks:
        return False  # an uninterruptible called flow (verifying) keeps every turn
    frame = session.stack[-1]
    caller = run.service.flows[frame["flow"]]
    values = frame["slots"]
    found = understand(state.message, run.service, caller, frame["stage"] or caller.initial,
                       asked=None, batching=False, today=state.now.date(), values=values)
    changes = [op for op in found.ops if op.op == "set" and
               values.get(op.slot) not in (None, "", op.value)]
    if not changes or found.decision is not None:
        return False
    run.stack.ops.append(StackOp(op="pop", flow=state.flow.name, reason="caller corrected"))
    session.restore(session.stack.pop())
    state.enter(caller)
    session.stage = caller.initial  # collecting again: its confirmation comes again
    for op in changes:  # applied: the caller's confirmation, asked again, confirms it
        run.set_slot(op.slot, op.value, confirmed=True)
    await run.settle(run.fire("update"))
    return True


def answered(flow: CompiledFlow, service: CompiledService) -> bool:
    """A one-stage flow with nothing to collect (an answer: the order status, a balance) is
    done once it has spoken, terminal stage or not; the default and chit-chat flows are
    conversation, not tasks."""
    return len(flow.stages) == 1 and not flow.slots and \
        flow.name not in (service.default_flow, service.patterns.chitchat)


def ended_result(run: TurnRun) -> dict[str, Any]:
    """What a called flow hands back: the stage it ended in and its slots."""
    state = run.state
    return {"outcome": state.session.stage, "slots": state.all_slots()}


async def unwind(run: TurnRun) -> None:
    """While the top flow is done and flows wait under it, take the next one up."""
    state, service, stack = run.state, run.service, run.stack
    for _ in range(MAX_DEPTH * 4):
        session = state.session
        if run.halted or not session.stack or state.flow.in_progress(session.stage):
            return
        result = run.ended or ended_result(run)
        if run.ended is None:
            state.finish()  # ended resting in its initial stage (a chat turn, an answer)
        run.ended = None
        frame = session.stack.pop()
        stack.ops.append(StackOp(op="pop", flow=frame["flow"], reason=frame["kind"]))
        flow = service.flows[frame["flow"]]
        if frame["kind"] == "queued":
            if stack.start(flow, Intent(None, 0.0), "queued"):
                await run.work(frame.get("message", ""))
            continue
        session.restore(frame)
        state.enter(flow)
        if frame.get("cause") == PENDING:  # asked again, unless this very turn asked it
            if frame.get("asked_in") == run.turn_id:
                return
            await run.settle(True)
            continue
        if frame["kind"] == "caller":
            state.set_result(result)
            await run.settle(run.fire(frame.get("ok")))
            continue
        _resume(run, flow, frame.get("cause", "intent"))
        return


def _resume(run: TurnRun, flow: CompiledFlow, cause: str) -> None:
    """An interrupted flow is back on top: ask whether to go on (after another flow's
    task, when the flow says so), or ask its question again (after small talk, unless the
    flow's ``resume.after_digression`` says ``ask``)."""
    state = run.state
    asks = cause != "digression" or flow.resume_after_digression == "ask"
    if flow.resume_ask is not None and asks:
        state.await_answer("continue")
        run.reply.say(flow.resume_ask)
    else:
        stage = state.stage
        run.reply.say(stage.reprompt or stage.say)


__all__ = ["MAX_DEPTH", "PENDING", "FlowStack", "answered", "correct_caller", "entries",
           "unwind"]
