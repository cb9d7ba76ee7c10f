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
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.compiler.compiled import (
    CallStep,
    CompiledFlow,
    CompiledStage,
    scrubbed,
    shown,
)
from engine.errors import FlowRuntimeError
from engine.runtime import onecall_turn, patterns
from engine.runtime.agent import ModelCall
from engine.runtime.budget import deadline_in
from engine.runtime.context import TurnState
from engine.runtime.events import (
    AgentDone,
    AgentStart,
    Done,
    Event,
    Hook,
    Reading,
    Trace,
)
from engine.runtime.grounding import drop_ungrounded
from engine.runtime.guard import blocked
from engine.runtime.llm import LlmUnderstanding, understanding_request
from engine.runtime.memory import remember
from engine.runtime.models import LiveModel
from engine.runtime.orchestrated import orchestrated
from engine.runtime.outcomes import acted, ask_about_repeat, settle_first, tell_untold
from engine.runtime.reply import Reply
from engine.runtime.routing import merge, settled
from engine.runtime.session import JournalEntry, RunRef, SessionState
from engine.runtime.slots import Rejected, validate
from engine.runtime.snapshot import asking, snapshot
from engine.runtime.stack import FlowStack, answered, unwind
from engine.runtime.steps import agent_request_for, run_steps
from engine.runtime.synthesis import Synthesised
from engine.runtime.trace import Tracer, ms
from engine.runtime.understand import BadAmount, ForeignAmount, Intent, Understanding, understand

if TYPE_CHECKING:
    from engine.runtime.engine import Engine

MAX_HOPS = 32


class TurnRun:
    """The mutable work of one turn; discarded unless the whole turn succeeds."""

    def __init__(self, engine: Engine, session_id: str, message: str, turn_id: str,
                 session: SessionState, *, version: int = 0,
                 context: Mapping[str, Any] | None = None,
                 understood: LlmUnderstanding | None = None) -> None:
        self.engine, self.service = engine, engine.service
        self.session_id, self.turn_id = session_id, turn_id
        self.state = TurnState(self.service, session, message,
                               self.service.flows[self.service.default_flow],
                               fill_turns=engine.settings.fill_turns,
                               ask=lambda name: self.reply.ask(name), now=engine.clock(),
                               context=context)
        self.reply = Reply(self.service, self.state, engine.text)
        self.tracer = Tracer(redact=not engine.settings.dev_mode)
        self.hooks: list[Hook] = []
        self.completed: list[dict[str, Any]] = []
        self.pending: str | None = None
        self.missed = False
        """The turn's model call failed (too late, an error): the user is told so."""
        self.settled: list[str] = []
        """Irreversible actions whose outcome this turn learnt (ran, or definitely failed)."""
        """A trigger a step asked for, fired once the stage's steps are done."""
        self.version = version
        """The stored session's version this turn last loaded or wrote."""
        self._committed = 0
        self.llm: LlmUnderstanding | None = understood
        """The turn's LLM understanding: made here, or given (an app's router made it)."""
        self.answer: onecall_turn.Answer | None = None
        """The reply the turn's one model call wrote, until the agent it is for shows it."""
        self.deadline: float | None = deadline_in(engine.settings.turn_deadline_ms)
        """Event-loop time by which every model call of the turn has ended; None in a
        background run (nobody waits on it): each of its calls gets a deadline of its own."""
        self.asked = False
        """The turn's one understanding call was made (whatever came of it)."""
        self.routed = False
        """This turn picked the flow (a new task), rather than continuing one."""
        self.halted = False
        """An irreversible action got no settling answer: the task waits where it is."""
        self.stack = FlowStack(self)
        self.calling: tuple[str, str | None] | None = None
        """A ``call`` step called a flow: its name, and the trigger fired here when it ends."""
        self.linking: str | None = None
        """A ``link`` step handed the conversation to this flow."""
        self.ended: dict[str, Any] | None = None
        """The task that ended this turn (its outcome and slots) until a caller takes it."""
        self.moved = False
        self.synthesis = Synthesised()
        self.in_run = engine.runs is None
        """Background stages run their steps here: this is the run (or nobody hosts runs)."""
        self.resumed: str | None = None
        """The background stage a run goes on from (engine/runs): not said again."""
        self.started: RunRef | None = None
        """The background run this turn asked for, started once the turn has committed."""
        self.outbox: list[Event] = []
        """Events emitted and not yet sent (``drive`` sends them whenever the turn waits)."""
        self.reading = Reading(intent=None, slots={}, decision=None, by="rules")
        """How the turn read the message (``_trace.reading``), noted as it is applied."""

    def emit(self, event: Event) -> None:
        self.outbox.append(event)

    def call_deadline(self) -> float:
        """When a model call starting now must have ended (see ``deadline``)."""
        if self.deadline is None:
            return deadline_in(self.engine.settings.turn_deadline_ms)
        return self.deadline

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
        earlier = session.journal.get(name)
        session.journal[name] = JournalEntry(action=name, key=f"{session.task_id}:{name}",
                                             status="pending", args=args, ok=step.ok,
                                             error=step.error, result=None,
                                             retried=earlier is not None)
        await self.commit(final=False)

    async def execute(self) -> None:
        """The turn's work; its events go to ``outbox`` (``drive(run.execute(), run.outbox)``)."""
        state = self.state
        session = state.session
        self.engine.folds.apply(self.session_id, session, self.tracer)
        if session.untold is not None:  # the reply that told it may never have arrived
            tell_untold(session, self.engine.text("untold_outcome",
                                                  outcome=session.untold["text"]))
        active = self.service.flows.get(session.flow or "")
        if await settle_first(self, active):  # an outcome not known yet comes first
            return
        if active is not None and self.service.guard:
            state.enter(active)  # the guard's message and DONE see the flow in progress
        if blocked(self):
            return  # the guard answered: the session stays as it was
        if session.notice:
            self.reply.parts.append(session.notice)
            session.notice = ""
        if session.clarify is not None:
            await patterns.clarified(self)
        elif active is not None and active.in_progress(session.stage):
            state.enter(active)
            await patterns.mid_flow(self)
        else:
            if active is not None:  # an ended task's stage stays the session's until another
                state.enter(active)  # starts (a guard may refuse every flow asked for)
            await patterns.route(self)
        await onecall_turn.drop(self)
        await unwind(self)
        if (self.ended is not None or self.routed and answered(state.flow, self.service)) \
                and not session.stack and self.service.patterns.completed:
            self.reply.say(self.service.patterns.completed)
        ask_about_repeat(self)
        if remember(session, state.message, self.reply.text(), self.engine.memory):
            self.engine.folds.start(self.session_id, session, self.engine.memory,
                                    self.engine.models, lambda live, tracer: ModelCall(
                                        live, "memory", tracer))

    async def work(self, text: str, rules: Understanding | None = None) -> None:
        """Understand ``text`` in the current flow, fire the runtime trigger, settle."""
        state = self.state
        if state.flow.slots:
            label = self.reply.label("understand")
            self.emit(AgentStart("understand", label))
            started = time.perf_counter()
            moved = self.fire(await self._understand(text, rules))
            state.surface_held()  # a refused value held until its slot is asked
            self.tracer.step("understand", started)
            self.emit(AgentDone("understand", label, True, stage=state.session.stage))
        else:
            moved = self.fire("update")
        await self.settle(moved)

    # -- route, interrupt, understand ------------------------------------------------------

    def rules(self, text: str) -> Understanding:
        state, flow = self.state, self.state.flow
        session = state.session
        # a bare answer ("엄마") fills the slot the last turn asked for: on the turn that routed
        # into the flow nothing was asked yet ("송금하고 싶어" is not a recipient)
        unfilled = [] if self.routed else state.missing()
        stage = session.stage or flow.initial
        return understand(text, self.service, flow, stage,
                          asked=unfilled[0] if unfilled else None,
                          batching=flow.batch and not session.meta.get("batch_total"),
                          today=state.now.date(), values=session.slots, started=self.routed)

    async def _understand(self, text: str, rules: Understanding | None) -> str | None:
        """Rules first; the turn's one LLM call only when they settle nothing."""
        if rules is None:
            rules = self.rules(text)
        live = self.engine.understanding
        if self.llm is None and not settled(rules) and live is not None:
            await self.ask_llm(live, [self.state.flow], current=self.state.flow)
        return self._apply(merge(rules, self._grounded()))

    def _grounded(self) -> LlmUnderstanding | None:
        """The model's reading less the values the user never said (noted in the trace)."""
        state = self.state
        if drop_ungrounded(self.llm, state.message, self.service, state.now.date()):
            self.tracer.tag("UNGROUNDED_VALUE")
        return self.llm

    async def ask_llm(self, live: LiveModel, flows: list[CompiledFlow], *,
                      current: CompiledFlow | None, answering: str | None = None) -> bool:
        """The turn's one model call (``onecall_turn.py``): understanding, and the reply of the
        agent that answers in flow ``answering`` should the turn land there."""
        if self.llm is not None:  # understood already (or by an app's router): no second call
            return True
        if self.asked:  # the turn's one call failed: the rules answer, no second call
            return False
        self.asked = True
        session = self.state.session
        request = understanding_request(
            self.service, flows, current=current, stage=session.stage,
            slots=session.slots, message=self.state.message,
            today=self.state.now.date().isoformat(), raw_history=session.raw_history,
            prompt=self.engine.understanding_prompt)
        step = onecall_turn.answering_step(self.service, answering, live.name)
        agent = agent_request_for(self, step) if step is not None else None
        return await onecall_turn.ask(self, live, flows, request=onecall_turn.one_call_request(
            request, agent), step=step, current=current)

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
                self.reading["slots"][op.slot] = None
            else:
                self.set_slot(op.slot, op.value)
        self.reading["decision"] = u.decision
        if state.session.meta.get("awaiting") == "correction":
            return None  # the change waits for the user's yes (settle asks)
        if u.decision is not None:
            return self._decided(u.decision)
        if stage.decide and not u.ops:
            return None  # unclear at a confirmation: stay (the safe default)
        if state.missing():
            state.count_filling()
        return "update"

    def set_slot(self, name: str, raw: Any, *, confirmed: bool = False) -> None:
        """Validate ``raw`` in code; a rejected value leaves the slot and records why. A
        new value for a filled slot is a correction: applied at once (noted in
        ``meta.corrected``), or held for the user's yes where the flow confirms corrections."""
        state = self.state
        slot = self.service.slots.get(name)
        if slot is None or name not in state.flow.slots:
            return
        if isinstance(raw, BadAmount):
            state.reject(name, self._slot_error(name, raw.text, Rejected()))
            return
        if isinstance(raw, ForeignAmount):
            state.reject(name, self.engine.text("currency_mismatch", currency=raw.currency,
                                                expected=slot.spec.currency))
            return
        value = validate(slot, raw, state.session.slots, today=state.now.date())
        if isinstance(value, Rejected):
            state.reject(name, self._slot_error(name, raw, value))
            return
        old = state.session.slots.get(name)
        if old != value:
            self.reading["slots"][name] = value
        if old in (None, "") or old == value:
            state.put(name, value)
        elif state.flow.confirm_corrections is not None and not confirmed:
            state.hold_correction(name, old, value)
        else:  # applied, at once or on the user's yes: meta.corrected says so this turn
            state.correct(name, old, value)

    def _slot_error(self, name: str, raw: Any, rejected: Rejected) -> str:
        if rejected.reason:
            return rejected.reason
        message = self.service.slots[name].spec.error
        if message is None:
            return self.engine.text("slot_invalid")
        return str(self.service.messages[message].render({**self.state.view(), "value": raw}))

    def _decided(self, decision: str) -> str:
        """A no at a confirmation fires ``deny`` where the stage has such a transition."""
        if decision == "deny":
            stage = self.state.stage.name
            return "deny" if self.state.flow.machine.can(stage, "deny") else "cancel"
        return decision

    def fire(self, trigger: str | None) -> bool:
        """Fire ``trigger`` on the flow's machine; True when the stage changed."""
        if trigger is None:
            return False
        state = self.state
        new = state.flow.machine.fire(state.session.stage or state.flow.initial, trigger,
                                      state.view)
        if new is None:
            return False
        state.move(new)
        return True

    # -- settle ---------------------------------------------------------------------------------

    async def settle(self, moved: bool) -> None:
        """Run the steps of each stage the turn reaches; stop at a stage that keeps it."""
        for _ in range(MAX_HOPS):
            flow, stage = self.state.flow, self.state.stage
            if stage.background and not self.in_run:
                self.start_run(flow, stage)  # its steps run after this turn (engine/runs)
            elif stage.steps:
                await run_steps(self, stage.steps)
            if self.halted:
                return
            if self.calling is not None or self.linking is not None:
                moved = self._hand_over()
                continue
            trigger, self.pending = self.pending, None
            if stage.terminal:
                self.state.batch.count_outcome(stage.name)
            if self.state.session.meta.get("awaiting") == "correction":
                self.reply.say(flow.confirm_corrections)
            elif self.resumed == stage.name:
                self.resumed = None  # a run's stage spoke in the turn that started the run
            else:
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
        raise FlowRuntimeError(f"flow {self.state.flow.name} moved more than {MAX_HOPS} times "
                               "in a turn")

    def start_run(self, flow: CompiledFlow, stage: CompiledStage) -> None:
        """Ask for a background run of ``stage``'s steps (its id in ``meta.run``)."""
        self.started = RunRef(id=uuid.uuid4().hex, flow=flow.name, stage=stage.name)
        self.state.session.meta["run"] = self.started

    def _hand_over(self) -> bool:
        """A step called or linked a flow: start it on top (a caller waits under it; a
        linking flow ends first). True when the new flow's stage moved."""
        service, state, linked = self.service, self.state, self.calling is None
        if not linked:
            name, ok = self.calling or ("", "")
            self.calling = None
            self.stack.push("caller", "call", ok=ok)
        else:
            name, self.linking = self.linking or "", None
            target = service.flows[name]
            handed = {n: v for n, v in state.session.slots.items() if n in target.slots}
            self._finish_task(state.stage)  # the linking flow ends where it stands
            state.session.slots.update(handed)  # values the linked flow collects go along
            self.ended = None
            self.stack.link(target)
        if not self.stack.start(service.flows[name], Intent(None, 0.0), "call"):
            return False
        if linked and self.routed:  # the request that started the linking flow is its too
            patterns.read_on_link(self)
        return self.fire("update")

    def _finish_task(self, stage: CompiledStage) -> bool:
        """Record the task; load the next queued one (True) or end the flow (False)."""
        state = self.state
        session = state.session
        record = {"flow": state.flow.name, "outcome": stage.name,
                  "slots": shown(state.slot_values(), self.service.sensitive),
                  "at": self.engine.clock().isoformat(timespec="seconds"),
                  "task": session.tasks_started,
                  "result": scrubbed(state.result, state.secrets())}
        if not (session.stack and session.stack[-1]["kind"] == "caller"):
            self.completed.append(record)  # a called flow is part of its caller's task
            session.done.append({**record, **acted(session, state.slot_values())})
        if state.missing() and session.filling_turns >= self.engine.settings.fill_turns(
                state.flow.max_fill_turns):
            self.tracer.tag("MISSING_REQUIRED_SLOTS")  # gave up asking (MAX_FILL_TURNS)
        ended = {"outcome": stage.name, "slots": state.all_slots()}
        task = state.batch.next_task()
        if task is None:
            self.ended = ended
            return False
        for name, value in task.items():
            self.set_slot(name, value)
        if state.missing():
            state.count_filling()
        return True

    def done(self, started: float) -> Done:
        state = self.state
        next_action, buttons = asking(self.state, self.reply)
        trace: Trace = {"turn_id": self.turn_id, "total_elapsed_ms": ms(started),
                        "agents": self.tracer.entries, "reading": self._read()}
        if self.stack.ops:
            trace["stack"] = self.stack.ops
        if self.tracer.tags:
            trace["failure_tags"] = list(self.tracer.tags)
        return Done(message=self.reply.text(), next_action=next_action,
                    ui_hint={"buttons": buttons},
                    state_snapshot=snapshot(state.session, state.flow, self.service.sensitive),
                    hooks=self.hooks, trace=trace,
                    requires_confirmation=self.synthesis.requires_confirmation,
                    next_suggested_actions=self.synthesis.next_suggested_actions,
                    orchestrated=orchestrated(self, self.reply.text()))

    def _read(self) -> Reading:
        reading = self.reading
        return Reading(intent=reading["intent"], decision=reading["decision"],
                       slots=shown(reading["slots"], self.service.sensitive),
                       by="model" if self.asked else "rules")


__all__ = ["MAX_HOPS", "TurnRun"]
