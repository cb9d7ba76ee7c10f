"""A background run's work on the engine -> its events, then the DONE that ends it.

A run is the rest of the turn that asked for it: under the session's lock it loads the
session, checks it still waits for this run (``meta.run``), runs the background stage's
steps and settles wherever their triggers lead (terminal stages recorded as completed
tasks, as in any turn), and commits. ``cancelled`` is the same, with the runtime's
``cancel`` trigger fired at the stage instead of running its steps. The run's message is
the request of the turn that started it (its agents answer that); what the run says goes
into the session's history as the assistant's words.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from engine.runtime.conversation.unwind import unwind
from engine.runtime.engine import Engine
from engine.runtime.turn.drive import drive
from engine.runtime.turn_run import TurnRun
from engine.runtime.values.events import Done, Event
from engine.runtime.values.session import RunRef, SessionState


@dataclass(slots=True)
class Outcome:
    """How a run ended: its DONE (None when the session no longer waited for it) and
    whether it ended in a stage marked ``failed``."""

    done: Done | None = None
    failed: bool = False


async def run_stage(engine: Engine, session_id: str, ref: RunRef, outcome: Outcome,
                    *, cancel: bool = False) -> AsyncIterator[Event]:
    """The events of run ``ref`` (its DONE last, also kept in ``outcome``); nothing when
    the session has moved on. ``cancel``: fire ``cancel`` at the stage instead."""
    started = time.perf_counter()
    async with engine.store.lock(session_id):
        record = await engine.store.load(session_id)
        session = SessionState.from_json(record.data if record else None)
        if record is None or _waiting(session) != ref["id"]:
            return
        if cancel and session.pending():
            return  # an irreversible call's outcome comes first: the next turn settles it
        turn = TurnRun(engine, session_id, _asked(session), f"run-{ref['id'][:8]}", session,
                       version=record.version, context=session.run_context)
        turn.in_run = True
        turn.deadline = None  # a long run's later model calls are not bounded by its start
        turn.resumed = None if cancel else ref["stage"]
        flow = engine.service.flows[ref["flow"]]
        turn.state.enter(flow)
        async for event in drive(_settled(turn, outcome, cancel), turn.outbox):
            yield event
        if _waiting(session) == ref["id"]:
            session.meta.pop("run", None)  # a run that stays put (FL121) is over all the same
        if _waiting(session) is None:
            session.run_context = None
        done = turn.done(started)
        if done.message:
            session.raw_history.append({"role": "assistant", "content": done.message})
        await turn.commit()
        outcome.done = done
        yield done


async def _settled(turn: TurnRun, outcome: Outcome, cancel: bool) -> None:
    """The run's work: its stage's steps (or ``cancel``), and the flows waiting under it."""
    if not cancel or turn.fire("cancel"):
        await turn.settle(True)
    outcome.failed = _ended_failed(turn)
    await unwind(turn)


def _asked(session: SessionState) -> str:
    """The message of the turn that started the run (its agents answer it), from history."""
    said = (m["content"] for m in reversed(session.raw_history) if m.get("role") == "user")
    return next(said, "")


def _waiting(session: SessionState) -> str | None:
    """The id of the run the session waits for."""
    ref = session.meta.get("run")
    return ref["id"] if ref else None


def _ended_failed(turn: TurnRun) -> bool:
    """Whether the run ended in a stage marked ``failed`` (a task ended there, or it rests
    there)."""
    flow = turn.state.flow
    if turn.ended is not None:
        stage = flow.stages.get(str(turn.ended.get("outcome")))
        if stage is not None:
            return stage.failed
    return turn.state.stage.failed


__all__ = ["Outcome", "run_stage"]
