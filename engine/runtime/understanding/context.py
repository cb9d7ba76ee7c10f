"""A turn's working state -> the names templates and conditions see, rebuilt only when stale.

Every change a turn makes to what a template can read (slots, errors, stage, batch, result,
the routed flow and intent) goes through a method of ``TurnState``, and each such method
marks the view stale; nothing outside this class resets the cache. Renders never mutate the
view (jinja2 writes template-local names to its own context, not to this dict).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any, Literal

from engine.compiler.compiled import CompiledFlow, CompiledService, CompiledStage, secrets_of
from engine.compiler.filters import GLOBALS
from engine.runtime.understanding.understand import Intent
from engine.runtime.values.session import Meta, QueuedTask, SessionState


def missing(state: SessionState, flow: CompiledFlow | None) -> list[str]:
    """The flow's required slots that have no value yet, in declaration order (a slot
    required by a condition counts while the condition holds over ``slots``; a date slot
    given a time that names no date counts until it has one: ``meta.unread``)."""
    if flow is None:
        return []
    values, unread = state.slots, state.meta.get("unread") or {}
    gaps = [n for n in flow.slots if (n in flow.required or n in unread)
            and values.get(n) in (None, "")]
    if not flow.required_when or not gaps:
        return gaps
    seen = {"slots": {n: values.get(n) for n in flow.slots}}
    return [n for n in gaps if n not in flow.required_when
            or flow.required_when[n].render(seen)]


NO_LOOP: Mapping[str, Any] = {"attempt": 0, "max_attempts": 0, "feedback": "", "error": None,
                              "outcome": None, "attempts": 0, "summary": ""}
"""``loop`` before any loop step ran (its fields: ``registry.CONTEXT_FIELDS``)."""


META_DEFAULTS: dict[str, Any] = {"slot_errors": {}, "corrected": {}, "correction": None,
                                 "awaiting": None, "batch_total": 0, "batch_progress": 0,
                                 "batch_counts": {}, "run": None, "held_errors": {},
                                 "batch_executed": 0, "last_cancelled": False, "unread": {}}
"""Every documented ``meta`` key, as a template reads it when the turn has not set it (a
message reading ``meta.corrected`` renders on a turn that corrected nothing)."""


def hold_correction(meta: Meta, name: str, old: Any, new: Any) -> None:
    """Hold ``name``'s new value in ``meta`` until the user's yes: ``meta.correction`` (the
    first slot's ``slot``, ``old``, ``new``; ``slots``: every slot held, slot -> {old, new},
    confirmed together) and ``meta.awaiting`` = ``correction``.

    >>> meta = {}
    >>> hold_correction(meta, "amount", 50000, 30000)
    >>> meta["awaiting"], meta["correction"]["slots"]
    ('correction', {'amount': {'old': 50000, 'new': 30000}})
    """
    held = meta.get("correction") if meta.get("awaiting") == "correction" else None
    if held is None:
        held = meta["correction"] = {"slot": name, "old": old, "new": new, "slots": {}}
    held["slots"][name] = {"old": old, "new": new}
    meta["awaiting"] = "correction"


class TurnState:
    """The session a turn works on, the flow and intent it is routed to, the last result."""

    __slots__ = ("service", "session", "message", "flow", "intent", "result", "batch", "now",
                 "_view", "context", "agents", "retrieved", "loop")

    def __init__(self, service: CompiledService, session: SessionState, message: str,
                 flow: CompiledFlow, *, fill_turns: Callable[[int | None], int],
                 ask: Callable[[str], str], now: dt.datetime | None = None,
                 context: Mapping[str, Any] | None = None) -> None:
        self.service, self.session, self.message = service, session, message
        self.flow, self.intent = flow, Intent(None, 0.0)
        self.result: Any = None
        self.context: Mapping[str, Any] = context or {}
        """The request's context (validated against the service's schema), read-only."""
        self.agents: dict[str, Any] = {}
        """Validated JSON outputs of this turn's agent steps, by agent name."""
        self.retrieved: dict[str, list[dict[str, Any]]] = dict.fromkeys(service.retrievals, [])
        """This turn's hits of ``retrieve`` steps, by name (empty until the step runs)."""
        self.loop: dict[str, Any] = dict(NO_LOOP)
        """The running (or last finished) loop step's attempt, feedback and outcome; its
        ``error`` is set when an action failed in the current attempt."""
        self.batch = BatchQueue(self)
        # the engine's clock at the turn's start: `today`/`now` for templates and validators
        self.now = now or dt.datetime.now().astimezone()
        self._view = View(self, fill_turns, ask)

    # -- reading ---------------------------------------------------------------------------

    @property
    def stage(self) -> CompiledStage:
        return self.flow.stages[self.session.stage or self.flow.initial]

    def missing(self) -> list[str]:
        return missing(self.session, self.flow)

    def slot_values(self) -> dict[str, Any]:
        """The flow's own slots, by name (what its task records)."""
        values = self.session.slots
        return {n: values.get(n) for n in self.flow.slots}

    def all_slots(self) -> dict[str, Any]:
        """Every declared slot (shared by name across flows): what templates see."""
        values = self.session.slots
        return {n: values.get(n) for n in self.service.slots}

    def secrets(self) -> frozenset[str]:
        """The current values of the sensitive slots, as text (to mask wherever they appear)."""
        return secrets_of(self.session.slots, self.service.sensitive)

    def view(self) -> dict[str, Any]:
        """The template context (see docs/dsl.md, "What templates see")."""
        return self._view.get()

    # -- changes ---------------------------------------------------------------------------

    def _changed(self) -> None:
        self._view.stale()

    def name_intent(self, intent: Intent) -> None:
        """The intent a question is about (``turn.intent``), before any flow is routed."""
        self.intent = intent
        self._changed()

    def route(self, flow: CompiledFlow, intent: Intent, *, called: bool = False) -> None:
        """Start a new task of ``flow`` for ``intent``; a queued batch is dropped. A called
        flow keeps the caller's values of the slots they share by name."""
        self.flow, self.intent = flow, intent
        self.session.task_queue, self.session.meta = [], Meta()
        fresh = flow.fresh
        if called:
            fresh = tuple(n for n in fresh if self.session.slots.get(n) in (None, ""))
        self.session.start_task(flow.name, flow.initial, fresh, dict(flow.initial_values))
        self._changed()

    def enter(self, flow: CompiledFlow) -> None:
        """Work on ``flow`` again (a task taken off the flow stack, already restored)."""
        self.flow, self.result = flow, None
        self._changed()

    def finish(self) -> None:
        """The flow's task ended: its own slots are reset, kept slots stay — unless it was
        cancelled: then it keeps none of its own (an id given to a verification the user
        cancelled verifies nothing)."""
        session = self.session
        dropped = self.service.kept.intersection(self.flow.slots) \
            if session.meta.get("last_cancelled") else ()
        for name in (*self.flow.fresh, *dropped):
            session.slots.pop(name, None)
        session.meta, session.filling_turns, session.journal = Meta(), 0, {}
        self._changed()

    def put(self, name: str, value: Any) -> None:
        self.session.slots[name] = value
        self._read(name)

    def clear(self, name: str) -> None:
        self.session.slots.pop(name, None)
        self._read(name)

    def _read(self, name: str) -> None:
        unread = self.session.meta.get("unread")
        if unread and name in unread:
            del unread[name]
        self._changed()

    def unread(self, name: str, message: str) -> None:
        """``name`` was said as a time that names no date: emptied and asked for (even if
        optional) until a date or "now" comes; ``message`` says why."""
        self.session.slots.pop(name, None)
        self.session.meta.setdefault("unread", {})[name] = message
        self.reject(name, message)

    def reject(self, name: str, message: str) -> None:
        """Record why ``name``'s value was refused: said this turn, or — a slot that keeps
        rejected values while the flow asks for another — held until its own question comes
        up (``surface_held``)."""
        meta, slot, gaps = self.session.meta, self.service.slots.get(name), self.missing()
        if slot is not None and slot.spec.keep_rejected and name in gaps and gaps[0] != name:
            meta.setdefault("held_errors", {})[name] = message
        else:
            meta.setdefault("slot_errors", {})[name] = message
        self._changed()

    def surface_held(self) -> None:
        """A held rejection becomes this turn's error once its slot is the one asked; a slot
        filled since forgets it."""
        meta = self.session.meta
        held = meta.get("held_errors")
        if not held:
            return
        gaps = self.missing()
        for name in list(held):
            if name not in gaps:
                del held[name]
            elif gaps[0] == name:
                meta.setdefault("slot_errors", {})[name] = held.pop(name)
        if not held:
            del meta["held_errors"]
        self._changed()

    def clear_errors(self, *, unclear: str | None = None) -> None:
        """A new turn's errors start empty; ``unclear`` when the message was not understood."""
        meta = self.session.meta
        meta["slot_errors"] = {"_unclear": unclear} if unclear else {}
        meta.pop("corrected", None)
        self._changed()

    def correct(self, name: str, old: Any, new: Any) -> None:
        """A filled slot takes a new value; ``meta.corrected`` says which, and what it was."""
        self.session.slots[name] = new
        self.session.meta.setdefault("corrected", {})[name] = old
        self._changed()

    def hold_correction(self, name: str, old: Any, new: Any) -> None:
        """A new value for a filled slot waits for the user's yes (``meta.correction``: the
        first slot's ``slot``, ``old``, ``new``; ``slots``: every slot this message changes,
        slot -> {old, new}, confirmed together)."""
        hold_correction(self.session.meta, name, old, new)
        self._changed()

    def show_correction(self, correction: dict[str, Any] | None) -> None:
        """``meta.correction`` for a message about it after it was answered (None: gone)."""
        if correction is None:
            self.session.meta.pop("correction", None)
        else:
            self.session.meta["correction"] = correction
        self._changed()

    def await_answer(self, kind: Literal["continue", "correction"] | None) -> None:
        """The flow asks a question of a pattern's own (None: it was answered)."""
        meta = self.session.meta
        if kind is None:
            meta.pop("awaiting", None)
            meta.pop("correction", None)
        else:
            meta["awaiting"] = kind
        self._changed()

    def count_filling(self) -> None:
        self.session.filling_turns += 1
        self._changed()

    def move(self, stage: str) -> None:
        self.session.stage = stage
        self._changed()

    def set_result(self, result: Any) -> None:
        self.result = result
        self._changed()

    def set_agent_output(self, agent: str, output: Any) -> None:
        self.agents[agent] = output
        self._changed()

    def set_retrieved(self, name: str, hits: list[dict[str, Any]]) -> None:
        self.retrieved[name] = hits
        self._changed()

    def set_loop(self, **values: Any) -> None:
        self.loop = {**self.loop, **values}
        self._changed()


class View:
    """The names templates see, built on first use and kept until the turn changes."""

    __slots__ = ("_turn", "_fill_turns", "_ask", "_view", "_constants", "_constants_key")

    def __init__(self, turn: TurnState, fill_turns: Callable[[int | None], int],
                 ask: Callable[[str], str]) -> None:
        self._turn, self._fill_turns, self._ask = turn, fill_turns, ask
        self._view: dict[str, Any] | None = None
        self._constants: dict[str, Any] = {}
        self._constants_key: tuple[str, Intent] | None = None

    def get(self) -> dict[str, Any]:
        if self._view is None:
            self._view = {**self._turn_constants(), **self._state_view()}
        return self._view

    def stale(self) -> None:
        self._view = None

    def _state_view(self) -> dict[str, Any]:
        turn = self._turn
        state, meta = turn.session, turn.session.meta
        total = meta.get("batch_total") or 1
        index = meta.get("batch_progress", 0) + 1
        counts = dict.fromkeys(turn.flow.terminal_stages, 0)
        counts.update(meta.get("batch_counts", {}))
        return {
            "slots": turn.all_slots(), "missing": turn.missing(),
            "errors": meta.get("slot_errors", {}), "meta": {**META_DEFAULTS, **meta},
            "filling_turns": state.filling_turns,
            "batch": {"index": index, "total": total, "remaining": len(state.task_queue),
                      "counts": counts},
            "progress": f" ({index}/{total})" if total > 1 else "",
            "stage": state.stage, "result": turn.result, "agents": dict(turn.agents),
            "retrieved": dict(turn.retrieved),
            "loop": dict(turn.loop),
        }

    def _turn_constants(self) -> dict[str, Any]:
        """The part of the view that changes only when routing picks a flow or an intent."""
        turn = self._turn
        key = (turn.flow.name, turn.intent)
        if self._constants_key != key:
            self._constants_key = key
            self._constants = {
                **GLOBALS, "max_fill_turns": self._fill_turns(turn.flow.max_fill_turns),
                "turn": {"message": turn.message, "intent": turn.intent.name,
                         "confidence": turn.intent.confidence},
                "flow": turn.flow.name, "completed": turn.session.done,
                "summary": turn.session.summary_text, "ask": self._ask, "value": None,
                "today": turn.now.date().isoformat(),
                "now": turn.now.isoformat(timespec="seconds"),
                "context": turn.context,
            }
        return self._constants


class BatchQueue:
    """Several tasks from one message ("엄마한테 만원, 용걸이한테 5만원"): the
    first runs now, the others wait in the session and are confirmed one by one."""

    __slots__ = ("_turn",)

    def __init__(self, turn: TurnState) -> None:
        self._turn = turn

    def start(self, tasks: list[QueuedTask]) -> None:
        session = self._turn.session
        session.task_queue = [dict(t) for t in tasks[1:]]
        session.meta["batch_total"], session.meta["batch_progress"] = len(tasks), 0
        self._turn._changed()

    def count_outcome(self, stage: str) -> None:
        """A task ended in terminal ``stage``: the summary counts them by stage;
        ``batch_executed`` counts those whose irreversible action ran and ``last_cancelled``
        says whether this one was cancelled (it ended where ``cancel`` leads)."""
        turn = self._turn
        meta = turn.session.meta
        counts = meta.setdefault("batch_counts", {})
        counts[stage] = counts.get(stage, 0) + 1
        if any(entry["status"] == "done" for entry in turn.session.journal.values()):
            meta["batch_executed"] = meta.get("batch_executed", 0) + 1
        meta["last_cancelled"] = any(edge.trigger == "cancel" and edge.dest == stage
                                     for edge in turn.flow.machine.edges)
        turn._changed()

    def next_task(self) -> QueuedTask | None:
        """Load the next queued task (its values still to be validated), or end the flow."""
        turn = self._turn
        session = turn.session
        turn.result = None
        turn._changed()
        if not session.task_queue:
            turn.finish()
            return None
        session.meta["batch_progress"] = session.meta.get("batch_progress", 0) + 1
        session.start_task(turn.flow.name, turn.flow.initial, turn.flow.fresh,
                           dict(turn.flow.initial_values))
        return session.task_queue.pop(0)


__all__ = ["BatchQueue", "TurnState", "hold_correction", "missing"]
