"""Retries, backoff, timeouts, streaming retries, circuit breaker and fallback."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from engine.errors import ProviderError
from engine.providers.base import (
    ChatMessage,
    ChatRequest,
    Completion,
    ModelConfig,
    StreamEvent,
    TextDelta,
)
from engine.providers.reliability import (
    Candidate,
    CircuitBreaker,
    complete_reliably,
    complete_with_fallback,
    record_of,
    retry_delay,
    stream_reliably,
)
from engine.providers.scripted import ScriptedProvider

from .conftest import RecordingSleep

REQUEST = ChatRequest(system="", messages=(ChatMessage("user", "hi"),))


def model(**overrides: object) -> ModelConfig:
    return ModelConfig("scripted", "script", **overrides)  # type: ignore[arg-type]


def half() -> float:
    return 0.5


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_exponential_backoff_with_jitter(sleep: RecordingSleep) -> None:
    provider = ScriptedProvider([{"error": "server"}] * 3 + ["ok"])

    completion, record = await complete_reliably(
        provider, REQUEST, model(max_retry=3, backoff_sec=0.5), agent="a", sleep=sleep, rng=half)

    assert completion.text == "ok"
    assert sleep.calls == [0.5625, 1.125, 2.25]  # 0.5 * 2**n * (1 + 0.25 * 0.5)
    assert record.retries == 3 and record.error is None


def test_retry_delay_uses_the_longer_of_backoff_and_retry_after() -> None:
    error = ProviderError("x", provider="p", kind="rate_limit", retry_after=3.0)
    assert retry_delay(model(backoff_sec=0.1), 0, error, half) == 3.0
    assert retry_delay(model(backoff_sec=4.0), 0, error, half) == 4.5


async def test_retry_after_longer_than_max_wait_gives_up(sleep: RecordingSleep) -> None:
    provider = ScriptedProvider([{"error": "rate_limit", "retry_after": 120}, "ok"])

    with pytest.raises(ProviderError) as caught:
        await complete_reliably(provider, REQUEST, model(), agent="a", sleep=sleep,
                                max_wait_sec=30)

    assert caught.value.kind == "rate_limit" and sleep.calls == []


async def test_delays_are_capped(sleep: RecordingSleep) -> None:
    provider = ScriptedProvider([{"error": "connection"}] * 2 + ["ok"])

    await complete_reliably(provider, REQUEST, model(max_retry=2, backoff_sec=10), agent="a",
                            sleep=sleep, rng=half, max_wait_sec=15)

    assert sleep.calls == [11.25, 15]


@pytest.mark.parametrize("kind", ["client", "malformed"])
async def test_non_retryable_errors_fail_at_once(kind: str, sleep: RecordingSleep) -> None:
    provider = ScriptedProvider([{"error": kind}, "ok"])

    with pytest.raises(ProviderError) as caught:
        await complete_reliably(provider, REQUEST, model(max_retry=3), agent="intent",
                                sleep=sleep)

    record = record_of(caught.value)
    assert record is not None and record.retries == 0 and sleep.calls == []
    assert record.agent == "intent" and record.error and record.error.startswith(kind)


async def test_each_attempt_is_bounded_by_timeout_sec(sleep: RecordingSleep) -> None:
    provider = ScriptedProvider([{"reply": "slow", "delay_ms": 10_000}, "fast"])

    completion, record = await complete_reliably(
        provider, REQUEST, model(timeout_sec=0.05, max_retry=1), agent="a", sleep=sleep)

    assert completion.text == "fast" and record.retries == 1
    assert record.elapsed_ms < 5000  # not the 10 s the first attempt would take


async def test_record_counts_tokens_and_time() -> None:
    clock = Clock()
    provider = ScriptedProvider(["four words of reply"])

    async def tick(seconds: float) -> None:
        clock.now += seconds

    original = provider.complete

    async def timed(request: ChatRequest, config: ModelConfig) -> Completion:
        clock.now += 0.25
        return await original(request, config)

    provider.complete = timed  # type: ignore[method-assign]
    completion, record = await complete_reliably(provider, REQUEST, model(), agent="chat",
                                                 sleep=tick, clock=clock)

    assert (record.provider, record.model, record.agent) == ("scripted", "script", "chat")
    assert record.elapsed_ms == 250
    assert (record.tokens_in, record.tokens_out) == (
        completion.usage.input_tokens, completion.usage.output_tokens)
    assert record.tokens_out == 5 and not record.fallback


async def test_stream_retries_until_the_first_token(sleep: RecordingSleep) -> None:
    provider = ScriptedProvider([{"error": "timeout"}, "streamed reply"])
    stream = stream_reliably(provider, REQUEST, model(max_retry=2), agent="chat", sleep=sleep)
    assert stream.record is None

    events = [event async for event in stream]

    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "streamed reply"
    assert stream.record is not None and stream.record.retries == 1
    assert stream.record.tokens_out > 0 and stream.record.error is None


async def test_stream_idle_timeout_after_first_token_is_raised_not_retried(
        sleep: RecordingSleep) -> None:
    provider = ScriptedProvider([{"reply": "a long reply", "interval_ms": 2000}, "unused"],
                                chunk_chars=2)
    stream = stream_reliably(provider, REQUEST, model(max_retry=3, timeout_sec=0.05),
                             agent="chat", sleep=sleep)

    received = []
    with pytest.raises(ProviderError) as caught:
        async for event in stream:
            received.append(event)

    assert caught.value.kind == "timeout"
    assert received == [TextDelta("a ")] and sleep.calls == []
    assert provider.remaining == 1
    assert stream.record is not None and stream.record.error and stream.record.retries == 0
    assert record_of(caught.value) is stream.record


async def test_stream_closed_early_still_sets_the_record() -> None:
    provider = ScriptedProvider(["one two three"], chunk_chars=3)

    async with stream_reliably(provider, REQUEST, model(), agent="chat") as stream:
        async for _ in stream:
            break
        assert stream.record is None

    assert stream.record is not None and stream.record.error is None


async def test_stream_of_a_non_streaming_provider() -> None:
    provider = ScriptedProvider(["whole answer"])
    provider.supports_streaming = False  # type: ignore[misc]

    events = [event async for event in stream_reliably(provider, REQUEST, model(), agent="a")]

    assert events[0] == TextDelta("whole answer")
    assert events[-1].completion.text == "whole answer"  # type: ignore[union-attr]


class NoFinish:
    name = "broken"
    supports_streaming = True
    supports_tools = False

    async def complete(self, request: ChatRequest, config: ModelConfig) -> Completion:
        raise AssertionError("not used")

    async def stream(self, request: ChatRequest, config: ModelConfig) -> AsyncIterator[StreamEvent]:
        yield TextDelta("partial")


async def test_stream_without_finished_is_malformed() -> None:
    with pytest.raises(ProviderError) as caught:
        _ = [e async for e in stream_reliably(NoFinish(), REQUEST, model(), agent="a")]
    assert caught.value.kind == "malformed"


def test_circuit_breaker_opens_cools_down_and_closes() -> None:
    clock = Clock()
    breaker = CircuitBreaker(threshold=2, cooldown_sec=30, clock=clock)

    breaker.failure()
    assert breaker.state == "closed" and breaker.allow()
    breaker.failure()
    assert breaker.state == "open" and not breaker.allow() and breaker.remaining() == 30

    clock.now += 30
    assert breaker.state == "half_open" and breaker.allow()
    breaker.failure()  # the trial failed: open again for a full cooldown
    assert breaker.state == "open" and breaker.remaining() == 30

    clock.now += 31
    breaker.success()
    assert breaker.state == "closed" and breaker.failures == 0


def test_circuit_breaker_success_resets_the_count() -> None:
    breaker = CircuitBreaker(threshold=2, clock=Clock())
    breaker.failure()
    breaker.success()
    breaker.failure()
    assert breaker.state == "closed"
    with pytest.raises(ValueError):
        CircuitBreaker(threshold=0)


async def test_fallback_skips_an_open_circuit(sleep: RecordingSleep) -> None:
    clock = Clock()
    primary = ScriptedProvider([{"error": "server", "repeat": True}], name="primary")
    backup = ScriptedProvider([{"reply": "from backup", "repeat": True}], name="backup")
    breaker = CircuitBreaker(threshold=2, cooldown_sec=60, clock=clock)
    candidates = [Candidate(primary, model(max_retry=0), breaker), Candidate(backup, model())]

    for _ in range(3):
        completion, records = await complete_with_fallback(candidates, REQUEST, agent="a",
                                                           sleep=sleep)
        assert completion.text == "from backup"

    assert len(primary.requests) == 2  # the third call skipped it: circuit open
    assert [r.fallback for r in records] == [True]
    assert breaker.state == "open"


async def test_fallback_raises_the_last_error_with_all_records(sleep: RecordingSleep) -> None:
    first = ScriptedProvider([{"error": "server"}], name="first")
    second = ScriptedProvider([{"error": "timeout"}], name="second")
    candidates = [Candidate(first, model(max_retry=0)), Candidate(second, model(max_retry=0))]

    with pytest.raises(ProviderError) as caught:
        await complete_with_fallback(candidates, REQUEST, agent="a", sleep=sleep)

    assert caught.value.kind == "timeout"
    records = caught.value.records  # type: ignore[attr-defined]
    assert [(r.provider, r.fallback) for r in records] == [("first", False), ("second", True)]


async def test_fallback_all_circuits_open() -> None:
    clock = Clock()
    breaker = CircuitBreaker(threshold=1, cooldown_sec=10, clock=clock)
    breaker.failure()

    with pytest.raises(ProviderError, match="circuit breaker") as caught:
        await complete_with_fallback([Candidate(ScriptedProvider(["x"]), model(), breaker)],
                                     REQUEST, agent="a")

    assert caught.value.retry_after == 10 and caught.value.retryable
