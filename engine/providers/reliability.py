"""Provider call -> (Completion, CallRecord) with timeouts, retries, backoff and a circuit breaker.

- ``complete_reliably`` bounds each attempt by ``model.timeout_sec``, retries retryable
  ``ProviderError``s (timeout, rate_limit, server, connection) up to ``model.max_retry``
  times, sleeping ``backoff_sec * 2**attempt`` plus up to 25 % jitter, or the server's
  ``Retry-After`` when that is longer. When it gives up, the last error is raised with the
  ``CallRecord`` attached as ``.record``.
- ``stream_reliably`` does the same for streams, but only until the first ``TextDelta``:
  once a token reached the user, a failure is raised, never retried (the text cannot be
  taken back). ``timeout_sec`` bounds the wait for each event, not the whole stream.
- ``CircuitBreaker`` opens after consecutive failures so callers skip a provider for a
  while; ``complete_with_fallback`` walks a list of candidates using them.

Sleep, randomness and clocks are injected so tests never wait.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass
from typing import Literal, TypeVar

from engine.errors import ProviderError
from engine.providers.base import (
    ChatRequest,
    Completion,
    Finished,
    ModelConfig,
    Provider,
    StreamEvent,
    TextDelta,
)

Sleep = Callable[[float], Awaitable[object]]
Rng = Callable[[], float]
Clock = Callable[[], float]
T = TypeVar("T")

JITTER = 0.25  # fraction of the exponential delay added at random
MAX_WAIT_SEC = 30.0  # never sleep longer than this between attempts


@dataclass
class CallRecord:
    """One logical LLM call (all its attempts), as the turn trace reports it."""

    agent: str
    provider: str
    model: str
    elapsed_ms: float = 0.0
    retries: int = 0
    error: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0
    fallback: bool = False


def record_of(error: BaseException) -> CallRecord | None:
    """The CallRecord attached to an error raised by this module, if any."""
    record = getattr(error, "record", None)
    return record if isinstance(record, CallRecord) else None


def retry_delay(model: ModelConfig, attempt: int, error: ProviderError, rng: Rng) -> float:
    """Seconds to wait before retry ``attempt`` (0-based): backoff with jitter, or Retry-After."""
    base = model.backoff_sec * 2**attempt
    return max(base * (1 + JITTER * rng()), error.retry_after or 0.0)


async def complete_reliably(
    provider: Provider,
    request: ChatRequest,
    model: ModelConfig,
    *,
    agent: str,
    sleep: Sleep = asyncio.sleep,
    rng: Rng = random.random,
    clock: Clock = time.perf_counter,
    max_wait_sec: float = MAX_WAIT_SEC,
) -> tuple[Completion, CallRecord]:
    """Call ``provider.complete`` with per-attempt timeout and retries.

    Example::

        completion, record = await complete_reliably(provider, request, model, agent="intent")
    """
    record = CallRecord(agent, provider.name, model.model)
    started = clock()
    attempt = 0
    while True:
        try:
            completion = await _bounded(provider.complete(request, model), model, provider.name)
        except ProviderError as exc:
            delay = _next_delay(exc, attempt, model, rng, max_wait_sec)
            if delay is None:
                _finish(exc, record, clock() - started)
                raise
            await sleep(delay)
            attempt += 1
            record.retries = attempt
            continue
        _account(record, completion, clock() - started)
        return completion, record


def _next_delay(error: ProviderError, attempt: int, model: ModelConfig, rng: Rng,
                max_wait_sec: float) -> float | None:
    """How long to wait before retrying, or None to give up."""
    if not error.retryable or attempt >= model.max_retry:
        return None
    if (error.retry_after or 0.0) > max_wait_sec:
        return None  # the server asks for a longer pause than a conversation turn can take
    return min(retry_delay(model, attempt, error, rng), max_wait_sec)


async def _bounded(call: Awaitable[T], model: ModelConfig, provider: str) -> T:
    try:
        async with asyncio.timeout(model.timeout_sec):
            return await call
    except TimeoutError as exc:
        raise _timeout(model, provider) from exc


def _timeout(model: ModelConfig, provider: str) -> ProviderError:
    return ProviderError(f"{provider}: no answer from {model.model} within "
                         f"{model.timeout_sec:g} s; {model.timeout_knob()} if the model is "
                         "slow",
                         provider=provider, kind="timeout")


def _account(record: CallRecord, completion: Completion, elapsed: float) -> None:
    record.elapsed_ms = elapsed * 1000
    record.error = None
    record.tokens_in = completion.usage.input_tokens
    record.tokens_out = completion.usage.output_tokens
    record.tokens_cached = completion.usage.cached_tokens


def _finish(error: ProviderError, record: CallRecord, elapsed: float) -> None:
    record.elapsed_ms = elapsed * 1000
    record.error = f"{error.kind}: {error}"
    error.record = record  # type: ignore[attr-defined]


class ReliableStream:
    """A provider stream with retries before the first token; iterate it once with ``async for``.

    ``record`` is None until the iteration ends: at the end of the stream, on an error, or
    when it is closed. Use ``async with`` when you may stop early (``break``, a client that
    went away): leaving the block closes the provider's HTTP stream and sets ``record``.

    Example::

        async with stream_reliably(provider, request, model, agent="chat") as stream:
            async for event in stream:
                ...
        print(stream.record.elapsed_ms)
    """

    def __init__(self, provider: Provider, request: ChatRequest, model: ModelConfig, *,
                 agent: str, sleep: Sleep, rng: Rng, clock: Clock, max_wait_sec: float) -> None:
        self.record: CallRecord | None = None
        self._provider, self._request, self._model = provider, request, model
        self._agent, self._sleep, self._rng, self._clock = agent, sleep, rng, clock
        self._max_wait_sec = max_wait_sec
        self._events: AsyncGenerator[StreamEvent, None] | None = None

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        if self._events is None:
            self._events = self._run()
        return self._events

    async def aclose(self) -> None:
        if self._events is not None:
            await self._events.aclose()

    async def __aenter__(self) -> ReliableStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def _run(self) -> AsyncGenerator[StreamEvent, None]:
        record = CallRecord(self._agent, self._provider.name, self._model.model)
        started = self._clock()
        try:
            async with aclosing(self._attempts(record)) as events:
                async for event in events:
                    yield event
        except ProviderError as exc:
            _finish(exc, record, self._clock() - started)
            raise
        finally:
            record.elapsed_ms = (self._clock() - started) * 1000
            self.record = record

    async def _attempts(self, record: CallRecord) -> AsyncGenerator[StreamEvent, None]:
        attempt = 0
        while True:
            started_text = False
            try:
                async with aclosing(self._one_attempt()) as events:
                    async for event in events:
                        started_text = started_text or isinstance(event, TextDelta)
                        if isinstance(event, Finished):
                            _account(record, event.completion, 0.0)
                        yield event
                return
            except ProviderError as exc:
                delay = _next_delay(exc, attempt, self._model, self._rng, self._max_wait_sec)
                if started_text or delay is None:
                    raise
                await self._sleep(delay)
                attempt += 1
                record.retries = attempt

    async def _one_attempt(self) -> AsyncGenerator[StreamEvent, None]:
        provider, model = self._provider, self._model
        if not provider.supports_streaming:
            completion = await _bounded(provider.complete(self._request, model), model,
                                        provider.name)
            if completion.text:
                yield TextDelta(completion.text)
            yield Finished(completion)
            return
        finished = False
        async with _closing(provider.stream(self._request, model)) as events:
            async with aclosing(_with_idle_timeout(events, model, provider.name)) as bounded:
                async for event in bounded:
                    finished = isinstance(event, Finished)
                    yield event
        if not finished:
            raise ProviderError(f"{provider.name}: the stream ended without a Finished event",
                                provider=provider.name, kind="malformed")


@asynccontextmanager
async def _closing(events: AsyncIterator[StreamEvent]) -> AsyncIterator[AsyncIterator[StreamEvent]]:
    """Like ``aclosing``, for iterators that may have no ``aclose`` (the protocol's minimum)."""
    try:
        yield events
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()


async def _with_idle_timeout(events: AsyncIterator[StreamEvent], model: ModelConfig,
                             provider: str) -> AsyncGenerator[StreamEvent, None]:
    """Re-yield ``events``, bounding the wait for each one by ``model.timeout_sec``."""
    while True:
        try:
            async with asyncio.timeout(model.timeout_sec):
                event = await anext(events)
        except StopAsyncIteration:
            return
        except TimeoutError as exc:
            raise _timeout(model, provider) from exc
        yield event


def stream_reliably(
    provider: Provider,
    request: ChatRequest,
    model: ModelConfig,
    *,
    agent: str,
    sleep: Sleep = asyncio.sleep,
    rng: Rng = random.random,
    clock: Clock = time.perf_counter,
    max_wait_sec: float = MAX_WAIT_SEC,
) -> ReliableStream:
    """Stream with retries until the first token; see ``ReliableStream``."""
    return ReliableStream(provider, request, model, agent=agent, sleep=sleep, rng=rng,
                          clock=clock, max_wait_sec=max_wait_sec)


BreakerState = Literal["closed", "open", "half_open"]


class CircuitBreaker:
    """Open after ``threshold`` consecutive failures; allow a trial call after ``cooldown_sec``.

    Example::

        breaker = CircuitBreaker(threshold=3, cooldown_sec=30)
        if breaker.allow():
            ...  # call, then breaker.success() or breaker.failure()
    """

    def __init__(self, *, threshold: int = 5, cooldown_sec: float = 30.0,
                 clock: Clock = time.monotonic) -> None:
        if threshold < 1:
            raise ValueError("CircuitBreaker threshold must be >= 1")
        self.threshold = threshold
        self.cooldown_sec = cooldown_sec
        self.failures = 0
        self._clock = clock
        self._opened_at: float | None = None

    @property
    def state(self) -> BreakerState:
        if self._opened_at is None:
            return "closed"
        return "half_open" if self.remaining() == 0 else "open"

    def remaining(self) -> float:
        """Seconds until a trial call is allowed (0 when closed or half-open)."""
        if self._opened_at is None:
            return 0.0
        return max(0.0, self._opened_at + self.cooldown_sec - self._clock())

    def allow(self) -> bool:
        return self.state != "open"

    def success(self) -> None:
        self.failures = 0
        self._opened_at = None

    def failure(self) -> None:
        self.failures += 1
        if self.failures >= self.threshold:
            self._opened_at = self._clock()  # a failed half-open trial re-opens it


@dataclass(frozen=True, slots=True)
class Candidate:
    """One provider + model to try, with its breaker (shared across calls by the caller)."""

    provider: Provider
    model: ModelConfig
    breaker: CircuitBreaker | None = None


async def complete_with_fallback(
    candidates: Sequence[Candidate],
    request: ChatRequest,
    *,
    agent: str,
    sleep: Sleep = asyncio.sleep,
    rng: Rng = random.random,
) -> tuple[Completion, list[CallRecord]]:
    """Try candidates in order, skipping open circuits; records after the first say ``fallback``.

    Raises the last ProviderError (with every record as ``.records``) when all fail.
    """
    records: list[CallRecord] = []
    last: ProviderError | None = None
    for index, candidate in enumerate(candidates):
        breaker = candidate.breaker
        if breaker is not None and not breaker.allow():
            continue
        try:
            completion, record = await complete_reliably(
                candidate.provider, request, candidate.model, agent=agent, sleep=sleep, rng=rng)
        except ProviderError as exc:
            last = exc
            _note(records, record_of(exc), index, breaker, ok=False)
            continue
        _note(records, record, index, breaker, ok=True)
        return completion, records
    error = last or _all_open(candidates)
    error.records = records  # type: ignore[attr-defined]
    raise error


def _note(records: list[CallRecord], record: CallRecord | None, index: int,
          breaker: CircuitBreaker | None, *, ok: bool) -> None:
    if record is not None:
        record.fallback = index > 0
        records.append(record)
    if breaker is not None and ok:
        breaker.success()
    elif breaker is not None:
        breaker.failure()


def _all_open(candidates: Sequence[Candidate]) -> ProviderError:
    names = ", ".join(c.provider.name for c in candidates) or "none configured"
    wait = min((c.breaker.remaining() for c in candidates if c.breaker), default=0.0)
    return ProviderError(f"every provider is paused by its circuit breaker ({names}); "
                         f"the first reopens in {wait:.1f} s", provider=names, kind="server",
                         retry_after=wait)
