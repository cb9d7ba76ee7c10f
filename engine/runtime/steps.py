"""A stage's compiled steps -> their effects on the turn, and the events they emit.

One handler per step kind, dispatched by a ``match`` that ends in ``assert_never`` so a new
step kind cannot be forgotten. Steps never write the store and never fire triggers
themselves: a ``trigger`` (or a ``call``'s outcome) is left pending for the turn to fire
once the stage's steps are done.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, assert_never

from engine.compiler.compiled import (
    AgentStep,
    CallFlowStep,
    CallStep,
    EmitStep,
    IfStep,
    LinkStep,
    SayStep,
    SetStep,
    Step,
    TriggerStep,
    Value,
    scrubbed,
    shown,
)
from engine.errors import FlowRuntimeError
from engine.providers.base import ChatRequest
from engine.providers.tools import BUILTIN_TOOLS
from engine.runtime import onecall_turn
from engine.runtime.actions import ActionFailed, ActionUnknown, run_action
from engine.runtime.agent import ModelCall, Reply, agent_reply
from engine.runtime.events import (
    AgentDone,
    AgentStart,
    Event,
    Hook,
    LlmDone,
    TaskProgress,
)
from engine.runtime.llm import agent_request, context_block

if TYPE_CHECKING:
    from engine.runtime.turn import TurnRun


async def run_steps(run: TurnRun, steps: tuple[Step, ...]) -> AsyncIterator[Event]:
    """Run ``steps`` in order until one leaves a trigger pending."""
    for step in steps:
        if run.pending is not None or run.halted or run.calling or run.linking:
            return
        match step:
            case SayStep(message):
                run.reply.say(message)
            case SetStep(assignments):
                _assign(run, assignments)
            case TriggerStep(trigger):
                run.pending = trigger
            case EmitStep(kind, data):
                view = run.state.view()
                values = {k: v.render(view) for k, v in data}
                run.hooks.append(Hook(type=kind, data=scrubbed(values, run.state.secrets())))
            case CallStep():
                async for event in _call(run, step):
                    yield event
            case CallFlowStep(flow, ok):
                run.calling = (flow, ok)
            case LinkStep(flow):
                run.linking = flow
            case AgentStep():
                async for event in _agent(run, step):
                    yield event
            case IfStep(condition, then, otherwise):
                branch = then if condition.render(run.state.view()) else otherwise
                async for event in run_steps(run, branch):
                    yield event
            case _:
                assert_never(step)


def _assign(run: TurnRun, assignments: tuple[tuple[str, Value], ...]) -> None:
    view = run.state.view()  # every value sees the state before the step
    for name, value in assignments:
        raw = value.render(view)
        if raw is None:  # `set: {slot: null}` clears it
            run.state.clear(name)
        else:
            run.set_slot(name, raw)


async def _call(run: TurnRun, step: CallStep) -> AsyncIterator[Event]:
    """Run an action; its outcome picks the step's ``ok`` or ``error`` trigger.

    An irreversible action goes through the session's action journal: recorded ``pending``
    and committed before the call, run at most once per task (a second ``call`` of it in the
    same task reuses the first result), its outcome recorded after."""
    action = run.service.actions[step.action]
    state = run.state
    total = state.session.meta.get("batch_total") or 1
    if total > 1:
        index = state.session.meta.get("batch_progress", 0) + 1
        yield TaskProgress(index, total, shown(state.slot_values(), run.service.sensitive))
    label = action.label or run.reply.label("call")
    yield AgentStart(action.name, label)
    started = time.perf_counter()
    entry = state.session.journal.get(action.name) if action.irreversible else None
    if entry is not None and entry["status"] == "done":
        result, error = entry["result"], None  # ran already in this task: never twice
    else:
        args = {k: v.render(state.view()) for k, v in action.args}
        if action.irreversible:
            await run.journal(action.name, args, step)
        result, error = await perform(run, action.name, args)
    state.set_result(result)
    run.tracer.step(action.name, started, error=error)
    entry = state.session.journal.get(action.name)
    if entry is not None and entry["status"] == "pending":  # no answer that settles it
        yield AgentDone(action.name, label, False)
        run.reply.parts.append(run.engine.text("action_pending"))
        run.halted = True  # the task waits here; the next turn asks again with the same key
        return
    yield AgentDone(action.name, label, error is None,
                    result=scrubbed(result, state.secrets()))
    run.pending = outcome_trigger(action.name, step.ok, step.error, error)


async def perform(run: TurnRun, name: str, args: dict[str, Any]) -> tuple[Any, str | None]:
    """Call action ``name`` with the task's idempotency key; (result, error). The outcome of
    an irreversible action is written to the journal (committed with the turn)."""
    action = run.service.actions[name]
    session = run.state.session
    key = f"{session.task_id}:{name}"
    url = headers = None
    stub = run.engine.stubs.get(name)
    if action.kind == "http" and stub is None:  # a stubbed action needs no URL (nor its env)
        with_env = {**run.state.view(), "env": dict(run.engine.settings.env)}
        url = str(action.url.render(with_env)) if action.url else ""
        headers = {k: str(t.render(with_env)) for k, t in action.headers}
    error, settled = None, True
    try:
        result: Any = stub.outcome() if stub is not None else \
            await run_action(action, args, key, url=url, headers=headers)
    except ActionFailed as err:
        result, error, settled = {"error": str(err)}, str(err), not isinstance(err, ActionUnknown)
    entry = session.journal.get(name)
    if entry is not None and settled:
        entry["status"], entry["result"] = ("done" if error is None else "failed"), result
    return result, error


def outcome_trigger(name: str, ok: str | None, error_trigger: str | None,
                    error: str | None) -> str | None:
    if error is None:
        return ok
    if error_trigger is None:
        raise FlowRuntimeError(f"action {name} failed ({error}) and its step has no `error` "
                               "trigger")
    return error_trigger


async def _agent(run: TurnRun, step: AgentStep) -> AsyncIterator[Event]:
    """An LLM reply, streamed token by token; the fallback template when offline or when
    every retry failed (the user always gets an answer, never a provider error)."""
    label = step.label or run.reply.label("agent")
    yield AgentStart(step.agent, label)
    started = time.perf_counter()
    live = run.engine.models.get(step.model)
    reply: dict[str, Any] | None = None
    answer = onecall_turn.take(run, step)
    if live is not None and (answer is not None or live.breaker.allow()):
        call = ModelCall(live, step.agent, run.tracer, deadline=run.deadline)
        replies = answer.replies() if answer is not None else agent_reply(
            call, agent_request_for(run, step), tools=step.tools, json_output=step.json_output)
        async for item in replies:
            if isinstance(item, Reply):
                reply = item.payload
                if item.output is not None and step.agent in run.service.agent_outputs:
                    run.state.set_agent_output(step.agent, item.output)
            else:
                yield item
    if reply is None:
        reply = {"action": "ASK", "message": run.reply.render(step.fallback)}
        if live is None:
            run.tracer.step(step.agent, started)
        else:  # a model was configured: its call failed, was refused or was unusable
            run.tracer.tag("AGENT_CALL_FAILED")
        if step.agent in run.service.agent_outputs:
            run.state.set_agent_output(step.agent, None)  # no data: `agents.<name>` is none
    yield LlmDone(reply)
    run.reply.parts.append(str(reply.get("message", "")))
    yield AgentDone(step.agent, label, True)


def prompt_values(run: TurnRun, step: AgentStep) -> dict[str, Any]:
    """What an agent's prompt sees beyond the turn context (``registry.AGENT_PROMPT_NAMES``)."""
    session = run.state.session
    return {"message": run.state.message, "history": session.raw_history, "instructions": "",
            "intents": list(run.service.intent_names), "tools": step.tools}


def agent_request_for(run: TurnRun, step: AgentStep) -> ChatRequest:
    """What ``step`` sends its model: its prompt, the turn's state, memory, the message."""
    view = run.state.view()
    prompt = run.service.prompts[step.prompt].render({**view, **prompt_values(run, step)})
    session = run.state.session
    return agent_request(prompt, context_block=context_block(view),
                         summary=session.summary_text, raw_history=session.raw_history,
                         message=run.state.message, json_output=step.json_output,
                         tools=tuple(BUILTIN_TOOLS[t].spec for t in step.tools))


__all__ = ["agent_request_for", "outcome_trigger", "perform", "prompt_values", "run_steps"]
