"""(session_id, message) -> async stream of Events, DONE last; the session saved atomically.

One turn: lock the session, load it, route (a flow in progress keeps the turn), understand
by rules, apply slot operations with validation in code, fire the runtime trigger
(``update`` / ``confirm`` / ``cancel``) on the flow's shared stage machine, settle
(stage steps, actions, terminal bookkeeping, the batch queue), reply, update memory and
commit. Any failure still ends with a DONE that tells the user something sensible, and
nothing is saved: the stored session stays as it was before the turn.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from engine.compiler.compiled import (
    AgentStep,
    CallStep,
    CompiledFlow,
    CompiledStage,
    EmitStep,
    IfStep,
    SayStep,
    SetStep,
    Step,
    TriggerStep,
)
from engine.compiler.templates import base_context
from engine.errors import FlowRuntimeError, ProviderError
from engine.providers.base import ChatMessage, ChatRequest, TextDelta
from engine.providers.jsonout import JsonFieldStreamer, extract_json, validate_output
from engine.providers.reliability import CallRecord, complete_reliably, record_of, stream_reliably
from engine.providers.tools import BUILTIN_TOOLS, run_tool_loop
from engine.runtime.actions import ActionFailed, run_action
from engine.runtime.events import (
    AgentDone,
    AgentStart,
    Done,
    Event,
    LlmDone,
    LlmToken,
    TaskProgress,
)
from engine.runtime.llm import (
    LlmUnderstanding,
    agent_request,
    context_block,
    understand_with,
    understanding_request,
)
from engine.runtime.memory import (
    SUMMARY_PROMPT,
    dialog_text,
    offline_summary,
    split_for_folding,
)
from engine.runtime.models import LiveModel
from engine.runtime.session import SessionState
from engine.runtime.slots import Rejected, validate
from engine.runtime.understand import Intent, Understanding, detect_intent, understand
from engine.texts import text

if TYPE_CHECKING:
    from engine.runtime.engine import Engine

log = logging.getLogger("flowctl.turn")
_GLOBALS = base_context()
MAX_HOPS = 32
def snapshot(state: SessionState, flow: CompiledFlow | None) -> dict[str, Any]:
    names = flow.slots if flow else tuple(state.slots)
    return {"flow": state.flow, "stage": state.stage,
            "slots": {n: state.slots.get(n) for n in names},
            "missing_required": missing(state, flow), "filling_turns": state.filling_turns,
            "meta": {"slot_errors": {}, **state.meta}, "task_queue": state.task_queue}


def missing(state: SessionState, flow: CompiledFlow | None) -> list[str]:
    if flow is None:
        return []
    return [n for n in flow.required if state.slots.get(n) in (None, "")]


def ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _settled(u: Understanding) -> bool:
    """Rules settled the turn: a yes/no decision, or slot values, were found."""
    return u.decision is not None or bool(u.ops) or bool(u.tasks)


def _merge(rules: Understanding, llm: LlmUnderstanding | None) -> Understanding:
    """Rules' values win; the LLM fills what they missed. Only code ever confirms."""
    if llm is None:
        return rules
    if llm.parse_error:
        rules.unclear = not _settled(rules)
        return rules
    have = {op.slot for op in rules.ops}
    rules.ops.extend(op for op in llm.ops if op.slot not in have)
    if len(llm.tasks) > 1 and not rules.tasks:
        rules.tasks = llm.tasks
    if llm.cancel and rules.decision is None:
        rules.decision = "cancel"
    return rules


class TurnRun:
    """The mutable work of one turn; discarded unless the whole turn succeeds."""

    def __init__(self, engine: Engine, session_id: str, message: str, turn_id: str,
                 state: SessionState) -> None:
        self.engine = engine
        self.service = engine.service
        self.session_id = session_id
        self.message = message
        self.turn_id = turn_id
        self.state = state
        self.flow: CompiledFlow = self.service.flows[self.service.default_flow]
        self.intent = Intent(None, 0.0)
        self.parts: list[str] = []
        self.hooks: list[dict[str, Any]] = []
        self.agents: list[dict[str, Any]] = []
        self.completed: list[dict[str, Any]] = []
        self.result: Any = None
        self._pending: str | None = None
        self._ctx: dict[str, Any] | None = None
        self._constants: dict[str, Any] = {}
        self._constants_key: tuple[str, Intent] | None = None
        self._llm: LlmUnderstanding | None = None
        self.understanding = engine.understanding

    # -- the turn -------------------------------------------------------------------------

    async def execute(self) -> AsyncIterator[Event]:
        state = self.state
        active = self.service.flows.get(state.flow or "")
        if active is not None and active.in_progress(state.stage):
            self.flow = active
        else:
            async for event in self._route():
                yield event
        trigger: str | None = "update"
        if self.flow.slots:
            label = self._label("understand")
            yield AgentStart("understand", label)
            started = time.perf_counter()
            understanding = self._understand()
            if self._llm is None and not _settled(understanding) and self.understanding:
                await self._ask_llm([self.flow], current=self.flow)
            trigger = self._apply(_merge(understanding, self._llm))
            moved = self._fire(trigger)
            self._record("understand", started)
            yield AgentDone("understand", label, True, stage=state.stage)
        else:
            moved = self._fire(trigger)
        async for event in self._settle(moved):
            yield event
        if self._remember():
            async for event in self._fold_memory():
                yield event

    async def _route(self) -> AsyncIterator[Event]:
        label = self._label("intent")
        yield AgentStart("intent", label)
        started = time.perf_counter()
        self._ctx = None
        self.intent = detect_intent(self.message, self.service)
        if self.intent.name is None and self.understanding is not None:
            routed = [self.service.flows[f] for f in dict.fromkeys(self.service.routes.values())]
            if await self._ask_llm(routed, current=None):
                self.intent = self._llm_intent()
        name = self.service.routes.get(self.intent.name or "", self.service.default_flow)
        self.flow = self.service.flows[name]
        self.state.task_queue, self.state.meta = [], {}
        self.state.start_task(name, self.flow.initial)
        self._record("intent", started)
        yield AgentDone("intent", label, True, result=self.intent.name)

    async def _ask_llm(self, flows: list[CompiledFlow], *, current: CompiledFlow | None) -> bool:
        """The turn's one understanding call; a provider failure leaves the rules' answer."""
        live = self.understanding
        assert live is not None
        if not live.breaker.allow():
            self._trace_llm("understand", None, live, error="circuit open")
            return False
        state = self.state
        request = understanding_request(
            self.service, flows, current=current, stage=state.stage, slots=state.slots,
            message=self.message, today=self.engine.clock().date().isoformat(),
            raw_history=state.raw_history, prompt=self.engine.understanding_prompt)
        names = [n for f in flows for n in f.slots]
        try:
            self._llm, records = await understand_with(live, request, slot_names=names)
        except ProviderError as err:
            live.breaker.failure()
            self._trace_llm("understand", record_of(err), live, error=f"{err.kind}: {err}")
            return False
        live.breaker.success()
        for record in records:
            self._trace_llm("understand", record, live)
        return True

    def _llm_intent(self) -> Intent:
        llm = self._llm
        if llm is None or llm.intent is None or llm.intent not in self.service.routes:
            return Intent(None, 0.0)
        threshold = self.service.intent_thresholds.get(llm.intent, 0.5)
        if llm.confidence < threshold:
            return Intent(None, llm.confidence, f"llm {llm.intent} below threshold")
        return Intent(llm.intent, llm.confidence, "llm")

    def _trace_llm(self, agent: str, record: CallRecord | None, live: LiveModel, *,
                   error: str | None = None) -> None:
        entry = {"agent": agent, "provider": live.config.provider,
                 "model": live.config.model, "elapsed_ms": 0.0, "success": error is None,
                 "retries": 0, "error": error, "tokens_in": 0, "tokens_out": 0,
                 "fallback": error is not None}
        if record is not None:
            entry.update(elapsed_ms=round(record.elapsed_ms, 3), retries=record.retries,
                         tokens_in=record.tokens_in, tokens_out=record.tokens_out,
                         error=error or record.error, success=error is None and not record.error)
        self.agents.append(entry)

    def _understand(self) -> Understanding:
        state, flow = self.state, self.flow
        unfilled = missing(state, flow)
        return understand(self.message, self.service, flow, state.stage or flow.initial,
                          asked=unfilled[0] if unfilled else None,
                          batching=flow.batch and not state.meta.get("batch_total"),
                          today=self.engine.clock().date())

    def _apply(self, u: Understanding) -> str | None:
        """Apply slot operations (validated) and pick the trigger the runtime fires."""
        state, flow = self.state, self.flow
        stage = flow.stages[state.stage or flow.initial]
        self._ctx = None
        state.meta["slot_errors"] = {}
        if u.unclear:
            state.meta["slot_errors"]["_unclear"] = self.engine.text("unclear")
        if len(u.tasks) > 1 and flow.batch and not stage.decide:
            state.task_queue = [dict(t) for t in u.tasks[1:]]
            state.meta.update(batch_total=len(u.tasks), batch_progress=0)
        for op in u.ops:
            if op.op == "clear":
                state.slots.pop(op.slot, None)
            else:
                self._set_slot(op.slot, op.value)
        if u.decision is not None:
            return u.decision
        if stage.decide and not u.ops:
            return None  # unclear at a confirmation: stay (the safe default)
        if missing(state, flow):
            state.filling_turns += 1
        self._ctx = None
        return "update"

    def _set_slot(self, name: str, raw: Any) -> None:
        slot = self.service.slots.get(name)
        if slot is None or name not in self.flow.slots:
            return
        value = validate(slot, raw, self.state.slots)
        self._ctx = None
        if isinstance(value, Rejected):
            self.state.meta.setdefault("slot_errors", {})[name] = self._slot_error(name, raw, value)
        else:
            self.state.slots[name] = value

    def _slot_error(self, name: str, raw: Any, rejected: Rejected) -> str:
        if rejected.reason:
            return rejected.reason
        message = self.service.slots[name].spec.error
        if message is None:
            return self.engine.text("slot_invalid")
        return str(self.service.messages[message].render({**self.context(), "value": raw}))

    def _fire(self, trigger: str | None) -> bool:
        if trigger is None:
            return False
        state = self.state
        new = self.flow.machine.fire(state.stage or self.flow.initial, trigger, self.context())
        if new is None:
            return False
        state.stage = new
        self._ctx = None
        return True

    async def _settle(self, moved: bool) -> AsyncIterator[Event]:
        """Run the steps of each stage the turn reaches; stop at a stage that keeps it."""
        for _ in range(MAX_HOPS):
            stage = self.flow.stages[self.state.stage or self.flow.initial]
            if stage.steps:
                async for event in self._steps(stage.steps):
                    yield event
            trigger, self._pending = self._pending, None
            if stage.terminal:
                self._count_outcome(stage)
            self._say(stage.say if moved or not stage.reprompt else stage.reprompt)
            if trigger is not None:
                if not self._fire(trigger):
                    raise FlowRuntimeError(f"trigger `{trigger}` fired in stage {stage.name} "
                                           f"of flow {self.flow.name} has no transition")
                moved = True
                continue
            if stage.terminal and self._finish_task(stage):
                moved = self._fire("update")
                continue
            return
        raise FlowRuntimeError(f"flow {self.flow.name} moved more than {MAX_HOPS} times in a turn")

    def _count_outcome(self, stage: CompiledStage) -> None:
        counts = self.state.meta.setdefault("batch_counts", {})
        counts[stage.name] = counts.get(stage.name, 0) + 1
        self._ctx = None

    def _finish_task(self, stage: CompiledStage) -> bool:
        """Store the task; load the next queued one (True) or end the flow (False)."""
        state = self.state
        self._ctx = None
        record = {"flow": self.flow.name, "outcome": stage.name,
                  "slots": {n: state.slots.get(n) for n in self.flow.slots},
                  "at": self.engine.clock().isoformat(timespec="seconds"),
                  "task": state.tasks_started, "result": self.result}
        self.completed.append(record)
        state.done.append(record)
        self.result = None
        if not state.task_queue:
            state.slots, state.meta, state.filling_turns = {}, {}, 0
            self._ctx = None
            return False
        state.meta["batch_progress"] = state.meta.get("batch_progress", 0) + 1
        state.start_task(self.flow.name, self.flow.initial)
        for name, value in state.task_queue.pop(0).items():
            self._set_slot(name, value)
        if missing(state, self.flow):
            state.filling_turns += 1
        self._ctx = None
        return True

    def _remember(self) -> bool:
        """Append the turn to raw_history; True when older turns are due to be folded."""
        state, policy = self.state, self.engine.memory
        state.raw_history.append({"role": "user", "content": self.message})
        state.raw_history.append({"role": "assistant", "content": self.reply_text()})
        state.turns += 1
        if not policy.enabled:  # no summary: keep the last `summarize_threshold` turns raw
            del state.raw_history[:-max(policy.threshold, policy.keep_recent, 1) * 2]
            return False
        return len(state.raw_history) >= policy.threshold * 2

    async def _fold_memory(self) -> AsyncIterator[Event]:
        """Fold the older turns into summary_text (the summary model, or deterministically)."""
        state, policy = self.state, self.engine.memory
        folded, kept = split_for_folding(state.raw_history, policy)
        if not folded:
            return
        live = self.engine.models.get(policy.summary_model)
        summary = None
        if live is not None and live.breaker.allow():
            label = self._label("memory")
            yield AgentStart("memory", label)
            summary = await self._summarise(live, folded)
            yield AgentDone("memory", label, summary is not None)
        state.summary_text = summary or offline_summary(state.summary_text, folded, state.done)
        state.raw_history = kept

    async def _summarise(self, live: LiveModel, folded: list[dict[str, str]]) -> str | None:
        request = ChatRequest(system=SUMMARY_PROMPT, messages=(ChatMessage(
            role="user", content=dialog_text(self.state.summary_text, folded)),))
        try:
            completion, record = await complete_reliably(live.provider, request, live.config,
                                                         agent="memory")
        except ProviderError as err:
            live.breaker.failure()
            self._trace_llm("memory", record_of(err), live, error=f"{err.kind}: {err}")
            return None
        live.breaker.success()
        self._trace_llm("memory", record, live)
        return completion.text.strip() or None

    # -- steps ----------------------------------------------------------------------------

    async def _steps(self, steps: tuple[Step, ...]) -> AsyncIterator[Event]:
        for step in steps:
            if self._pending is not None:
                return
            match step:
                case SayStep(message):
                    self._say(message)
                case SetStep(assignments):
                    ctx = self.context()
                    for name, value in assignments:
                        raw = value.render(ctx)
                        if raw is None:  # `set: {slot: null}` clears it
                            self.state.slots.pop(name, None)
                            self._ctx = None
                        else:
                            self._set_slot(name, raw)
                case TriggerStep(trigger):
                    self._pending = trigger
                case CallStep():
                    async for event in self._call(step):
                        yield event
                case EmitStep(kind, data):
                    ctx = self.context()
                    self.hooks.append({"type": kind, "data": {k: v.render(ctx) for k, v in data}})
                case AgentStep():
                    async for event in self._agent(step):
                        yield event
                case IfStep(condition, then, otherwise):
                    branch = then if condition.render(self.context()) else otherwise
                    async for event in self._steps(branch):
                        yield event

    async def _call(self, step: CallStep) -> AsyncIterator[Event]:
        action = self.service.actions[step.action]
        state = self.state
        total = state.meta.get("batch_total") or 1
        if total > 1:
            index = state.meta.get("batch_progress", 0) + 1
            yield TaskProgress(index, total, {n: state.slots.get(n) for n in self.flow.slots})
        label = action.label or self._label("call")
        yield AgentStart(action.name, label)
        started = time.perf_counter()
        ctx = self.context()
        args = {k: v.render(ctx) for k, v in action.args}
        key = f"{self.session_id}:{state.tasks_started}:{action.name}"
        url = headers = None
        if action.kind == "http":
            env_ctx = {**ctx, "env": dict(self.engine.settings.env)}
            url = str(action.url.render(env_ctx)) if action.url else ""
            headers = {k: str(t.render(env_ctx)) for k, t in action.headers}
        try:
            self.result = await run_action(action, args, key, url=url, headers=headers)
            error = None
        except ActionFailed as err:
            self.result, error = {"error": str(err)}, str(err)
        self._ctx = None
        self._record(action.name, started, error=error)
        yield AgentDone(action.name, label, error is None, result=self.result)
        trigger = step.ok if error is None else step.error
        if error is not None and trigger is None:
            raise FlowRuntimeError(f"action {action.name} failed ({error}) and its step has no "
                                   "`error` trigger")
        self._pending = trigger

    async def _agent(self, step: AgentStep) -> AsyncIterator[Event]:
        """An LLM reply, streamed token by token; the fallback template when offline or when
        every retry failed (the user always gets an answer, never a provider error)."""
        label = step.label or self._label("agent")
        yield AgentStart(step.agent, label)
        started = time.perf_counter()
        live = self.engine.models.get(step.model)
        reply: dict[str, Any] | None = None
        if live is not None and live.breaker.allow():
            async for event in self._agent_llm(step, live):
                if isinstance(event, LlmDone):
                    reply = event.payload
                else:
                    yield event
        if reply is None:
            reply = {"action": "ASK", "message": self._render(step.fallback)}
            if live is None:
                self._record(step.agent, started)
        yield LlmDone(reply)
        self.parts.append(str(reply.get("message", "")))
        yield AgentDone(step.agent, label, True)

    async def _agent_llm(self, step: AgentStep, live: LiveModel) -> AsyncIterator[Event]:
        """Stream one agent call; ends with an LlmDone, or with nothing on failure."""
        ctx = self.context()
        prompt = self.service.prompts[step.prompt].render(
            {**ctx, "message": self.message, "history": self.state.raw_history,
             "instructions": "", "intents": list(self.service.spec.intents), "tools": step.tools})
        request = agent_request(prompt, context_block=context_block(ctx),
                                summary=self.state.summary_text,
                                raw_history=self.state.raw_history, message=self.message,
                                json_output=step.json_output,
                                tools=tuple(BUILTIN_TOOLS[t].spec for t in step.tools))
        try:
            if step.tools:
                completion, records = await run_tool_loop(
                    live.provider, request, live.config,
                    {t: BUILTIN_TOOLS[t] for t in step.tools}, agent=step.agent)
                for record in records:
                    self._trace_llm(step.agent, record, live)
                text = completion.text
                if not step.json_output:
                    yield LlmToken(text)
            else:
                text = ""
                async for event in self._stream(step, live, request):
                    if isinstance(event, LlmToken):
                        yield event
                    else:
                        text = event.payload["text"]
        except ProviderError as err:
            live.breaker.failure()
            self._trace_llm(step.agent, record_of(err), live, error=f"{err.kind}: {err}")
            return
        live.breaker.success()
        payload = self._agent_payload(step, live, text)
        if payload is None and step.json_output and live.config.max_retry > 0:
            payload = await self._agent_retry(step, live, request)
        if payload is not None:
            yield LlmDone(payload)

    async def _agent_retry(self, step: AgentStep, live: LiveModel,
                           request: ChatRequest) -> dict[str, Any] | None:
        """One more, non-streamed, attempt after an unusable JSON reply."""
        try:
            completion, record = await complete_reliably(live.provider, request, live.config,
                                                         agent=step.agent)
        except ProviderError as err:
            self._trace_llm(step.agent, record_of(err), live, error=f"{err.kind}: {err}")
            return None
        self._trace_llm(step.agent, record, live)
        return self._agent_payload(step, live, completion.text)

    async def _stream(self, step: AgentStep, live: LiveModel,
                      request: ChatRequest) -> AsyncIterator[LlmToken | LlmDone]:
        """LLM_TOKEN per token; for JSON agents only the `message` field's characters."""
        streamer = JsonFieldStreamer("message") if step.json_output else None
        text = ""
        async with stream_reliably(live.provider, request, live.config,
                                   agent=step.agent) as stream:
            async for event in stream:
                if isinstance(event, TextDelta):
                    piece = streamer.feed(event.text) if streamer else event.text
                    if piece:
                        yield LlmToken(piece)
                else:
                    text = event.completion.text
        self._trace_llm(step.agent, stream.record, live)
        yield LlmDone({"text": text})

    def _agent_payload(self, step: AgentStep, live: LiveModel, text: str) -> dict[str, Any] | None:
        """The reply as the seeds' LLM_DONE payload; None when JSON output is unusable."""
        if not step.json_output:
            return {"action": "ASK", "message": text.strip()} if text.strip() else None
        try:
            obj = extract_json(text)
        except ValueError as err:
            self.agents[-1].update(error=f"malformed: {err}", success=False, fallback=True)
            return None
        schema = live.spec.output_schema
        problems = validate_output(obj, schema) if schema else []
        if problems or not isinstance(obj.get("message"), str):
            reason = "; ".join(problems) or "no `message` string"
            self.agents[-1].update(error=f"malformed: {reason}", success=False, fallback=True)
            return None
        return {"action": "ASK", **obj}

    # -- rendering --------------------------------------------------------------------------

    def context(self) -> dict[str, Any]:
        """The names templates and conditions see; rebuilt only after the state changed.

        Every mutation of the turn's state resets ``self._ctx``; renders never mutate it
        (jinja2 writes template-local names to its own context, not to this dict).
        """
        if self._ctx is None:
            self._ctx = self._build_context()
        return self._ctx

    def _build_context(self) -> dict[str, Any]:
        state, flow = self.state, self.flow
        meta = state.meta
        total = meta.get("batch_total") or 1
        index = meta.get("batch_progress", 0) + 1
        counts = dict.fromkeys(flow.terminal_stages, 0)
        counts.update(meta.get("batch_counts", {}))
        return {
            **self._turn_constants(),
            "slots": {n: state.slots.get(n) for n in flow.slots},
            "missing": missing(state, flow), "errors": meta.get("slot_errors", {}),
            "meta": meta, "filling_turns": state.filling_turns,
            "batch": {"index": index, "total": total, "remaining": len(state.task_queue),
                      "counts": counts},
            "progress": f" ({index}/{total})" if total > 1 else "",
            "stage": state.stage, "result": self.result,
        }

    def _turn_constants(self) -> dict[str, Any]:
        """The part of the context that only changes when routing picks a flow or intent."""
        key = (self.flow.name, self.intent)
        if self._constants_key != key:
            self._constants_key = key
            self._constants = {
                **_GLOBALS, "max_fill_turns": self._max_fill_turns(),
                "turn": {"message": self.message, "intent": self.intent.name,
                         "confidence": self.intent.confidence},
                "flow": self.flow.name, "completed": self.state.done,
                "summary": self.state.summary_text, "ask": self._ask, "value": None,
            }
        return self._constants

    def _max_fill_turns(self) -> int:
        settings = self.engine.settings
        if "MAX_FILL_TURNS" not in settings.env and self.flow.max_fill_turns is not None:
            return self.flow.max_fill_turns
        return settings.max_fill_turns

    def _ask(self, name: str) -> str:
        slot = self.service.slots.get(name)
        if slot is None or slot.spec.ask is None:
            return self.engine.text("ask_slot", slot=slot.spec.description if slot and
                                     slot.spec.description else name)
        return self._render(slot.spec.ask)

    def _render(self, message: str) -> str:
        return str(self.service.messages[message].render(self.context()))

    def _say(self, message: str | None) -> None:
        if message is not None:
            rendered = self._render(message)
            if rendered:
                self.parts.append(rendered)

    def _label(self, kind: str) -> str:
        return text(self.service.locale, f"label_{kind}")

    def _record(self, agent: str, started: float, *, error: str | None = None,
                **extra: Any) -> None:
        self.agents.append({"agent": agent, "elapsed_ms": ms(started), "success": error is None,
                            "retries": 0, "error": error, **extra})

    def reply_text(self) -> str:
        return " ".join(self.parts)

    def done(self, started: float) -> Done:
        stage = self.flow.stages[self.state.stage or self.flow.initial]
        return Done(message=self.reply_text(), next_action=stage.next_action,
                    ui_hint={"buttons": list(stage.buttons)},
                    state_snapshot=snapshot(self.state, self.flow), hooks=self.hooks,
                    trace={"turn_id": self.turn_id, "total_elapsed_ms": ms(started),
                           "agents": self.agents})


__all__ = ["MAX_HOPS", "TurnRun", "missing", "ms", "snapshot"]
