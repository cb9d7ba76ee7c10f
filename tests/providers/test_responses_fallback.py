"""A server without chat completions is reached through its Responses API.

The real ``openai`` SDK against a local wire-compatible server that answers 404 on
``/v1/chat/completions`` (as some OpenAI-compatible servers do) and serves ``/v1/responses``,
JSON and SSE: the 404 is paid once per provider, the answer, its tool calls, JSON and usage
come back as on the chat path, and only a 404 leads there.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from engine.errors import ProviderError
from engine.providers.base import (
    ChatMessage,
    ChatRequest,
    Completion,
    Finished,
    ModelConfig,
    TextDelta,
    ToolCall,
    Usage,
)
from engine.providers.jsonout import extract_json
from engine.providers.openai import OpenAIProvider
from engine.providers.registry import build_provider
from engine.providers.tools import BUILTIN_TOOLS, calculator, run_tool_loop
from tests.fakes.llm_servers import FakeLLMServer, FakeReply, FakeToolCall, RecordedRequest

CHAT, RESPONSES = "/v1/chat/completions", "/v1/responses"
MODEL = ModelConfig("openai", "fake-model", max_retry=0, timeout_sec=5.0)
HELLO = ChatRequest(system="You are terse.", messages=(ChatMessage("user", "hello"),))
SCHEMA = {"type": "object", "properties": {"action": {"type": "string"}},
          "required": ["action"], "additionalProperties": False}
ASK = ChatRequest(system="Classify.", messages=(ChatMessage("user", "5만원"),),
                  json_output=True, schema=SCHEMA, schema_name="reading")


# -- the fake server ------------------------------------------------------------------------

class ResponsesServer(FakeLLMServer):
    """The shared fake plus ``/v1/responses``; with ``chat_missing`` its chat completions
    answer 404 as a server without them does (counted in ``requests``, no reply used)."""

    def __init__(self) -> None:
        super().__init__()
        self.chat_missing = True

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def _app(self) -> Starlette:
        return Starlette(routes=[Route(CHAT, self._chat, methods=["POST"]),
                                 Route(RESPONSES, self._responses, methods=["POST"])])

    async def _chat(self, request: Request) -> Response:
        if not self.chat_missing:
            return await self._openai(request)
        with self._lock:
            self.requests.append(await _recorded(request))
        return JSONResponse({"detail": "Not Found"}, status_code=404)

    async def _responses(self, request: Request) -> Response:
        recorded = await _recorded(request)
        reply = self._next(recorded)
        if reply is None:
            reply = FakeReply(status=400, error_message="call server.enqueue(...)")
        if reply.status != 200:
            return JSONResponse({"error": {"message": reply.error_message,
                                           "type": "fake_error"}},
                                status_code=reply.status, headers=dict(reply.headers))
        if reply.raw_body is not None:
            kind = "text/event-stream" if recorded.stream else "application/json"
            return Response(reply.raw_body, media_type=kind)
        wire = _ResponsesWire(reply, recorded.body)
        if recorded.stream:
            return StreamingResponse(_each(wire.events()), media_type="text/event-stream")
        return JSONResponse(wire.response())


async def _recorded(request: Request) -> RecordedRequest:
    body = json.loads(await request.body())
    return RecordedRequest("openai", request.url.path, dict(request.headers), body)


async def _each(events: list[str]) -> AsyncIterator[str]:
    for event in events:
        yield event


def _sse(data: Mapping[str, object]) -> str:
    return f"event: {data['type']}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


class _ResponsesWire:
    """Renders a FakeReply as a Responses API response or its stream of events."""

    def __init__(self, reply: FakeReply, body: Mapping[str, object]) -> None:
        self.reply = reply
        self.model = str(body.get("model", "fake-model"))

    def _output(self) -> list[dict[str, object]]:
        output: list[dict[str, object]] = []
        if self.reply.text:
            output.append({"type": "message", "id": "msg_fake", "role": "assistant",
                           "status": "completed", "content": [
                               {"type": "output_text", "text": self.reply.text,
                                "annotations": []}]})
        output += [{"type": "function_call", "id": f"fc_{i}", "call_id": call.id or f"call_{i}",
                    "name": call.name, "arguments": call.arguments_json(),
                    "status": "completed"} for i, call in enumerate(self.reply.tool_calls)]
        return output

    def response(self) -> dict[str, object]:
        tokens_in = self.reply.input_tokens or 7
        tokens_out = self.reply.output_tokens or len(self.reply.pieces())
        usage = {"input_tokens": tokens_in, "output_tokens": tokens_out,
                 "total_tokens": tokens_in + tokens_out,
                 "input_tokens_details": {"cached_tokens": self.reply.cached_tokens},
                 "output_tokens_details": {"reasoning_tokens": 0}}
        return {"id": "resp_fake", "object": "response", "created_at": 0, "model": self.model,
                "status": "completed", "output": self._output(), "parallel_tool_calls": True,
                "tool_choice": "auto", "tools": [], "usage": usage}

    def events(self) -> list[str]:
        done = self.response()
        events = [{"type": "response.created",
                   "response": {**done, "status": "in_progress", "output": [], "usage": None}}]
        events += [{"type": "response.output_text.delta", "item_id": "msg_fake",
                    "output_index": 0, "content_index": 0, "delta": piece, "logprobs": []}
                   for piece in self.reply.pieces()]
        events.append({"type": "response.completed", "response": done})
        return [_sse({**event, "sequence_number": n}) for n, event in enumerate(events)]


@pytest.fixture(scope="module")
def running() -> Iterator[ResponsesServer]:
    with ResponsesServer() as server:
        yield server


@pytest.fixture
def fake(running: ResponsesServer) -> Iterator[ResponsesServer]:
    running.reset()
    running.chat_missing = True
    yield running
    running.reset()


@pytest.fixture
async def provider(fake: ResponsesServer) -> AsyncIterator[OpenAIProvider]:
    built = build_provider("openai", fake.env())
    assert isinstance(built, OpenAIProvider)
    yield built
    await built.aclose()


def body(fake: ResponsesServer, index: int = -1) -> dict[str, Any]:
    return dict(fake.requests[index].body)


async def streamed(provider: OpenAIProvider) -> tuple[list[str], Completion]:
    """The texts of a stream's deltas, and the completion its one last event carries."""
    events = [event async for event in provider.stream(HELLO, MODEL)]
    *deltas, last = events
    assert isinstance(last, Finished)
    return [d.text for d in deltas if isinstance(d, TextDelta)], last.completion


# -- the fallback ---------------------------------------------------------------------------

async def test_a_server_without_chat_completions_answers_through_responses(
        fake: ResponsesServer, provider: OpenAIProvider) -> None:
    fake.enqueue(FakeReply(text="first", input_tokens=11, output_tokens=2, cached_tokens=4),
                 "second", "third")

    texts = [(await provider.complete(HELLO, MODEL)) for _ in range(3)]

    assert [c.text for c in texts] == ["first", "second", "third"]
    assert texts[0].usage == Usage(11, 2, 4)
    assert fake.paths() == [CHAT, RESPONSES, RESPONSES, RESPONSES]  # one 404, then straight
    assert provider.api == "responses"


async def test_the_responses_request_carries_the_whole_conversation(
        fake: ResponsesServer, provider: OpenAIProvider) -> None:
    call = ToolCall("call_7", "calculator", {"expression": "2*3"})
    conversation = ChatRequest(system="You add.", tools=(calculator.spec,), messages=(
        ChatMessage("user", "2 times 3?"), ChatMessage("assistant", "", tool_calls=(call,)),
        ChatMessage("tool", "6", tool_call_id="call_7"), ChatMessage("assistant", "It is 6."),
        ChatMessage("user", "thanks")))
    fake.enqueue("ok")

    await provider.complete(conversation, ModelConfig("openai", "m", temperature=0.3,
                                                      max_tokens=77))

    sent = body(fake)
    assert sent["instructions"] == "You add."
    assert sent["input"] == [
        {"role": "user", "content": "2 times 3?"},
        {"type": "function_call", "call_id": "call_7", "name": "calculator",
         "arguments": '{"expression": "2*3"}'},
        {"type": "function_call_output", "call_id": "call_7", "output": "6"},
        {"role": "assistant", "content": "It is 6."},
        {"role": "user", "content": "thanks"},
    ]
    assert sent["tools"] == [{"type": "function", "name": "calculator",
                              "description": calculator.spec.description,
                              "parameters": dict(calculator.spec.parameters), "strict": False}]
    assert (sent["temperature"], sent["max_output_tokens"], sent["store"]) == (0.3, 77, False)
    assert "text" not in sent and "stream" not in sent


async def test_a_stream_falls_back_and_streams_the_responses_events(
        fake: ResponsesServer, provider: OpenAIProvider) -> None:
    fake.enqueue(FakeReply(text="one two three", output_tokens=3), FakeReply(text="again"))

    deltas, completion = await streamed(provider)
    _, again = await streamed(provider)

    assert deltas == ["one", " two", " three"]
    assert (completion.text, completion.usage.output_tokens) == ("one two three", 3)
    assert again.text == "again"
    assert fake.paths() == [CHAT, RESPONSES, RESPONSES]
    assert all(r.stream for r in fake.requests)


@pytest.mark.parametrize("stream, kind, said", [
    ('data: {"type": "response.output_text.delta", "delta": "cut", "item_id": "m", '
     '"output_index": 0, "content_index": 0, "sequence_number": 0, "logprobs": []}\n\n',
     "malformed", "without response.completed"),
    ('data: {"type": "error", "code": "overloaded", "message": "try later", "param": null, '
     '"sequence_number": 0}\n\n', "server", "try later"),
    ('data: {"type": "response.failed", "sequence_number": 0, "response": {"id": "r", '
     '"object": "response", "status": "failed", "output": [], '
     '"error": {"code": "server_error", "message": "model crashed"}}}\n\n',
     "server", "model crashed"),
], ids=["cut-off", "error-event", "failed-event"])
async def test_a_broken_responses_stream_is_a_provider_error(
        fake: ResponsesServer, provider: OpenAIProvider, stream: str, kind: str,
        said: str) -> None:
    fake.enqueue(FakeReply(raw_body=stream))

    with pytest.raises(ProviderError, match=said) as caught:
        await streamed(provider)

    assert caught.value.kind == kind


@pytest.mark.parametrize("answer, kind, said", [
    ('{"id": "r", "object": "response", "status": "failed", "output": [], '
     '"error": {"code": "server_error", "message": "model crashed"}}', "server", "model crashed"),
    ('{"id": "r", "object": "response", "status": "completed"}', "malformed", "no output"),
], ids=["failed", "no-output"])
async def test_a_broken_response_is_a_provider_error(
        fake: ResponsesServer, provider: OpenAIProvider, answer: str, kind: str,
        said: str) -> None:
    fake.enqueue(FakeReply(raw_body=answer))

    with pytest.raises(ProviderError, match=said) as caught:
        await provider.complete(HELLO, MODEL)

    assert caught.value.kind == kind


# -- JSON output and tools on the responses path ---------------------------------------------

STRICT = {"type": "json_schema", "name": "reading", "schema": SCHEMA, "strict": True}


@pytest.mark.parametrize("form, ask, text", [
    (None, ASK, {"format": STRICT}),
    ("json_object", ASK, {"format": {"type": "json_object"}}),
    (None, ChatRequest(system="Classify.", messages=ASK.messages, json_output=True),
     {"format": {"type": "json_object"}}),
    ("json_object_schema", ASK, None),  # chat-only forms of compatible servers: plain
    ("guided_json", ASK, None),
], ids=["json_schema", "json_object", "no-schema", "json_object_schema", "guided_json"])
async def test_json_output_asks_in_the_text_format_the_form_allows(
        fake: ResponsesServer, form: str | None, ask: ChatRequest,
        text: dict[str, object] | None) -> None:
    provider = build_provider("openai", {**fake.env(), **({"OPENAI_JSON_FORM": form}
                                                          if form else {})})
    fake.enqueue('{"action": "ASK"}')
    try:
        completion = await provider.complete(ask, MODEL)
    finally:
        await provider.aclose()  # type: ignore[attr-defined]

    assert extract_json(completion.text) == {"action": "ASK"}
    assert body(fake).get("text") == text
    assert "JSON" in body(fake)["instructions"]  # JSON mode needs the word in the prompt


async def test_a_refused_json_schema_steps_down_on_the_responses_path(
        fake: ResponsesServer, provider: OpenAIProvider) -> None:
    fake.enqueue(FakeReply(status=400, error_message="text.format json_schema not supported"),
                 '{"action": "ASK"}', '{"action": "ASK"}')

    first = await provider.complete(ASK, MODEL)
    await provider.complete(ASK, MODEL)

    assert extract_json(first.text) == {"action": "ASK"}
    assert fake.paths() == [CHAT, RESPONSES, CHAT, RESPONSES, RESPONSES]
    assert body(fake, 1)["text"] == {"format": STRICT}
    assert "text" not in body(fake, 3) and "text" not in body(fake, 4)


async def test_a_tool_call_comes_back_through_responses(
        fake: ResponsesServer, provider: OpenAIProvider) -> None:
    fake.enqueue(FakeReply(tool_calls=(FakeToolCall("calculator", {"expression": "2*3"},
                                                    id="call_9"),)), "It is 6.")
    ask = ChatRequest(system="You add.", messages=(ChatMessage("user", "2 times 3?"),))

    completion, records = await run_tool_loop(provider, ask, MODEL, BUILTIN_TOOLS, agent="math")

    assert completion.text == "It is 6." and len(records) == 2
    assert fake.paths() == [CHAT, RESPONSES, RESPONSES]
    assert body(fake, 1)["tools"][0]["name"] == "calculator"
    assert body(fake)["input"][1:] == [
        {"type": "function_call", "call_id": "call_9", "name": "calculator",
         "arguments": '{"expression": "2*3"}'},
        {"type": "function_call_output", "call_id": "call_9", "output": "6"}]


async def test_a_streamed_tool_call_comes_back_through_responses(
        fake: ResponsesServer, provider: OpenAIProvider) -> None:
    fake.enqueue(FakeReply(tool_calls=(FakeToolCall("calculator", {"expression": "1+1"}),)))

    deltas, completion = await streamed(provider)

    assert deltas == []
    assert completion.tool_calls == (ToolCall("call_0", "calculator", {"expression": "1+1"}),)


# -- what does not fall back ------------------------------------------------------------------

@pytest.mark.parametrize("status", [400, 401, 403, 429, 500, 503])
async def test_no_other_chat_failure_falls_back(fake: ResponsesServer, provider: OpenAIProvider,
                                                status: int) -> None:
    fake.chat_missing = False
    fake.enqueue(FakeReply(status=status, error_message="scripted failure"))

    with pytest.raises(ProviderError, match=f"HTTP {status}") as caught:
        await provider.complete(HELLO, MODEL)

    assert caught.value.status == status
    assert fake.paths() == [CHAT]
    assert provider.api == "chat"


async def test_a_server_with_chat_completions_never_sees_responses(
        fake: ResponsesServer, provider: OpenAIProvider) -> None:
    fake.chat_missing = False
    fake.enqueue("one", "two")

    await provider.complete(HELLO, MODEL)
    await streamed(provider)

    assert fake.paths() == [CHAT, CHAT]


async def test_both_apis_missing_is_one_clear_error(fake: ResponsesServer,
                                                    provider: OpenAIProvider) -> None:
    fake.enqueue(FakeReply(status=404, error_message="model 'fake-model' not found"),
                 FakeReply(status=404, error_message="model 'fake-model' not found"))

    for _ in range(2):
        with pytest.raises(ProviderError) as caught:
            await provider.complete(HELLO, MODEL)
        error = caught.value
        assert (error.kind, error.status, error.retryable) == ("client", 404, False)
        for part in ("/v1/chat/completions", "/v1/responses", "model 'fake-model' not found",
                     "OPENAI_BASE_URL"):
            assert part in str(error)

    assert fake.paths() == [CHAT, RESPONSES, CHAT, RESPONSES]  # nothing was kept
    assert provider.api == "chat"


async def test_a_failing_responses_api_raises_its_own_error(
        fake: ResponsesServer, provider: OpenAIProvider) -> None:
    fake.enqueue(FakeReply.server_error(500), FakeReply.rate_limited(retry_after=2))

    with pytest.raises(ProviderError, match="HTTP 500") as failed:
        await provider.complete(HELLO, MODEL)
    with pytest.raises(ProviderError, match="HTTP 429") as limited:
        await streamed(provider)

    assert (failed.value.kind, failed.value.retryable) == ("server", True)
    assert (limited.value.kind, limited.value.retry_after) == ("rate_limit", 2.0)
    assert fake.paths() == [CHAT, RESPONSES, CHAT, RESPONSES]
    assert provider.api == "chat"
