"""A turn's deadline (event-loop time) -> model calls that end by it, or a ``timeout`` error.

Every model call of a turn, with its retries, backoff sleeps and per-attempt timeouts, runs
inside the turn's one deadline (``turn_deadline_ms``, a few seconds by default). Past it
the call is given up with ``ProviderError(kind="timeout")``, and the turn answers from its
rules and templates like after any other provider failure. A stream is bounded event by
event (``next_within``), never by a timeout around a ``yield``, so the cancellation can
only ever hit the wait for the provider.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar

from engine.errors import ProviderError

T = TypeVar("T")
DEADLINE_ERROR = "turn deadline"


def deadline_in(ms: int) -> float:
    """The event loop's time ``ms`` milliseconds from now."""
    return asyncio.get_running_loop().time() + ms / 1000


def left(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (None: no deadline); 0 once it passed."""
    if deadline is None:
        return None
    return max(0.0, deadline - asyncio.get_running_loop().time())


def passed(provider: str) -> ProviderError:
    return ProviderError(f"{provider}: {DEADLINE_ERROR} reached; the turn answers without "
                         "the model (raise turn_deadline_ms if the model is slow)",
                         provider=provider, kind="timeout")


async def within(call: Awaitable[T], deadline: float | None, provider: str) -> T:
    """``await call``, given up at ``deadline``."""
    try:
        async with asyncio.timeout_at(deadline):
            return await call
    except TimeoutError:
        raise passed(provider) from None


async def next_within(events: AsyncIterator[T], deadline: float | None,
                      provider: str) -> T | None:
    """The next event of ``events`` (None at its end), given up at ``deadline``."""
    try:
        async with asyncio.timeout_at(deadline):
            return await anext(events)
    except StopAsyncIteration:
        return None
    except TimeoutError:
        raise passed(provider) from None


__all__ = ["DEADLINE_ERROR", "deadline_in", "left", "next_within", "passed", "within"]
