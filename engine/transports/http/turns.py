"""A message -> a turn running in its own task; its events -> a queue -> SSE frames to DONE.

Every turn runs in a task of its own and its events go to a queue that the response drains,
so a client that disconnects mid-turn never cuts a turn in half: it commits anyway, and
shutdown waits for the turns still running (``Turns.drain``).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import AsyncIterator, Coroutine, Mapping
from typing import Any, TypeVar

from sse_starlette import ServerSentEvent

from engine.observe.hub import Observers
from engine.runtime.conversation.outcomes import reporting_delivery
from engine.runtime.engine import plain_done
from engine.runtime.serving import TurnEngine
from engine.runtime.values.events import Done, Event
from engine.runtime.values.session import SessionState
from engine.transports.sse import frame

log = logging.getLogger("flowctl.http")
T = TypeVar("T")

__all__ = ["Turns", "sse_frames"]


class Turns:
    """Starts each turn as a task feeding a queue; a turn outlives the request that began it."""

    def __init__(self, engine: TurnEngine, observers: Observers | None = None) -> None:
        self.engine = engine
        self.observers = observers or Observers()
        self.running: set[asyncio.Task[Any]] = set()

    def start(self, session_id: str, message: str, *, owner: str | None = None,
              stream: str | None = None,
              context: Mapping[str, Any] | None = None) -> asyncio.Queue[Event | Exception]:
        """Begin a turn whose events (or the exception that stopped it) go to a queue;
        ``stream``: the SSE stream's id, under which the engine keeps the events."""
        queue: asyncio.Queue[Event | Exception] = asyncio.Queue()
        turn = self.engine.turn(session_id, message, owner=owner, stream=stream,
                                **_context(context))
        self._spawn(self._pump(turn, queue, self.observers))
        return queue

    async def reply(self, session_id: str, message: str, *, owner: str | None = None,
                    context: Mapping[str, Any] | None = None) -> Done:
        """The DONE of a turn; raises what the engine raised if it could not answer."""
        task = self._spawn(_done_of(self.engine.turn(session_id, message, owner=owner,
                                                     **_context(context)), self.observers))
        return await asyncio.shield(task)  # a request cancelled mid-turn leaves it running

    def _spawn(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        context = contextvars.copy_context()  # this transport reports each DONE's delivery
        context.run(reporting_delivery.set, True)
        task = asyncio.create_task(work, context=context)
        self.running.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self.running.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: whoever awaited it has logged it, or it is gone

    async def drain(self, timeout: float) -> None:
        if self.running:
            log.info("waiting for %d turn(s) to finish", len(self.running))
            await asyncio.wait(set(self.running), timeout=timeout)

    @staticmethod
    async def _pump(events: AsyncIterator[Event], queue: asyncio.Queue[Event | Exception],
                    observers: Observers) -> None:
        started = time.time_ns()
        try:
            async for event in events:
                queue.put_nowait(event)
                if isinstance(event, Done):
                    observers.finished(event, started)
        except Exception as err:  # the engine could not even answer (its store failed)
            queue.put_nowait(err)  # the consumer logs it: once, with its request



def _context(context: Mapping[str, Any] | None) -> dict[str, Any]:
    """``context=`` only when the request carried one: an engine wrapper written before
    request contexts (``turn(session_id, message, *, owner)``) keeps working."""
    return {} if context is None else {"context": context}

async def _done_of(events: AsyncIterator[Event], observers: Observers) -> Done:
    """The turn's DONE, once the turn has ended: left suspended at its DONE, the generator
    would keep the session locked until the event loop finalised it in a task of its own."""
    started = time.time_ns()
    done: Done | None = None
    async for event in events:
        if isinstance(event, Done):
            observers.finished(event, started)
            done = event
    if done is None:
        raise RuntimeError("the turn ended without its DONE")
    return done


async def sse_frames(engine: TurnEngine, queue: asyncio.Queue[Event | Exception],
                     stream_id: str) -> AsyncIterator[ServerSentEvent]:
    """Drain a turn's queue as SSE frames up to DONE; leaving early leaves the turn running.

    If the engine raised instead of answering, the stream still ends with a DONE: the
    engine's own failure DONE (``plain_done``), with the stream's id as its turn id.
    """
    started = time.perf_counter()
    index = 0
    while True:
        item = await queue.get()
        if isinstance(item, Exception):
            log.error("stream %s: turn failed before its DONE", stream_id, exc_info=item)
            item = plain_done(engine.text("turn_failed"), SessionState(), engine.service,
                              stream_id, started, error="turn_failed")
        yield frame(item, stream_id=stream_id, index=index)
        index += 1
        if isinstance(item, Done):
            # asked for more after the DONE was sent: the client was still there (one that
            # left closed the stream, and this generator with it)
            if item.delivered is not None:
                await item.delivered()
            return
