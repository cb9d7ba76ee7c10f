"""The OpenAI and Anthropic providers, with their real SDKs, against the fake wire servers."""

from __future__ import annotations

import pytest

from engine.errors import ProviderError
from engine.providers.base import (
    ChatMessage,
    ChatRequest,
    Finished,
    Provider,
    ProviderSettings,
    TextDelta,
)
from engine.providers.reliability import complete_reliably, record_of, stream_reliably
from engine.providers.tools import BUILTIN_TOOLS, run_tool_loop
from tests.fakes.llm_servers import FakeLLMServer, FakeReply, FakeToolCall

from .conftest import RecordingSleep, model_for

HELLO = ChatRequest(system="You are terse.", messages=(ChatMessage("user", "hello"),))


async def test_plain_completion(vendor: Provider, server: FakeLLMServer) -> None:
    server.enqueue(FakeReply(text="Hi! How can I help?", input_tokens=11, output_tokens=6))

    completion = await vendor.complete(HELLO, model_for(vendor))

    assert completion.text == "Hi! How can I help?"
    assert completion.tool_calls == ()
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (11, 6)
    assert len(server.requests) == 1


async def test_stream_yields_tokens_incrementally(vendor: Provider, server: FakeLLMServer) -> None:
    reply = "엄마한테 만원을 보낼까요? Shall I send it now"
    server.enqueue(FakeReply(text=reply, token_interval_sec=0.05, output_tokens=9))

    deltas: list[str] = []
    finished: list[Finished] = []
    sent_before_first: int | None = None  # whole streams the server had sent by then
    async for event in vendor.stream(HELLO, model_for(vendor)):
        if isinstance(event, TextDelta):
            if sent_before_first is None:
                sent_before_first = server.streams_sent
            deltas.append(event.text)
        else:
            finished.append(event)

    assert len(deltas) > 1
    assert "".join(deltas) == reply
    assert sent_before_first == 0  # the first token came while the reply was still streaming
    assert len(finished) == 1
    assert finished[0].completion.text == reply
    assert finished[0].completion.usage.output_tokens == 9
    assert server.requests[0].stream


async def test_stream_collects_tool_calls(vendor: Provider, server: FakeLLMServer) -> None:
    call = FakeToolCall("calculator", {"expression": "10000 * 3"}, id="call_a")
    server.enqueue(FakeReply(text="Let me compute.", tool_calls=(call,)))

    events = [event async for event in vendor.stream(HELLO, model_for(vendor))]

    completion = events[-1].completion  # type: ignore[union-attr]
    assert [c.name for c in completion.tool_calls] == ["calculator"]
    assert completion.tool_calls[0].arguments == {"expression": "10000 * 3"}
    assert completion.tool_calls[0].id == "call_a"


async def test_tool_loop_with_calculator(vendor: Provider, server: FakeLLMServer) -> None:
    server.enqueue(
        FakeReply(tool_calls=(FakeToolCall("calculator", {"expression": "(10000 + 5000) * 2"},
                                           id="call_1"),)),
        FakeReply(text="The total is 30000 won."),
    )
    request = ChatRequest(system="Use the calculator.",
                          messages=(ChatMessage("user", "(만원+5천원) 두 번이면?"),))

    completion, records = await run_tool_loop(vendor, request, model_for(vendor), BUILTIN_TOOLS,
                                              agent="math")

    assert completion.text == "The total is 30000 won."
    assert len(records) == 2 and all(r.error is None for r in records)
    second = server.requests[1].body
    assert "30000" in str(second["messages"])  # the tool result went back to the model


async def test_429_with_retry_after_then_success(vendor: Provider, server: FakeLLMServer,
                                                 sleep: RecordingSleep) -> None:
    server.enqueue(FakeReply.rate_limited(retry_after=2), FakeReply(text="ok"))

    completion, record = await complete_reliably(
        vendor, HELLO, model_for(vendor, max_retry=2, backoff_sec=0.1), agent="a", sleep=sleep)

    assert completion.text == "ok"
    assert record.retries == 1
    assert sleep.calls and sleep.calls[0] >= 2.0
    assert len(server.requests) == 2  # the SDK's own retries are off


async def test_rate_limit_error_carries_retry_after(vendor: Provider,
                                                    server: FakeLLMServer) -> None:
    server.enqueue(FakeReply.rate_limited(retry_after=1.5))

    with pytest.raises(ProviderError) as caught:
        await vendor.complete(HELLO, model_for(vendor))

    assert (caught.value.kind, caught.value.retry_after, caught.value.status) == (
        "rate_limit", 1.5, 429)


async def test_500_until_max_retry_then_error(vendor: Provider, server: FakeLLMServer,
                                              sleep: RecordingSleep) -> None:
    server.enqueue(*[FakeReply.server_error()] * 3)

    with pytest.raises(ProviderError) as caught:
        await complete_reliably(vendor, HELLO, model_for(vendor, max_retry=2), agent="a",
                                sleep=sleep)

    assert caught.value.kind == "server" and caught.value.status == 500
    record = record_of(caught.value)
    assert record is not None and record.retries == 2 and record.error
    assert len(server.requests) == 3 and len(sleep.calls) == 2


@pytest.mark.parametrize("stream", [False, True])
async def test_timeout(vendor: Provider, server: FakeLLMServer, stream: bool) -> None:
    server.enqueue(FakeReply(text="too late", delay_sec=1.0))
    model = model_for(vendor, timeout_sec=0.15)

    with pytest.raises(ProviderError) as caught:
        if stream:
            _ = [e async for e in vendor.stream(HELLO, model)]
        else:
            await vendor.complete(HELLO, model)

    assert caught.value.kind == "timeout"
    assert caught.value.retryable


async def test_timeout_through_reliability_layer(vendor: Provider, server: FakeLLMServer) -> None:
    server.enqueue(FakeReply(text="too late", delay_sec=4.0))

    with pytest.raises(ProviderError) as caught:
        await complete_reliably(vendor, HELLO, model_for(vendor, timeout_sec=0.15), agent="a")

    assert caught.value.kind == "timeout"
    assert record_of(caught.value).elapsed_ms < 3000  # type: ignore[union-attr]


@pytest.mark.parametrize("reply", [
    FakeReply(raw_body="{not json"),
    FakeReply(tool_calls=(FakeToolCall("calculator", '{"expression": "1+'),)),
], ids=["bad-body", "bad-tool-arguments"])
async def test_malformed_response(vendor: Provider, server: FakeLLMServer,
                                  reply: FakeReply) -> None:
    server.enqueue(reply)  # Anthropic gets the string as `input`, which must be an object

    with pytest.raises(ProviderError) as caught:
        await vendor.complete(HELLO, model_for(vendor))

    assert caught.value.kind == "malformed"
    assert any(word in str(caught.value) for word in ("malformed", "invalid JSON", "not a JSON"))


@pytest.mark.parametrize("reply", [
    FakeReply(raw_body="event: message_start\ndata: {nope\n\n"),
    FakeReply(raw_body=""),
    FakeReply(tool_calls=(FakeToolCall("calculator", '{"expression": '),)),
], ids=["bad-sse-data", "empty-stream", "bad-tool-arguments"])
async def test_malformed_stream(vendor: Provider, server: FakeLLMServer, reply: FakeReply) -> None:
    server.enqueue(reply)

    with pytest.raises(ProviderError) as caught:
        _ = [e async for e in vendor.stream(HELLO, model_for(vendor))]

    assert caught.value.kind == "malformed"


@pytest.mark.parametrize("stream", [False, True])
async def test_truncated_body_is_a_connection_error(vendor: Provider, server: FakeLLMServer,
                                                    stream: bool) -> None:
    server.enqueue(FakeReply(text="one two three four five six seven", truncate=True))

    with pytest.raises(ProviderError) as caught:
        if stream:
            _ = [e async for e in vendor.stream(HELLO, model_for(vendor))]
        else:
            await vendor.complete(HELLO, model_for(vendor))

    assert caught.value.kind == "connection"


async def test_failure_after_first_token_is_not_retried(vendor: Provider, server: FakeLLMServer,
                                                        sleep: RecordingSleep) -> None:
    server.enqueue(FakeReply(text="one two three four five six seven", truncate=True),
                   FakeReply(text="should not be requested"))
    stream = stream_reliably(vendor, HELLO, model_for(vendor, max_retry=3), agent="a",
                             sleep=sleep)

    received: list[str] = []
    with pytest.raises(ProviderError):
        async for event in stream:
            if isinstance(event, TextDelta):
                received.append(event.text)

    assert received and sleep.calls == []
    assert len(server.requests) == 1
    assert stream.record is not None and stream.record.error


async def test_stream_retries_before_first_token(vendor: Provider, server: FakeLLMServer,
                                                 sleep: RecordingSleep) -> None:
    server.enqueue(FakeReply.server_error(503), FakeReply(text="recovered after a retry"))
    stream = stream_reliably(vendor, HELLO, model_for(vendor, max_retry=1), agent="chat",
                             sleep=sleep)

    text = "".join([e.text async for e in stream if isinstance(e, TextDelta)])

    assert text == "recovered after a retry"
    assert stream.record is not None
    assert stream.record.retries == 1 and stream.record.error is None
    assert stream.record.tokens_out > 0


@pytest.mark.parametrize("name", ["openai", "anthropic"])
async def test_connection_refused(name: str) -> None:
    from engine.providers.registry import build_provider

    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
           "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    provider = build_provider(name, env)
    try:
        with pytest.raises(ProviderError) as caught:
            await provider.complete(HELLO, model_for(provider))
    finally:
        await provider.aclose()  # type: ignore[attr-defined]

    assert caught.value.kind == "connection"
    assert "BASE_URL" in str(caught.value)


async def test_client_error_says_how_to_fix(vendor: Provider, server: FakeLLMServer) -> None:
    server.enqueue(FakeReply(status=401, error_message="invalid api key"))

    with pytest.raises(ProviderError) as caught:
        await vendor.complete(HELLO, model_for(vendor))

    assert caught.value.kind == "client" and not caught.value.retryable
    assert "API_KEY" in str(caught.value)


async def test_settings_object_is_injected() -> None:
    from engine.providers.anthropic import AnthropicProvider
    from engine.providers.openai import OpenAIProvider

    for cls in (OpenAIProvider, AnthropicProvider):
        provider = cls(ProviderSettings(api_key="k", base_url="http://127.0.0.1:1"))
        assert provider.supports_streaming and provider.supports_tools
        await provider.aclose()
