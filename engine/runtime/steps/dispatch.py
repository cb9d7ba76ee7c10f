"""A stage's compiled steps -> their effects on the turn, the events they emit, and what the
turn does next.

One handler per step kind, dispatched by a ``match`` that ends in ``assert_never`` so a new
step kind cannot be forgotten. Steps never write the store and never fire triggers
themselves: a step that ends the stage's steps returns what comes next (``control.Next``:
a trigger, a flow call or link, a halt), which the turn acts on once the stage has spoken.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, assert_never

from engine.compiler.compiled import (
    AgentStep,
    CallActionStep,
    CallFlowStep,
    CompiledAction,
    EmitStep,
    IfStep,
    LinkStep,
    LoopStep,
    RespondStep,
    RetrieveStep,
    SayStep,
    SetStep,
    Step,
    TriggerStep,
    Value,
    scrubbed,
    shown,
)
from engine.errors import FlowRuntimeError
from engine.providers.base import ChatRequest, ToolSpec
from engine.runtime.calls.actions import ActionFailed, ActionUnknown, ActionUnreached, run_action
from engine.runtime.calls.agent import ModelCall, Reply, agent_reply, agent_result, validator_rule
from engine.runtime.calls.gateway import rejection
from engine.runtime.calls.local import LOCAL_KINDS, run_local
from engine.runtime.calls.memory import latest_turns
from engine.runtime.calls.toolbox import agent_tools
from engine.runtime.steps import onecall_turn
from engine.runtime.steps.loop import in_loop, run_loop
from engine.runtime.steps.retrieve import retrieve, retrieved_block
from engine.runtime.steps.synthesis import respond
from engine.runtime.understanding.llm import agent_request, context_block
from engine.runtime.values.control import (
    HALT,
    PROCEED,
    AttemptFailed,
    CallFlow,
    Fire,
    Link,
    Next,
    Proceed,
    firing,
)
from engine.runtime.values.events import (
    AgentDone,
    AgentStart,
    Hook,
    LlmDone,
    TaskProgress,
)

if TYPE_CHECKING:
    from engine.runtime.turn.run import Turn


async def run_steps(run: Turn, steps: tuple[Step, ...]) -> Next:
    """Run ``steps`` in order until one says what the turn does next (``control.Next``)."""
    for step in steps:
        outcome = await _run_step(run, step)
        if not isinstance(outcome, Proceed):
            return outcome
    return PROCEED


async def _run_step(run: Turn, step: Step) -> Next:
    match step:
        case CallActionStep():
            return await _call(run, step)
        case AgentStep():
            await _agent(run, step)
        case RetrieveStep():
            await retrieve(run, step)
        case IfStep(condition, then, otherwise):
            return await run_steps(run, then if condition.render(run.state.view()) else otherwise)
        case LoopStep():
            return await run_loop(run, step, run_steps)
        case SayStep(message):
            run.reply.say(message)
        case SetStep(assignments):
            _assign(run, assignments)
        case TriggerStep(trigger):
            return Fire(trigger)
        case EmitStep(kind, data):
            view = run.state.view()
            values = {k: v.render(view) for k, v in data}
            run.hooks.append(Hook(type=kind, data=scrubbed(values, run.state.secrets())))
        case CallFlowStep(flow, ok):
            return CallFlow(flow, ok)
        case LinkStep(flow):
            return Link(flow)
        case RespondStep():
            respond(run, step)
        case _:
            assert_never(step)
    return PROCEED


def _assign(run: Turn, assignments: tuple[tuple[str, Value], ...]) -> None:
    view = run.state.view()  # every value sees the state before the step
    for name, value in assignments:
        raw = value.render(view)
        if raw is None:  # `set: {slot: null}` clears it
            run.state.clear(name)
        else:
            run.set_slot(name, raw, said=False)


async def _call(run: Turn, step: CallActionStep) -> Next:
    """Run an action; its outcome picks the step's ``ok`` or ``error`` trigger.

    An irreversible action goes through the session's action journal: recorded ``pending``
    and committed before the call, run at most once per task (a second ``call`` of it in the
    same task reuses the first result), its outcome recorded after."""
    action = run.service.actions[step.action]
    state = run.state
    total = state.session.meta.get("batch_total") or 1
    if total > 1:
        index = state.session.meta.get("batch_progress", 0) + 1
        run.emit(TaskProgress(index, total, shown(state.slot_values(), run.service.sensitive)))
    label = action.label or run.reply.label("call")
    run.emit(AgentStart(action.name, label))
    started = time.perf_counter()
    entry = state.session.journal.get(action.name) if action.irreversible else None
    if entry is not None and entry["status"] == "done":
        result, error = entry["result"], None  # ran already in this task: never twice
    else:
        result, error = await _gated(run, action, step)
    state.set_result(result)
    run.tracer.step(action.name, started, error=error)
    entry = state.session.journal.get(action.name)
    if entry is not None and entry["status"] == "pending":  # no answer that settles it
        run.emit(AgentDone(action.name, label, False))
        run.reply.parts.append(run.engine.text("action_pending"))
        return HALT  # the task waits here; the next turn asks again with the same key
    shown_result = scrubbed(result, state.secrets())
    run.tracer.ran(action.name, shown_result)
    run.emit(AgentDone(action.name, label, error is None, result=shown_result))
    if error is not None and in_loop(run):  # the attempt fails; the loop decides what next
        return AttemptFailed(f"{action.name}: {error}")
    return firing(outcome_trigger(action.name, step.ok, step.error, error))


async def _gated(run: Turn, action: CompiledAction, step: CallActionStep) -> tuple[Any, str | None]:
    """The action's request through the gateway, then journalled (if irreversible) and run;
    a rejected request never runs and leaves nothing in the journal."""
    args = {k: v.render(run.state.view()) for k, v in action.args}
    try:
        refused = await _gateway(run, action, args)
    except ActionFailed as err:  # its parameters cannot be fetched: it must not run
        return {"error": str(err)}, str(err)
    if refused is not None:
        return {"error": refused, "rejected": True}, refused
    if run.service.response == "orchestrator":  # only that DONE shape lists the requests
        run.tracer.requests.append({"action": action.name,
                                    "args": scrubbed(args, run.state.secrets())})
    if action.irreversible:
        await run.journal(action.name, args, step)
    return await perform(run, action.name, args)


async def _gateway(run: Turn, action: CompiledAction, args: dict[str, Any]) -> str | None:
    """Why the gateway refuses the action's request (tagged), or None: its declared tool's
    parameters and rules, then the action's own rules (a built-in tool checks its own
    arguments)."""
    view = run.state.view()
    refused = None
    if action.tool is not None and action.tool in run.service.tools:
        refused = await run.engine.tools.check(action.tool, args, view)
    if refused is None and action.rules:
        refused = rejection(action.name, None, action.rules, args, view)
    if refused is not None:
        run.tracer.tag("TOOL_GATEWAY_REJECTED")
    return refused


async def perform(run: Turn, name: str, args: dict[str, Any]) -> tuple[Any, str | None]:
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
    declared = action.tool if action.tool in run.service.tools else None
    try:
        if stub is not None:
            result: Any = stub.outcome()
        elif action.kind in LOCAL_KINDS:
            result = await run_local(action, args, run.engine.settings)
        elif declared is not None:
            result = await run.engine.tools.run(declared, args, key=key, retries=action.retries)
        else:
            result = await run_action(action, args, key, url=url, headers=headers)
    except ActionFailed as err:
        result, error = {"error": str(err)}, str(err)
        # a refused connection proves nothing when an earlier attempt may have got through
        earlier = session.journal.get(name)
        settled = not isinstance(err, ActionUnknown) and not (
            isinstance(err, ActionUnreached) and earlier is not None
            and earlier.get("retried", False))
    if error is None and action.returns:
        result, error = _lacking(result, action.returns)
    entry = session.journal.get(name)
    if entry is not None and settled:
        entry["status"], entry["result"] = ("done" if error is None else "failed"), result
        run.settled.append(name)
    return result, error


def _lacking(result: Any, returns: tuple[str, ...]) -> tuple[Any, str | None]:
    """``result`` as the flow reads it, and why it fails its ``returns`` (None: it has them)."""
    missing = [f for f in returns if not isinstance(result, dict) or f not in result]
    if not missing:
        return result, None
    error = "the result has no " + ", ".join(f"`{f}`" for f in missing)
    return {**(result if isinstance(result, dict) else {"value": result}), "error": error}, error


def outcome_trigger(name: str, ok: str | None, error_trigger: str | None,
                    error: str | None) -> str | None:
    if error is None:
        return ok
    if error_trigger is None:
        raise FlowRuntimeError(f"action {name} failed ({error}) and its step has no `error` "
                               "trigger")
    return error_trigger


async def _agent(run: Turn, step: AgentStep) -> None:
    """An LLM reply, streamed token by token; the fallback template when offline or when
    every retry failed (the user always gets an answer, never a provider error)."""
    label = step.label or run.reply.label("agent")
    run.emit(AgentStart(step.agent, label))
    started = time.perf_counter()
    live = run.engine.models.get(step.model)
    reply: dict[str, Any] | None = None
    answer = onecall_turn.take(run, step)
    if live is not None and (answer is not None or live.breaker.allow()):
        call = ModelCall(live, step.agent, run.tracer, deadline=run.call_deadline())
        if answer is not None:  # the turn's one call already wrote this reply
            replies = answer.replies()
        else:
            tools = await agent_tools(run.engine.tools, step.tools, run.state.view(),
                                      run.tracer)
            request = agent_request_for(run, step, tuple(t.spec for t in tools.values()))
            rule = None if step.validator is None else validator_rule(
                step.validator, run.state.session.slots, run.state.now.date(), step.agent)
            replies = agent_reply(call, request, tools=tools, json_output=step.json_output,
                                  max_rounds=step.max_rounds, rule=rule)
        async for item in replies:
            if isinstance(item, Reply):
                reply = item.payload
                run.state.set_agent_output(step.agent, agent_result(
                    item.output, kept=step.agent in run.service.agent_outputs))
            else:
                run.emit(item)
    if reply is None:
        reply = {"action": "ASK", "message": run.reply.render(step.fallback)}
        if live is None:
            run.tracer.step(step.agent, started)
        else:  # a model was configured: its call failed, was refused or was unusable
            run.tracer.tag("AGENT_CALL_FAILED")
        run.state.set_agent_output(step.agent, agent_result(  # false: no output to read
            None, kept=False, fell_back="no model" if live is None else "no usable reply"))
    run.tracer.ran(step.agent, run.state.agents.get(step.agent))
    run.emit(LlmDone(reply))
    run.reply.parts.append(str(reply.get("message", "")))
    run.emit(AgentDone(step.agent, label, True))


def prompt_values(run: Turn, step: AgentStep) -> dict[str, Any]:
    """What an agent's prompt sees beyond the turn context (``registry.AGENT_PROMPT_NAMES``)."""
    session = run.state.session
    return {"message": run.state.message, "history": session.raw_history, "instructions": "",
            "intents": list(run.service.intent_names), "tools": step.tools}


def agent_request_for(run: Turn, step: AgentStep,
                      tools: tuple[ToolSpec, ...] = ()) -> ChatRequest:
    """What ``step`` sends its model: its prompt, the turn's state and retrieved hits,
    memory, the message, and the ``tools`` it is offered."""
    view = run.state.view()
    prompt = run.service.prompts[step.prompt].render({**view, **prompt_values(run, step)})
    session = run.state.session
    live = run.engine.models.get(step.model) if step.json_output else None
    return agent_request(prompt, context_block=context_block(view) + retrieved_block(view),
                         summary=session.summary_text, raw_history=latest_turns(
                             session.raw_history, step.last_n_turns),
                         message=run.state.message, json_output=step.json_output,
                         tools=tools, schema=live.spec.output_schema if live else None)


__all__ = ["agent_request_for", "outcome_trigger", "perform", "prompt_values", "run_steps"]
