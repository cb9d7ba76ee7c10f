"""(session_id, message) -> async stream of Events, DONE last; the session saved atomically.

The engine owns what surrounds a turn: refusing empty or oversized messages, the session's
lock, loading the stored state, committing it with a version check, and turning any failure
into a DONE that tells the user something sensible while nothing is saved (the stored
session stays as it was before the turn). ``turn.TurnRun`` does the turn's own work.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Protocol, cast

from engine.compiler.compiled import CompiledService, secrets_of
from engine.compiler.filters import GLOBALS
from engine.config import Settings
from engine.runtime.calls.actions import ActionStub
from engine.runtime.calls.failures import failure_kind
from engine.runtime.calls.folding import BackgroundFolds
from engine.runtime.calls.mcp import McpHub, load_mcp_config
from engine.runtime.calls.memory import MemoryPolicy
from engine.runtime.calls.models import ModelPool
from engine.runtime.calls.toolbox import ToolBox
from engine.runtime.conversation.outcomes import kept_despite, reporting_delivery
from engine.runtime.serving import About, last_done
from engine.runtime.turn.drive import drive
from engine.runtime.turn.run import RunHost
from engine.runtime.turn.snapshot import snapshot
from engine.runtime.turn_run import TurnRun, ms
from engine.runtime.understanding.llm import LlmUnderstanding
from engine.runtime.values.admission import (
    Refusal,
    TurnRate,
    admission,
    caller_of,
    clean_text,
    hides_in_words,
    rate_refusal,
)
from engine.runtime.values.events import Done, Event, Trace, UiHint, wire
from engine.runtime.values.session import SessionState, StreamLog, Untold, replayed
from engine.store.base import SessionStore, has_pending
from engine.texts import text

log = logging.getLogger("flowctl.turn")
Clock = Callable[[], dt.datetime]


def system_clock() -> dt.datetime:
    return dt.datetime.now().astimezone()


class DoneListener(Protocol):
    """Told of each DONE an engine sends, once its turn was saved (``webhooks.FlowHooks``)."""

    def done(self, session_id: str, done: Done) -> None:
        """Take note of ``done``; returns at once (the turn waits for nothing)."""
        ...

    async def aclose(self) -> None:
        """Finish or give up what it was told."""
        ...


class Engine:
    """A compiled service bound to a store, settings and a clock; runs turns."""

    def __init__(self, service: CompiledService, *, store: SessionStore,
                 settings: Settings | None = None, clock: Clock = system_clock,
                 models: ModelPool | None = None,
                 stubs: Mapping[str, ActionStub] | None = None,
                 mcp: McpHub | None = None, listeners: Sequence[DoneListener] = ()) -> None:
        self.service = service
        self.about = About.of(service)
        self.listeners = tuple(listeners)
        """Told of every DONE this engine sends (the flow's webhooks, ``webhooks.py``)."""
        self.store = store
        self.settings = (settings or Settings()).with_flow_defaults(service.settings,
                                                                    service.memory)
        self.clock = clock
        self.models = models or ModelPool(service, self.settings.env)
        self.memory = MemoryPolicy.of(self.settings, service)
        self.rate = TurnRate(self.settings.turns_per_minute)
        """The turns a caller may start a minute (``FLOWCTL_TURNS_PER_MINUTE``)."""
        self.folds = BackgroundFolds()
        """Memory summaries written after a turn, applied by the session's next turn."""
        self.understanding = self.models.get(service.understanding_model)
        self.understanding_prompt = service.prompts.get(service.understanding_prompt or "")
        self.stubs: Mapping[str, ActionStub] = stubs or {}
        """Actions answered without running them (``flowctl test``'s per-conversation stubs)."""
        self.runs: RunHost | None = None
        """Hosts background runs (engine/runs, set by the HTTP server); None runs a
        background stage's steps inside the turn."""
        hub = mcp or McpHub(load_mcp_config(self.settings.env) if service.tools else {})
        self.tools = ToolBox(service, self.settings.env, hub, stubs=self.stubs)
        """Declared tools (HTTP, the operator's MCP servers) behind the gateway."""

    def turn(self, session_id: str, message: str, *, owner: str | None = None,
             stream: str | None = None, context: Mapping[str, Any] | None = None,
             understood: LlmUnderstanding | None = None) -> AsyncIterator[Event]:
        """Run one turn; yields progress events and always ends with ``Done`` (which every
        listener is told of as it passes: after the turn was saved).

        ``stream``: the id of the SSE stream that carries the turn; its events are then kept
        with the session (committed with the turn), so a client that lost the stream gets
        the rest from ``replay`` on any instance, and the turn never runs twice.

        ``owner`` is the caller's principal: a session belongs to the one that created it,
        and a turn of anyone else is refused (``Done.refusal.kind == "forbidden"``) without
        reading or changing it. A consumer that stops listening mid-turn (``aclose``) does
        not stop the turn: it finishes unseen and commits, so an action that already ran is
        always recorded. ``context`` is the request's context, checked against the
        service's ``context`` schema. A turn ``admit`` refuses (a bad context, an empty
        or over-long message) is a DONE carrying the ``Refusal``; transports ask ``admit``
        first and answer a refusal their own way.
        ``understood``: the message was already understood (an app's router made the turn's
        one LLM call); the turn uses it instead of making its own understanding call.
        """
        events = self._turn(session_id, message, owner=owner, stream=stream, context=context,
                            understood=understood)
        return self._telling(events, session_id) if self.listeners else events

    async def _telling(self, turn: AsyncIterator[Event], session_id: str
                       ) -> AsyncIterator[Event]:
        # closed here, not by the garbage collector: the session's lock is released the
        # moment a consumer that stopped listening closes this turn
        async with contextlib.aclosing(cast(AsyncGenerator[Event, None], turn)) as events:
            async for event in events:
                if isinstance(event, Done):
                    for listener in self.listeners:
                        listener.done(session_id, event)
                yield event

    async def _turn(self, session_id: str, message: str, *, owner: str | None,
                    stream: str | None, context: Mapping[str, Any] | None,
                    understood: LlmUnderstanding | None) -> AsyncIterator[Event]:
        started = time.perf_counter()
        turn_id = f"{random.getrandbits(32):08x}"  # a trace id, not a secret
        hidden = isinstance(message, str) and hides_in_words(message)  # never a yes
        message = clean_text(message) if isinstance(message, str) else ""
        refusal = self.admit(message, context)
        if refusal is None and (waiting := self.rate.take(caller_of(session_id, owner))):
            refusal = rate_refusal(waiting, self.text)
        sent_done = False
        try:
            if refusal is not None:
                sent_done = True
                yield await self.refused(session_id, refusal, owner, turn_id=turn_id,
                                         started=started)
                return
            busy = await self.runs.intercept(session_id, message, owner) if self.runs else None
            if busy is not None:  # a run holds the session: answered without waiting for it
                sent_done = True
                yield busy
                return
            async with self.store.lock(session_id):
                events = self._locked_turn(session_id, message, turn_id, started, owner,
                                           stream=stream, context=context,
                                           understood=understood, hidden=hidden)
                try:
                    async for event in events:
                        sent_done = isinstance(event, Done)
                        yield event
                except GeneratorExit:
                    async for _ in events:  # finish unseen; it commits
                        pass
                    raise
        except Exception as err:  # the store could not lock or load: still a DONE
            if sent_done:
                raise
            log.error("turn %s of session %s failed before it ran: %s: %s", turn_id,
                      session_id, type(err).__name__, err)
            yield plain_done(self.text("turn_failed"), SessionState(), self.service, turn_id,
                             started, error="turn_failed", kind=failure_kind(err))

    async def _locked_turn(self, session_id: str, message: str, turn_id: str,
                           started: float, owner: str | None,
                           stream: str | None = None,
                           context: Mapping[str, Any] | None = None,
                           understood: LlmUnderstanding | None = None,
                           hidden: bool = False) -> AsyncIterator[Event]:
        record = await self.store.load(session_id)
        session = SessionState.from_json(record.data if record else None)
        if record is not None and session.owner != owner:
            yield plain_done(self.text("not_yours"), SessionState(), self.service, turn_id,
                             started, refusal=Refusal("forbidden", self.text("not_yours")))
            return
        session.owner = owner
        run = TurnRun(self, session_id, message, turn_id, session,
                      version=record.version if record else 0, context=context,
                      understood=understood, hidden=hidden)
        sent: list[tuple[str, Any]] = []
        try:
            async for event in drive(run.execute(), run.outbox):
                if stream is not None:
                    sent.append(wire(event))
                yield event
            done = run.done(started)
            if run.settled and reporting_delivery.get():  # kept until the client has it
                session.untold = Untold(turn=turn_id, text=done.message)
                done = replace(done, delivered=partial(self.told, session_id, turn_id))
            if stream is not None:
                session.stream = StreamLog(id=stream, events=[*sent, wire(done)])
            if run.started is not None:  # the run reads the request's context as the turn did
                session.run_context = dict(context) if context else None
            await run.commit()
            if run.started is not None and self.runs is not None:
                await self.runs.begin(session_id, run.started, owner)
        except Exception as err:
            # one line for operators; the traceback when debugging (never to the user)
            log.error("turn %s of session %s failed: %s: %s", turn_id, session_id,
                      type(err).__name__, err, exc_info=log.isEnabledFor(logging.DEBUG))
            record = await self.store.load(session_id)  # the turn mutated its copy
            before = SessionState.from_json(record.data if record else None)
            done = plain_done(self.text("turn_failed"), before, self.service, turn_id,
                              started, error="turn_failed", kind=failure_kind(err))
            done = await self._keep_outcome(run, before, done) or done
        yield done

    async def _keep_outcome(self, run: TurnRun, before: SessionState, failed: Done
                            ) -> Done | None:
        """A turn that failed after an irreversible action settled in it still records the
        outcome and says it (``outcomes.kept_despite``); None when nothing settled, or when
        even that cannot be written (the failure's DONE stands, the journal stays pending
        and the next turn settles it)."""
        kept = kept_despite(run, before)
        if kept is None:
            return None
        say, record = kept
        done = replace(failed, message=say, state_snapshot=snapshot(before, None,
                                                                     self.service.sensitive))
        if reporting_delivery.get():
            before.untold = Untold(turn=run.turn_id, text=say)
            done = replace(done, delivered=partial(self.told, run.session_id, run.turn_id))
        try:
            await self.store.commit(run.session_id, before.to_json(),
                                    expected_version=run.version, completed=[record])
        except Exception as err:
            log.error("turn %s of session %s: its outcome could not be kept either: %s: %s",
                      run.turn_id, run.session_id, type(err).__name__, err)
            return None
        return done

    async def told(self, session_id: str, turn_id: str) -> None:
        """Turn ``turn_id``'s DONE reached its client: its outcome need not be told again."""
        async with self.store.lock(session_id):
            record = await self.store.load(session_id)
            untold = record.data.get("untold") if record is not None else None
            if record is None or not untold or untold.get("turn") != turn_id:
                return  # told already (by the session's next turn), or forgotten
            data = {k: v for k, v in record.data.items() if k != "untold"}
            await self.store.commit(session_id, data, expected_version=record.version)

    async def replay(self, session_id: str, stream: str, after: int, *,
                     owner: str | None = None) -> list[tuple[int, str, Any]]:
        """The events of ``stream`` after its ``after``-th, as (index, name, payload), once
        its turn has finished (the turn holds the session's lock, so this waits for it, on
        any instance); [] when the session is not ``owner``'s or its last stream is another."""
        async with self.store.lock(session_id):
            record = await self.store.load(session_id)
        if record is None or record.data.get("owner") != owner:
            return []
        return replayed(record.data.get("stream"), stream, after)

    async def finish_pending(self, session_id: str) -> Done | None:
        """Finish the irreversible action a dead process left pending in ``session_id`` (as
        the session's next turn would), with nobody listening; None when nothing was."""
        async with self.store.lock(session_id):
            record = await self.store.load(session_id)
            if record is None or not has_pending(record.data):
                return None
            owner = record.data.get("owner")
            done = None
            async for event in self._locked_turn(session_id, "", "startup",
                                                 time.perf_counter(), owner):
                done = event if isinstance(event, Done) else done
            return done

    async def finish_all_pending(self) -> int:
        """``finish_pending`` for every session a dead process left pending (at start-up)."""
        finished = 0
        for session_id in await self.store.pending_sessions():
            try:
                finished += await self.finish_pending(session_id) is not None
            except Exception as err:  # one bad session must not stop the server starting
                log.error("could not finish the pending action of session %s: %s: %s",
                          session_id, type(err).__name__, err)
        return finished

    async def delete(self, session_id: str, owner: str | None) -> bool:
        """Forget ``session_id`` and its completed tasks, if ``owner`` may; False otherwise
        (also when there is no such session)."""
        async with self.store.lock(session_id):
            if not await self.may_use(session_id, owner):
                return False
            return await self.store.delete(session_id)

    async def may_use(self, session_id: str, owner: str | None) -> bool:
        """Whether ``owner`` may read or act in ``session_id`` (a new session: anyone)."""
        record = await self.store.load(session_id)
        return record is None or record.data.get("owner") == owner

    async def aclose(self) -> None:
        """Close the providers' HTTP clients (the store belongs to the caller) and stop the
        MCP servers started over stdio; a summary still being written is given up (the next
        turn folds again); the listeners finish what they were told."""
        await self.folds.aclose()
        await self.models.close()
        await self.tools.hub.aclose()
        for listener in self.listeners:
            await listener.aclose()

    async def prepare(self) -> None:
        """Start what a first turn would otherwise wait for: the operator's MCP servers the
        service's tools use (``ToolBox.prepare``). Never raises for a server that fails."""
        await self.tools.prepare()

    async def reply(self, session_id: str, message: str, *, owner: str | None = None,
                    context: Mapping[str, Any] | None = None) -> Done:
        """Run a turn and return only its ``Done``."""
        return await last_done(self.turn(session_id, message, owner=owner, context=context))

    def admit(self, message: str, context: Mapping[str, Any] | None = None, *,
              session_id: str | None = None, owner: str | None = None) -> Refusal | None:
        """Whether a turn of ``message`` may run (None), or why not: a ``context`` the
        service's schema refuses, an empty message, one over ``max_message_chars`` — each
        measured on the text understanding reads (``clean_text``) — or, given the
        ``session_id`` the turn will run in, a caller over its turns a minute (asked, not
        counted: the turn counts itself). Ownership is checked in the turn, under the
        session's lock."""
        caller = caller_of(session_id, owner) if session_id is not None else None
        return admission(message, context, self.service.context_schema, rate=self.rate,
                         caller=caller, limit=self.settings.max_message_chars, text=self.text)

    async def refused(self, session_id: str, refusal: Refusal, owner: str | None, *,
                      turn_id: str | None = None, started: float | None = None) -> Done:
        """The DONE of a turn refused before it ran: the refusal's text and the session as
        it is, untouched (a blank one when it is not ``owner``'s or the store cannot say)."""
        return await refusal_done(self.store, self.service, session_id, refusal, owner,
                                  turn_id=turn_id, started=started)

    def text(self, key: str, **values: Any) -> str:
        """A built-in text, or the service's message of the same name. Such a message sees
        only ``values`` (e.g. ``limit``); if it cannot render, the built-in text is used."""
        custom = self.service.messages.get(key)
        if custom is not None:
            try:
                return str(custom.render({**GLOBALS, **values}))
            except Exception as err:  # an author's template must never break the turn
                log.warning("message %s failed to render (%s); using the built-in text", key,
                            err)
        return text(self.service.locale, key, **values)


async def refusal_done(store: SessionStore, service: CompiledService, session_id: str,
                       refusal: Refusal, owner: str | None, *, turn_id: str | None = None,
                       started: float | None = None) -> Done:
    """``Engine.refused`` over ``store``, the snapshot drawn with ``service``."""
    try:
        record = await store.load(session_id)
        state = SessionState.from_json(record.data if record else None)
    except Exception as err:
        log.warning("session %s not loaded for a refusal: %s", session_id, err)
        state = SessionState()
    if state.owner != owner:
        state = SessionState()
    asked = _still_asked(state, service)
    return plain_done(f"{refusal.text} {asked}" if asked else refusal.text, state, service,
                      turn_id or f"{random.getrandbits(32):08x}",
                      started or time.perf_counter(), refusal=refusal)


def _still_asked(state: SessionState, service: CompiledService) -> str | None:
    """What the last answer asked, while its flow waits for an answer: a refused message
    ("메시지가 너무 길어요 …") says it again, so the question is not lost (never an answer
    holding a sensitive value)."""
    flow = service.flows.get(state.flow or "")
    said = next((m.get("content") for m in reversed(state.raw_history)
                 if m.get("role") == "assistant"), None) if flow is not None and \
        flow.in_progress(state.stage) else None
    secrets = secrets_of(state.slots, service.sensitive)
    return said if said and not any(s in said for s in secrets) else None


def plain_done(message: str, state: SessionState, service: CompiledService, turn_id: str,
               started: float, *, error: str | None = None, kind: str | None = None,
               tags: list[str] | None = None, refusal: Refusal | None = None) -> Done:
    """A DONE for a turn that did no work: a refusal (its error and tags in ``_trace``), or
    a failure (``error``: ``turn_failed``, as ``_trace.error``; ``kind``: what failed, as
    ``_trace.error_kind`` (``failures.KINDS``); ``tags``: its failure tags)."""
    flow = service.flows.get(state.flow or "")
    stage = flow.stages.get(state.stage or "") if flow else None
    trace = Trace(turn_id=turn_id, total_elapsed_ms=ms(started), agents=[])
    if refusal is not None:
        error, tags = error or refusal.error, tags or refusal.tags or None
    if error:
        trace["error"] = error
    if kind:
        trace["error_kind"] = kind
    if tags:
        trace["failure_tags"] = tags
    return Done(message=message, next_action=stage.next_action if stage else "ASK",
                ui_hint=UiHint(buttons=list(stage.buttons) if stage else []),
                state_snapshot=snapshot(state, flow, service.sensitive), trace=trace,
                refusal=refusal)


__all__ = ["Clock", "DoneListener", "Engine", "RunHost", "clean_text", "plain_done", "refusal_done",
           "system_clock"]
