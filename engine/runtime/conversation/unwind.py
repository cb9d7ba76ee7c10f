"""The flow on top ended (or a value of its caller changed) -> the flows under it taken up.

``unwind``: while the top flow is done and flows wait under it, the next one comes up: an
interrupted flow resumes (asking first when it declares ``resume``), a caller goes on with
the called flow's ``result`` through its ``ok`` trigger, a queued flow starts with the words
the user said for it, and a task whose irreversible action's outcome is unknown has its
target asked again. Nothing unwinds while the current task waits for such an outcome.
``correct_caller``: a message that changes a value of the calling flow leaves the called one.
"""

from __future__ import annotations

from typing import Any

from engine.compiler.compiled import CompiledFlow
from engine.runtime.turn.run import Turn
from engine.runtime.turn.stack import MAX_DEPTH, PENDING
from engine.runtime.understanding.understand import Intent, Understanding, understand
from engine.runtime.values.events import StackOp


async def correct_caller(run: Turn, rules: Understanding) -> bool:
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




def ended_result(run: Turn) -> dict[str, Any]:
    """What a called flow hands back: the stage it ended in and its slots."""
    state = run.state
    return {"outcome": state.session.stage, "slots": state.all_slots()}


async def unwind(run: Turn) -> None:
    """While the top flow is done and flows wait under it, take the next one up."""
    state, service, stack = run.state, run.service, run.stack
    for _ in range(MAX_DEPTH * 4):
        session = state.session
        if session.pending() or not session.stack or state.flow.in_progress(session.stage):
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


def _resume(run: Turn, flow: CompiledFlow, cause: str) -> None:
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


__all__ = ["correct_caller", "ended_result", "unwind"]
