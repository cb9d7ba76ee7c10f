"""A turn's data, and what the code that works on it may ask of the turn and its engine.

``Turn`` holds one turn's work on a loaded session: the state and reply being built, the
trace, the events not yet sent, what the turn learnt (the model's reading, the actions
settled, the task that ended). How the turn moves — understand, fire a trigger, settle a
stage — is ``turn.TurnRun``; the patterns, steps and the flow stack call it through the
methods declared here, so none of them imports the turn (and the turn imports them).
``Host`` is what a turn uses of the engine that runs it.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from engine.compiler.compiled import CallActionStep, Compiled, CompiledFlow, CompiledService
from engine.config import Settings
from engine.runtime.calls.actions import ActionStub
from engine.runtime.calls.answer import Answer
from engine.runtime.calls.folding import BackgroundFolds
from engine.runtime.calls.memory import MemoryPolicy
from engine.runtime.calls.models import LiveModel, ModelPool
from engine.runtime.calls.toolbox import ToolBox
from engine.runtime.calls.trace import Tracer
from engine.runtime.turn.reply import Reply
from engine.runtime.turn.stack import FlowStack
from engine.runtime.understanding.context import TurnState
from engine.runtime.understanding.llm import LlmUnderstanding
from engine.runtime.understanding.understand import Understanding
from engine.runtime.values.budget import deadline_in
from engine.runtime.values.events import Done, Event, Hook, Reading
from engine.runtime.values.session import JournalEntry, RunRef, SessionState
from engine.store.base import SessionStore

if TYPE_CHECKING:
    import datetime as dt


class RunHost(Protocol):
    """What the engine needs of whoever runs background stages (``engine.runs.Runs``)."""

    async def intercept(self, session_id: str, message: str,
                        owner: str | None) -> Done | None:
        """The answer to a message for a session a run holds (None: run the turn)."""
        ...

    async def begin(self, session_id: str, ref: RunRef, owner: str | None) -> None:
        """Record the run a committed turn asked for and start it."""
        ...


class Host(Protocol):
    """What a turn uses of the engine that runs it (``engine.Engine``)."""

    service: CompiledService
    store: SessionStore
    settings: Settings
    clock: Callable[[], dt.datetime]
    models: ModelPool
    memory: MemoryPolicy
    folds: BackgroundFolds
    understanding: LiveModel | None
    understanding_prompt: Compiled | None
    stubs: Mapping[str, ActionStub]
    runs: RunHost | None
    tools: ToolBox

    def text(self, key: str, **values: Any) -> str:
        """A built-in text, or the service's message of the same name."""
        ...


@dataclass(slots=True)
class Synthesised:
    """What the turn's last ``respond`` step set for DONE (None: no step set it)."""

    requires_confirmation: bool | None = None
    next_suggested_actions: list[str] = field(default_factory=list)


class Turn(abc.ABC):
    """The mutable work of one turn; discarded unless the whole turn succeeds."""

    def __init__(self, engine: Host, session_id: str, message: str, turn_id: str,
                 session: SessionState, *, version: int = 0,
                 context: Mapping[str, Any] | None = None,
                 understood: LlmUnderstanding | None = None, hidden: bool = False) -> None:
        self.engine, self.service = engine, engine.service
        self.hidden = hidden
        """The message hid invisible characters inside its words: no yes of the user's own."""
        self.session_id, self.turn_id = session_id, turn_id
        self.state = TurnState(self.service, session, message,
                               self.service.flows[self.service.default_flow],
                               fill_turns=engine.settings.fill_turns,
                               ask=lambda name: self.reply.ask(name), now=engine.clock(),
                               context=context)
        self.reply = Reply(self.service, self.state, engine.text)
        self.tracer = Tracer(redact=not engine.settings.dev_mode)
        self.reading = Reading(intent=None, slots={}, decision=None, by="rules")
        """How the turn read the message (``_trace.reading``), noted as it is applied."""
        self.stack = FlowStack(self.state, self.reply, self.reading)
        self.hooks: list[Hook] = []
        self.completed: list[dict[str, Any]] = []
        """Tasks ended since the last write, committed with the session."""
        self.missed = False
        """The turn's model call failed (too late, an error): the user is told so."""
        self.refused = False
        """A guard rule answered the turn: it asks for something else, even after a task
        that ended (next_action ASK, not the ended stage's DONE)."""
        self.settled: list[str] = []
        """Irreversible actions whose outcome this turn learnt (ran, or definitely failed)."""
        self.version = version
        """The stored session's version this turn last loaded or wrote."""
        self._committed = 0
        self.llm: LlmUnderstanding | None = understood
        """The turn's LLM understanding: made here, or given (an app's router made it)."""
        self.answer: Answer | None = None
        """The reply the turn's one model call wrote, until the agent it is for shows it."""
        self.deadline: float | None = deadline_in(engine.settings.turn_deadline_ms)
        """Event-loop time by which every model call of the turn has ended; None in a
        background run (nobody waits on it): each of its calls gets a deadline of its own."""
        self.asked = False
        """The turn's one understanding call was made (whatever came of it)."""
        self.ended: dict[str, Any] | None = None
        """The task that ended this turn (its outcome and slots) until a caller takes it."""
        self.synthesis = Synthesised()
        self.in_run = engine.runs is None
        """Background stages run their steps here: this is the run (or nobody hosts runs)."""
        self.resumed: str | None = None
        """The background stage a run goes on from (engine/runs): not said again."""
        self.started: RunRef | None = None
        """The background run this turn asked for, started once the turn has committed."""
        self.outbox: list[Event] = []
        """Events emitted and not yet sent (``drive`` sends them whenever the turn waits)."""

    @property
    def routed(self) -> bool:
        """This turn started a flow (a new task), rather than continuing one: nothing was
        asked in it yet, so a bare answer is no answer to its question."""
        return self.stack.started

    @property
    def asked_slot(self) -> str | None:
        """The slot the last turn asked for, which a bare answer fills: the flow's first
        missing one; none on the turn that routed into the flow ("송금하고 싶어" is not a
        recipient)."""
        unfilled = [] if self.routed else self.state.missing()
        return unfilled[0] if unfilled else None

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

    async def journal(self, name: str, args: dict[str, Any], step: CallActionStep) -> None:
        """Record irreversible action ``name`` as pending and commit it before the call."""
        session = self.state.session
        earlier = session.journal.get(name)
        session.journal[name] = JournalEntry(action=name, key=f"{session.task_id}:{name}",
                                             status="pending", args=args, ok=step.ok,
                                             error=step.error, result=None,
                                             retried=earlier is not None)
        await self.commit(final=False)

    # -- how the turn moves (turn.TurnRun) --------------------------------------------------

    @abc.abstractmethod
    async def work(self, text: str, rules: Understanding | None = None) -> None:
        """Understand ``text`` in the current flow, fire the runtime trigger, settle."""

    @abc.abstractmethod
    async def settle(self, moved: bool) -> None:
        """Run the steps of each stage the turn reaches; stop at a stage that keeps it."""

    @abc.abstractmethod
    def fire(self, trigger: str | None) -> bool:
        """Fire ``trigger`` on the flow's machine; True when the stage changed."""

    @abc.abstractmethod
    def set_slot(self, name: str, raw: Any, *, confirmed: bool = False,
                 said: bool = True) -> None:
        """Validate ``raw`` in code and put it in slot ``name`` (or record why not);
        ``said=False`` for a value a step set, which is no reading of the message."""

    @abc.abstractmethod
    def rules(self, text: str) -> Understanding:
        """What the rules read in ``text`` in the current flow and stage."""

    @abc.abstractmethod
    async def ask_llm(self, live: LiveModel, flows: list[CompiledFlow], *,
                      current: CompiledFlow | None, answering: str | None = None) -> bool:
        """The turn's one model call; False when it was made already and failed."""


__all__ = ["Host", "RunHost", "Synthesised", "Turn"]
