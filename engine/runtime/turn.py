"""One turn's work on a loaded session -> events, then the DONE that ends it.

route (a flow in progress keeps the turn) -> understand (rules first, at most one LLM
call) -> apply slot operations, validated in code -> fire the runtime trigger (``update`` /
``confirm`` / ``cancel``) on the flow's shared stage machine -> settle (each stage's steps,
terminal bookkeeping, the batch queue) -> remember. The engine (``engine.py``) owns the
lock, the load and the commit around it; steps live in ``steps.py``, model calls in
``agent.py``, the template view in ``context.py``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from engine.compiler.compiled import (
    CallStep,
    CompiledFlow,
    CompiledService,
    CompiledStage,
    scrubbed,
    shown,
)
from engine.errors import FlowRuntimeError, ProviderError
from engine.runtime.agent import JsonCheck, ModelCall
from engine.runtime.context import TurnState, missing
from engine.runtime.events import (
    AgentDone,
    AgentStart,
    Done,
    Event,
    Hook,
    StateSnapshot,
)
from engine.runtime.llm import (
    UNDERSTANDING_SCHEMA,
    LlmUnderstanding,
    parse_understanding,
    understanding_request,
)
from engine.runtime.memory import fold, remember
from engine.runtime.models import LiveModel
from engine.runtime.reply import Reply
from engine.runtime.session import JournalEntry, SessionState
from engine.runtime.slots import Rejected, validate
from engine.runtime.steps import run_steps
from engine.runtime.trace import Tracer, ms
from engine.runtime.understand import (
    ForeignAmount,
    Intent,
    Understanding,
    detect_intent,
    understand,
)

if TYPE_CHECKING:
    from engine.runtime.engine import Engine

MAX_HOPS = 32
UNDERSTANDING = JsonCheck(UNDERSTANDING_SCHEMA)


def snapshot(state: SessionState, flow: CompiledFlow | None,
             sensitive: frozenset[str] = frozenset()) -> StateSnapshot:
    """The session as DONE's ``state_snapshot`` shows it (sensitive slots masked)."""
    names = flow.slots if flow else tuple(state.slots)
    snap: StateSnapshot = {
        "flow": state.flow, "stage": state.stage,
        "slots": shown({n: state.slots.get(n) for n in names}, sensitive),
        "missing_required": missing(state, flow), "filling_turns": state.filling_turns,
        "meta": {"slot_errors": {}, **state.meta}, "task_queue": state.task_queue}
    return snap


def settled(u: Understanding) -> bool:
    """Rules settled the turn: a yes/no decision, or slot values, were found."""
    return u.decision is not None or bool(u.ops) or bool(u.tasks)


def merge(rules: Understanding, llm: LlmUnderstanding | None) -> Understanding:
    """Rules' values win; the LLM fills what they missed. Only code ever confirms."""
    if llm is None:
        return rules
    if llm.parse_error:
        rules.unclear = not settled(rules)
        return rules
    have = {op.slot for op in rules.ops}
    rules.ops.extend(op for op in llm.ops if op.slot not in have)
    if len(llm.tasks) > 1 and not rules.tasks:
        rules.tasks = llm.tasks
    if llm.cancel and rules.decision is None:
        rules.decision = "cancel"
    return rules


def llm_intent(service: CompiledService, llm: LlmUnderstanding | None) -> Intent:
    """The intent an understanding call named, if it is routed and confident enough."""
    if llm is None or llm.intent is None or llm.intent not in service.routes:
        return Intent(None, 0.0)
    threshold = service.intent_thresholds.get(llm.intent, 0.5)
    if llm.confidence < threshold:
        return Intent(None, llm.confidence, f"llm {llm.intent} below threshold")
    return Intent(llm.intent, llm.confidence, "llm")


class TurnRun:
    """The mutable work of one turn; discarded unless the whole turn succeeds."""

    def __init__(self, engine: Engine, session_id: str, message: str, turn_id: str,
                 session: SessionState, *, version: int = 0) -> None:
        self.engine, self.service = engine, engine.service
        self.session_id, self.turn_id = session_id, turn_id
        self.state = TurnState(self.service, session, message,
                               self.service.flows[self.service.default_flow],
                               fill_turns=engine.settings.fill_turns,
                               ask=lambda name: self.reply.ask(name))
        self.reply = Reply(self.service, self.state, engine.text)
        self.tracer = Tracer(redact=not engine.settings.dev_mode)
        self.hooks: list[Hook] = []
        self.completed: list[dict[str, Any]] = []
        self.pending: str | None = None
        """A trigger a step asked for, fired once the stage's steps are done."""
        self.version = version
        """The stored session's version this turn last loaded or wrote."""
        self._committed = 0
        self._llm: LlmUnderstanding | None = None
        self.routed = False
        """This turn picked the flow (a new task), rather than continuing one."""
        self.halted = False
        """An irreversible action got no settling answer: the task waits where it is."""

    async def commit(self, *, final: bool = True) -> None:
        """Write the session and the tasks completed since the last write, in one go;
        ``final=False`` while the turn goes on (the store keeps the session locked)."""
        session_data = self.state.session.to_json()
        self.version = await self.engine.store.commit(
            self.session_id, session_data, expected_version=self.version,
            completed=self.completed[self._committed:], final=final)
        self._committed = len(self.completed)

    async def journal(self, name: str, args: dict[str, Any], step: CallStep) -> None:
        """Record irreversible action ``name`` as pending and commit it before the call."""
        session = self.state.session
        session.journal[name] = JournalEntry(action=name, key=f"{session.task_id}:{name}",
                                             status="pending", args=args, ok=step.ok,
                                             error=step.error, result=None)
        await self.commit(final=False)

    async def execute(self) -> AsyncIterator[Event]:
        state = self.state
        active = self.service.flows.get(state.session.flow or "")
        if active is not None and state.session.pending():
            # a process died around an irreversible call: finish that task first, by running
            # its stage again (the call repeats with the same key), and say how it ended
            state.flow = active
            async for event in self._settle(True):
                yield event
            if state.message:
                remember(state.session, state.message, self.reply.text(), self.engine.memory)
            else:  # finished at start-up with nobody listening: say it on the next turn
                state.session.notice = self.reply.text()
                state.session.raw_history.append({"role": "assistant",
                                                  "content": state.session.notice})
            return
        if state.session.notice:
            self.reply.parts.append(state.session.notice)
            state.session.notice = ""
        if active is not None and active.in_progress(state.session.stage):
            state.flow = active
        else:
            async for event in self._route():
                yield event
        if state.flow.slots:
            label = self.reply.label("understand")
            yield AgentStart("understand", label)
            started = time.perf_counter()
            moved = self.fire(await self._understand())
            self.tracer.step("understand", started)
            yield AgentDone("understand", label, True, stage=state.session.stage)
        else:
            moved = self.fire("update")
        async for event in self._settle(moved):
            yield event
        session, policy = state.session, self.engine.memory
        if remember(session, state.message, self.reply.text(), policy):
            async for event in fold(session, policy, self.engine.models,
                                    lambda live: ModelCall(live, "memory", self.tracer),
                                    self.reply.label("memory")):
                yield event

    # -- route and understand ----------------------------------------------------------------

    async def _route(self) -> AsyncIterator[Event]:
        label = self.reply.label("intent")
        yield AgentStart("intent", label)
        started = time.perf_counter()
        service = self.service
        intent = detect_intent(self.state.message, service)
        if intent.name is None and self.engine.understanding is not None:
            routed = [service.flows[f] for f in dict.fromkeys(service.routes.values())]
            if await self._ask_llm(self.engine.understanding, routed, current=None):
                intent = llm_intent(service, self._llm)
        flow = service.flows[service.routes.get(intent.name or "", service.default_flow)]
        self.state.route(flow, intent)
        self.routed = True
        self.tracer.step("intent", started)
        yield AgentDone("intent", label, True, result=intent.name)

    async def _understand(self) -> str | None:
        """Rules first; the turn's one LLM call only when they settle nothing."""
        state, flow = self.state, self.state.flow
        session = state.session
        # a bare answer ("엄마") fills the slot the last turn asked for: on the turn that routed
        # into the flow nothing was asked yet ("송금하고 싶어" is not a recipient)
        unfilled = [] if self.routed else state.missing()
        rules = understand(state.message, self.service, flow, session.stage or flow.initial,
                           asked=unfilled[0] if unfilled else None,
                           batching=flow.batch and not session.meta.get("batch_total"),
                           today=self.engine.clock().date())
        live = self.engine.understanding
        if self._llm is None and not settled(rules) and live is not None:
            await self._ask_llm(live, [flow], current=flow)
        return self._apply(merge(rules, self._llm))

    async def _ask_llm(self, live: LiveModel, flows: list[CompiledFlow], *,
                       current: CompiledFlow | None) -> bool:
        """The turn's one understanding call; a provider failure leaves the rules' answer."""
        call = ModelCall(live, "understand", self.tracer)
        if not live.breaker.allow():
            call.traced(None, error="circuit open")
            return False
        session = self.state.session
        request = understanding_request(
            self.service, flows, current=current, stage=session.stage,
            slots=session.slots, message=self.state.message,
            today=self.engine.clock().date().isoformat(), raw_history=session.raw_history,
            prompt=self.engine.understanding_prompt)
        try:
            attempts = 1 + min(1, live.config.max_retry)  # one repair of unusable JSON at most
            obj = await call.json(request, UNDERSTANDING, attempts=attempts)
        except ProviderError as err:
            call.failed(err)
            return False
        live.breaker.success()
        names = [n for f in flows for n in f.slots]
        self._llm = (LlmUnderstanding(parse_error=True) if obj is None
                     else parse_understanding(obj, names))
        return True

    # -- apply and fire -------------------------------------------------------------------------

    def _apply(self, u: Understanding) -> str | None:
        """Apply slot operations (validated) and pick the trigger the runtime fires."""
        state = self.state
        stage = state.stage
        state.clear_errors(unclear=self.engine.text("unclear") if u.unclear else None)
        if len(u.tasks) > 1 and state.flow.batch and not stage.decide:
            state.batch.start(u.tasks)
        for op in u.ops:
            if op.op == "clear":
                state.clear(op.slot)
            else:
                self.set_slot(op.slot, op.value)
        if u.decision is not None:
            return u.decision
        if stage.decide and not u.ops:
            return None  # unclear at a confirmation: stay (the safe default)
        if state.missing():
            state.count_filling()
        return "update"

    def set_slot(self, name: str, raw: Any) -> None:
        """Validate ``raw`` in code; a rejected value leaves the slot and records why."""
        slot = self.service.slots.get(name)
        if slot is None or name not in self.state.flow.slots:
            return
        if isinstance(raw, ForeignAmount):
            self.state.reject(name, self.engine.text("currency_mismatch", currency=raw.currency,
                                                     expected=slot.spec.currency))
            return
        value = validate(slot, raw, self.state.session.slots)
        if isinstance(value, Rejected):
            self.state.reject(name, self._slot_error(name, raw, value))
        else:
            self.state.put(name, value)

    def _slot_error(self, name: str, raw: Any, rejected: Rejected) -> str:
        if rejected.reason:
            return rejected.reason
        message = self.service.slots[name].spec.error
        if message is None:
            return self.engine.text("slot_invalid")
        return str(self.service.messages[message].render({**self.state.view(), "value": raw}))

    def fire(self, trigger: str | None) -> bool:
        """Fire ``trigger`` on the flow's machine; True when the stage changed."""
        if trigger is None:
            return False
        state = self.state
        new = state.flow.machine.fire(state.session.stage or state.flow.initial, trigger,
                                      state.view())
        if new is None:
            return False
        state.move(new)
        return True

    # -- settle ---------------------------------------------------------------------------------

    async def _settle(self, moved: bool) -> AsyncIterator[Event]:
        """Run the steps of each stage the turn reaches; stop at a stage that keeps it."""
        flow = self.state.flow
        for _ in range(MAX_HOPS):
            stage = self.state.stage
            if stage.steps:
                async for event in run_steps(self, stage.steps):
                    yield event
            if self.halted:
                return
            trigger, self.pending = self.pending, None
            if stage.terminal:
                self.state.batch.count_outcome(stage.name)
            self.reply.say(stage.say if moved or not stage.reprompt else stage.reprompt)
            if trigger is not None:
                if not self.fire(trigger):
                    raise FlowRuntimeError(f"trigger `{trigger}` fired in stage {stage.name} "
                                           f"of flow {flow.name} has no transition")
                moved = True
                continue
            if stage.terminal and self._finish_task(stage):
                moved = self.fire("update")
                continue
            return
        raise FlowRuntimeError(f"flow {flow.name} moved more than {MAX_HOPS} times in a turn")

    def _finish_task(self, stage: CompiledStage) -> bool:
        """Record the task; load the next queued one (True) or end the flow (False)."""
        state = self.state
        session = state.session
        record = {"flow": state.flow.name, "outcome": stage.name,
                  "slots": shown(state.slot_values(), self.service.sensitive),
                  "at": self.engine.clock().isoformat(timespec="seconds"),
                  "task": session.tasks_started,
                  "result": scrubbed(state.result, state.secrets())}
        self.completed.append(record)
        session.done.append(record)
        task = state.batch.next_task()
        if task is None:
            return False
        for name, value in task.items():
            self.set_slot(name, value)
        if state.missing():
            state.count_filling()
        return True

    def done(self, started: float) -> Done:
        state = self.state
        stage = state.stage
        return Done(message=self.reply.text(), next_action=stage.next_action,
                    ui_hint={"buttons": list(stage.buttons)},
                    state_snapshot=snapshot(state.session, state.flow, self.service.sensitive),
                    hooks=self.hooks,
                    trace={"turn_id": self.turn_id, "total_elapsed_ms": ms(started),
                           "agents": self.tracer.entries})


__all__ = ["MAX_HOPS", "TurnRun", "snapshot"]
