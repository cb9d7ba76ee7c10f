"""One turn's work on a loaded session -> events, then the DONE that ends it.

route (a flow in progress keeps the turn) -> understand (rules first, at most one LLM
call) -> apply slot operations, validated in code -> fire the runtime trigger (``update`` /
``confirm`` / ``cancel``) on the flow's shared stage machine -> settle (each stage's steps,
terminal bookkeeping, the batch queue) -> remember. The engine (``engine.py``) owns the
lock, the load and the commit around it; steps live in ``steps/dispatch.py``, model calls
in ``calls/agent.py``, the template view in ``understanding/context.py``.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, assert_never

from engine.compiler.compiled import CompiledFlow, CompiledStage, scrubbed, shown
from engine.errors import FlowRuntimeError
from engine.nlu.segments import of_all, task_by_place
from engine.runtime.calls.agent import ModelCall
from engine.runtime.calls.memory import remember
from engine.runtime.calls.models import LiveModel
from engine.runtime.calls.orchestrated import orchestrated
from engine.runtime.calls.trace import ms
from engine.runtime.conversation import patterns
from engine.runtime.conversation.guard import blocked
from engine.runtime.conversation.outcomes import acted, ask_about_repeat, settle_first, tell_untold
from engine.runtime.conversation.unwind import unwind
from engine.runtime.steps import onecall_turn
from engine.runtime.steps.dispatch import agent_request_for, run_steps
from engine.runtime.turn.run import Turn
from engine.runtime.turn.snapshot import asking, snapshot
from engine.runtime.turn.stack import answered
from engine.runtime.understanding.grounding import drop_ungrounded
from engine.runtime.understanding.llm import LlmUnderstanding, understanding_request
from engine.runtime.understanding.refused import BadAmount, ForeignAmount, UnreadTime
from engine.runtime.understanding.routing import merge, settled
from engine.runtime.understanding.slots import Rejected, validate
from engine.runtime.understanding.understand import Intent, Understanding, understand
from engine.runtime.values.control import (
    PROCEED,
    AttemptFailed,
    CallFlow,
    Fire,
    Halt,
    Link,
    Next,
    Proceed,
)
from engine.runtime.values.events import AgentDone, AgentStart, Done, Reading, Trace
from engine.runtime.values.session import RunRef

MAX_HOPS = 32


class TurnRun(Turn):
    """A turn that moves: route or go on, understand, fire, settle (its data is ``Turn``)."""

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
            if active is not None:  # "which one?" after an ended task: its stage stays the
                state.enter(active)  # session's, read against its own flow
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
        stage = session.stage or flow.initial
        placed = task_by_place(text) if session.meta.get("batch_total", 0) > 1 else None
        if placed is not None:  # "두 번째는 3만원으로": of the task asked about, the rest says it;
            if placed[0] != session.meta.get("batch_progress", 0) + 1:  # of another, nothing
                return Understanding()
            text = placed[1]
        return understand(text, self.service, flow, stage, asked=self.asked_slot,
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
        """The turn's one model call (``steps/onecall_turn.py``): understanding, and the reply
        of the agent that answers in flow ``answering`` should the turn land there."""
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
        decision = None if u.decision == "confirm" and self.hidden else u.decision
        self.reading["decision"] = decision  # "ye\u200bs": read through, never a yes
        if state.session.meta.get("awaiting") == "correction":
            return None  # the change waits for the user's yes (settle asks)
        if decision is not None:
            return self._decided(decision)
        if stage.decide and not u.ops:
            return None  # unclear at a confirmation: stay (the safe default)
        if state.missing():
            state.count_filling()
        return "update"

    def set_slot(self, name: str, raw: Any, *, confirmed: bool = False,
                 said: bool = True) -> None:
        """Validate ``raw`` in code; a rejected value leaves the slot and records why. A
        new value for a filled slot is a correction: applied at once (noted in
        ``meta.corrected``), or held for the user's yes where the flow confirms corrections.
        ``said=False``: a value a step set (an action's result), not one the message gave:
        not part of the turn's reading."""
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
        if isinstance(raw, UnreadTime):  # asked for until a date (or "now") comes
            state.unread(name, self.engine.text("date_unread", said=raw.said))
            return
        value = validate(slot, raw, state.session.slots, today=state.now.date())
        if isinstance(value, Rejected):
            state.reject(name, self._slot_error(name, raw, value))
            return
        old = state.session.slots.get(name)
        if old != value and said:
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
            match await self._run_stage(flow, stage):
                case Halt():
                    return
                case CallFlow(name, ok):
                    moved = self._call_flow(name, ok)
                    continue
                case Link(name):
                    moved = self._link(name)
                    continue
                case Fire(trigger):
                    self._spoken(flow, stage, moved)
                    if not self.fire(trigger):
                        raise FlowRuntimeError(f"trigger `{trigger}` fired in stage "
                                               f"{stage.name} of flow {flow.name} has no "
                                               "transition")
                    moved = True
                    continue
                case Proceed():
                    self._spoken(flow, stage, moved)
                    if not (stage.terminal and self._finish_task(stage)):
                        return
                    moved = self.fire("update")
                case AttemptFailed(error):  # only a loop's body sees it (the loop handles it)
                    raise FlowRuntimeError(f"{error}, outside a loop's attempt")
                case other:
                    assert_never(other)
        raise FlowRuntimeError(f"flow {self.state.flow.name} moved more than {MAX_HOPS} times "
                               "in a turn")

    async def _run_stage(self, flow: CompiledFlow, stage: CompiledStage) -> Next:
        """The stage's steps, run here or asked of a background run (its steps run after
        this turn, in engine/runs)."""
        if stage.background and not self.in_run:
            self.start_run(flow, stage)
            return PROCEED
        return await run_steps(self, stage.steps) if stage.steps else PROCEED

    def _spoken(self, flow: CompiledFlow, stage: CompiledStage, moved: bool) -> None:
        """The stage's steps are done: count a terminal outcome, say the stage (or ask to
        confirm a held correction; a run's stage spoke in the turn that started the run)."""
        if stage.terminal:
            self.state.batch.count_outcome(stage.name)
        if self.state.session.meta.get("awaiting") == "correction":
            self.reply.say(flow.confirm_corrections)
        elif self.resumed == stage.name:
            self.resumed = None
        else:
            self.reply.say(stage.say if moved or not stage.reprompt else stage.reprompt)

    def start_run(self, flow: CompiledFlow, stage: CompiledStage) -> None:
        """Ask for a background run of ``stage``'s steps (its id in ``meta.run``)."""
        self.started = RunRef(id=uuid.uuid4().hex, flow=flow.name, stage=stage.name)
        self.state.session.meta["run"] = self.started

    def _call_flow(self, name: str, ok: str | None) -> bool:
        """A step called flow ``name``: it starts on top, the caller waiting under it (``ok``
        fires in the caller when it ends). True when the new flow's stage moved."""
        self.stack.push("caller", "call", ok=ok)
        return self._start_handed(name)

    def _link(self, name: str) -> bool:
        """A step linked flow ``name``: the linking flow ends where it stands and hands the
        values the linked flow collects along. True when the new flow's stage moved."""
        state, target = self.state, self.service.flows[name]
        handed = {n: v for n, v in state.session.slots.items() if n in target.slots}
        self._finish_task(state.stage)
        state.session.slots.update(handed)
        self.ended = None
        self.stack.link(target)
        if not self.stack.start(target, Intent(None, 0.0), "call"):
            return False
        patterns.read_on_link(self)  # the message that led here is the linked flow's too
        return self.fire("update")

    def _start_handed(self, name: str) -> bool:
        if not self.stack.start(self.service.flows[name], Intent(None, 0.0), "call"):
            return False
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
            self.tracer.tag("MISSING_REQUIRED_SLOTS")  # gave up asking (FLOWCTL_MAX_FILL_TURNS)
        ended = {"outcome": stage.name, "slots": state.all_slots()}
        if session.task_queue and self.reading["decision"] == "cancel" and \
                of_all(state.message):  # "다 취소해": the tasks waiting are cancelled too
            for queued in session.task_queue:
                self.completed.append({**record, "slots": shown(queued, self.service.sensitive),
                                       "result": None})
                session.done.append(self.completed[-1])
            session.task_queue = []
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
        if self.refused and next_action == "DONE":  # "카드번호는…" after a recommendation
            next_action = "ASK"
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
