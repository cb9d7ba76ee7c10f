"""A turn's work (plain coroutines that emit events into a list) -> the async stream of those
events, each sent as soon as the work next waits for I/O.

The turn's layers (route, understand, settle, steps, the flow stack) are coroutines, not a
chain of async generators: an event is appended to the turn's outbox where it happens and
travels through no layer on its way out. ``drive`` runs the work in the caller's own task,
step by step as asyncio's Task would, and hands the outbox over between steps. A turn that
never waits (rules settle it, the store is local) runs in one step and its events go out
together at its end; a turn that waits (a model streaming tokens, an HTTP action) sends
what it emitted before each wait, so tokens reach the user as they arrive.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine, Generator
from typing import Any

from engine.runtime.values.events import Event


class _Wait:
    """Hands what the work waits on (a future, or None for ``sleep(0)``) to the task."""

    __slots__ = ("awaited",)

    def __init__(self, awaited: Any) -> None:
        self.awaited = awaited

    def __await__(self) -> Generator[Any, None, None]:
        yield self.awaited


async def drive(work: Coroutine[Any, Any, None], outbox: list[Event]) -> AsyncIterator[Event]:
    """Run ``work`` to its end in this task, yielding what it appends to ``outbox``.

    An exception of the work propagates after the events it emitted before it; one thrown
    into the task while the work waits (a cancellation) is thrown into the work. A reader
    that stops early closes the work (it is never left suspended)."""
    thrown: BaseException | None = None
    try:
        while True:
            failed: BaseException | None = None
            finished = False
            try:
                awaited = work.send(None) if thrown is None else work.throw(thrown)
            except StopIteration:
                finished = True
            except BaseException as err:  # noqa: BLE001 - re-raised below, after the events
                failed = err
            thrown = None
            if outbox:
                events = outbox[:]
                outbox.clear()
                for event in events:
                    yield event
            if failed is not None:
                raise failed
            if finished:
                return
            try:
                await _Wait(awaited)
            except BaseException as err:  # noqa: BLE001 - the work decides what it means
                thrown = err
    finally:
        work.close()


__all__ = ["drive"]
