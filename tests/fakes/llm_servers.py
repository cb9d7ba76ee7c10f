"""Scripted replies -> real HTTP servers speaking the OpenAI and Anthropic wire formats.

``FakeLLMServer`` listens on 127.0.0.1 (a free port) in a background thread, so the official
SDKs talk to it over a real socket. One server serves both APIs:

- OpenAI ``POST /v1/chat/completions`` (JSON, or SSE chunks ending in ``data: [DONE]``)
- Anthropic ``POST /v1/messages`` (JSON, or the ``message_start`` ... ``message_stop`` events)

Replies are queued per test with ``enqueue(FakeReply(...))``; each reply can carry tool calls,
a per-token interval (time-to-first-token measurements), a delay before the response (to
trigger client timeouts), an error status (429 with Retry-After, 500), a malformed body, or a
truncated body followed by a dropped connection. Every request is recorded in ``requests``.

Example (a benchmark)::

    with FakeLLMServer(default=FakeReply(text="hi there", token_interval_sec=0.01)) as server:
        provider = build_provider("openai", server.env())
        ...
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

Api = Literal["openai", "anthropic"]


@dataclass(frozen=True, slots=True)
class FakeToolCall:
    """A tool call the fake model makes; ``arguments`` as a str is sent verbatim (may be bad)."""

    name: str
    arguments: Mapping[str, object] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class FakeReply:
    """One scripted response of the fake server."""

    text: str = ""
    tool_calls: tuple[FakeToolCall, ...] = ()
    chunks: tuple[str, ...] | None = None  # streaming pieces; default: words of ``text``
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    error_message: str = "scripted failure"
    delay_sec: float = 0.0  # before the response head is sent
    token_interval_sec: float = 0.0  # between streamed chunks
    raw_body: str | None = None  # sent verbatim: JSON, or SSE text for stream requests
    truncate: bool = False  # send part of the body, then drop the connection
    input_tokens: int | None = None  # default: a rough count of the request
    output_tokens: int | None = None  # default: number of chunks
    cached_tokens: int = 0  # input tokens the fake says it read from its prompt cache

    @classmethod
    def rate_limited(cls, retry_after: float) -> FakeReply:
        return cls(status=429, headers={"retry-after": f"{retry_after:g}"},
                   error_message="rate limited (scripted)")

    @classmethod
    def server_error(cls, status: int = 500) -> FakeReply:
        return cls(status=status, error_message="internal error (scripted)")

    def pieces(self) -> list[str]:
        if self.chunks is not None:
            return list(self.chunks)
        return re.findall(r"\s*\S+", self.text) or ([self.text] if self.text else [])


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """What the fake server received."""

    api: Api
    path: str
    headers: Mapping[str, str]
    body: Mapping[str, object]

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))


class _Dropped(Exception):
    """Raised inside a response body to make uvicorn drop the connection mid-body."""


class FakeLLMServer:
    """A wire-compatible fake LLM server in a background thread; use as a (async) context manager.

    ``default`` answers when the queue is empty; without it an empty queue answers HTTP 400
    with a message saying to call ``enqueue``.
    """

    def __init__(self, *, default: FakeReply | None = None, host: str = "127.0.0.1") -> None:
        self.default = default
        self.host = host
        self.port = 0
        self.requests: list[RecordedRequest] = []
        self.streams_sent = 0
        """Streamed responses sent to their last event (a client that hung up early: not)."""
        self._queue: deque[FakeReply] = deque()
        self._lock = threading.Lock()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    # -- scripting ----------------------------------------------------------------------
    def enqueue(self, *replies: FakeReply | str) -> None:
        with self._lock:
            self._queue.extend(FakeReply(text=r) if isinstance(r, str) else r for r in replies)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.streams_sent = 0

    @property
    def pending(self) -> int:
        return len(self._queue)

    def _next(self, recorded: RecordedRequest) -> FakeReply | None:
        with self._lock:
            self.requests.append(recorded)
            return self._queue.popleft() if self._queue else self.default

    # -- addresses ----------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    def env(self) -> dict[str, str]:
        """Settings for ``registry.build_provider`` pointing both SDKs at this server."""
        return {
            "OPENAI_API_KEY": "sk-fake",
            "OPENAI_BASE_URL": self.openai_base_url,
            "ANTHROPIC_API_KEY": "sk-ant-fake",
            "ANTHROPIC_BASE_URL": self.anthropic_base_url,
        }

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> FakeLLMServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self._app(), log_level="critical", access_log=False, lifespan="off",
                                timeout_graceful_shutdown=0)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]},
                                        name=f"fake-llm-{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 5.0
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("fake LLM server did not start within 5 s")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        if self._server is None or self._thread is None:
            return
        self._server.should_exit = True
        self._server.force_exit = True
        self._thread.join(timeout=5.0)
        self._server = self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> FakeLLMServer:
        return await asyncio.to_thread(self.start)

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    # -- HTTP ---------------------------------------------------------------------------
    def _app(self) -> Starlette:
        return Starlette(routes=[
            Route("/v1/chat/completions", self._openai, methods=["POST"]),
            Route("/v1/messages", self._anthropic, methods=["POST"]),
        ])

    async def _counted(self, events: AsyncIterator[str]) -> AsyncIterator[str]:
        async for event in events:
            yield event
        with self._lock:
            self.streams_sent += 1

    async def _openai(self, request: Request) -> Response:
        return await self._handle("openai", request)

    async def _anthropic(self, request: Request) -> Response:
        return await self._handle("anthropic", request)

    async def _handle(self, api: Api, request: Request) -> Response:
        body = json.loads(await request.body())
        recorded = RecordedRequest(api, request.url.path, dict(request.headers), body)
        reply = self._next(recorded)
        if reply is None:
            return _error(api, 400,
                          "fake LLM server: reply queue is empty; call server.enqueue(...)")
        if reply.delay_sec:
            await asyncio.sleep(reply.delay_sec)
        if reply.status != 200:
            return _error(api, reply.status, reply.error_message, reply.headers)
        if reply.raw_body is not None:
            kind = "text/event-stream" if recorded.stream else "application/json"
            return Response(reply.raw_body, media_type=kind)
        wire = _OpenAIWire(reply, body) if api == "openai" else _AnthropicWire(reply, body)
        if recorded.stream:
            return StreamingResponse(self._counted(_paced(wire.events(), reply)),
                                     media_type="text/event-stream")
        if reply.truncate:
            text = json.dumps(wire.message())
            return StreamingResponse(_truncated([text[: len(text) // 2]]),
                                     media_type="application/json")
        return JSONResponse(wire.message())


def _error(api: Api, status: int, message: str,
           headers: Mapping[str, str] | None = None) -> Response:
    if api == "openai":
        payload: dict[str, object] = {"error": {"message": message, "type": "fake_error",
                                                "code": str(status)}}
    else:
        kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
        payload = {"type": "error", "error": {"type": kind, "message": message}}
    return JSONResponse(payload, status_code=status, headers=dict(headers or {}))


async def _paced(events: Sequence[str], reply: FakeReply) -> AsyncIterator[str]:
    for index, event in enumerate(events):
        if reply.truncate and index >= max(2, len(events) // 2):
            raise _Dropped("scripted: connection dropped mid-stream")
        if index and reply.token_interval_sec:
            await asyncio.sleep(reply.token_interval_sec)
        yield event


async def _truncated(parts: Sequence[str]) -> AsyncIterator[str]:
    for part in parts:
        yield part
    raise _Dropped("scripted: connection dropped mid-body")


def _approx_tokens(body: Mapping[str, object]) -> int:
    return max(1, len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4)


def _sse(data: object, event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, ensure_ascii=False)}\n\n"


class _OpenAIWire:
    """Renders a FakeReply as an OpenAI chat completion or its SSE chunks."""

    def __init__(self, reply: FakeReply, body: Mapping[str, object]) -> None:
        self.reply = reply
        self.model = str(body.get("model", "fake-model"))
        self.include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        pieces = reply.pieces()
        self.usage = {"prompt_tokens": reply.input_tokens or _approx_tokens(body),
                      "completion_tokens": reply.output_tokens or max(1, len(pieces))}
        self.usage["total_tokens"] = self.usage["prompt_tokens"] + self.usage["completion_tokens"]
        if reply.cached_tokens:
            self.usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
        self.pieces = pieces
        self.finish = "tool_calls" if reply.tool_calls else "stop"

    def _calls(self) -> list[dict[str, object]]:
        return [{"id": call.id or f"call_{i}", "type": "function",
                 "function": {"name": call.name, "arguments": call.arguments_json()}}
                for i, call in enumerate(self.reply.tool_calls)]

    def message(self) -> dict[str, object]:
        message: dict[str, object] = {"role": "assistant", "content": self.reply.text or None}
        if self.reply.tool_calls:
            message["tool_calls"] = self._calls()
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
                "model": self.model, "usage": self.usage,
                "choices": [{"index": 0, "message": message, "finish_reason": self.finish,
                             "logprobs": None}]}

    def _chunk(self, delta: Mapping[str, object], finish: str | None = None) -> str:
        return _sse({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                     "model": self.model,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    def events(self) -> list[str]:
        events = [self._chunk({"role": "assistant", "content": ""})]
        events += [self._chunk({"content": piece}) for piece in self.pieces]
        for i, call in enumerate(self._calls()):
            fn = call["function"]
            assert isinstance(fn, dict)
            head = {"index": i, "id": call["id"], "type": "function",
                    "function": {"name": fn["name"], "arguments": ""}}
            events.append(self._chunk({"tool_calls": [head]}))
            for part in _split(str(fn["arguments"]), 3):
                events.append(self._chunk({"tool_calls": [{"index": i,
                                                           "function": {"arguments": part}}]}))
        events.append(self._chunk({}, self.finish))
        if self.include_usage:
            events.append(_sse({"id": "chatcmpl-fake", "object": "chat.completion.chunk",
                                "created": 0, "model": self.model, "choices": [],
                                "usage": self.usage}))
        events.append("data: [DONE]\n\n")
        return events


class _AnthropicWire:
    """Renders a FakeReply as an Anthropic message or its streaming event sequence."""

    def __init__(self, reply: FakeReply, body: Mapping[str, object]) -> None:
        self.reply = reply
        self.model = str(body.get("model", "fake-model"))
        self.pieces = reply.pieces()
        self.input_tokens = reply.input_tokens or _approx_tokens(body)
        self.output_tokens = reply.output_tokens or max(1, len(self.pieces))
        self.stop_reason = "tool_use" if reply.tool_calls else "end_turn"

    def _tool_blocks(self) -> list[dict[str, object]]:
        return [{"type": "tool_use", "id": call.id or f"toolu_{i}", "name": call.name,
                 "input": call.arguments} for i, call in enumerate(self.reply.tool_calls)]

    def message(self) -> dict[str, object]:
        content: list[dict[str, object]] = []
        if self.reply.text:
            content.append({"type": "text", "text": self.reply.text})
        content += self._tool_blocks()
        return {"id": "msg_fake", "type": "message", "role": "assistant", "model": self.model,
                "content": content, "stop_reason": self.stop_reason, "stop_sequence": None,
                "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                          "cache_read_input_tokens": self.reply.cached_tokens}}

    def events(self) -> list[str]:
        start = {**self.message(), "content": [], "stop_reason": None,
                 "usage": {"input_tokens": self.input_tokens, "output_tokens": 1,
                           "cache_read_input_tokens": self.reply.cached_tokens}}
        events = [_sse({"type": "message_start", "message": start}, "message_start")]
        index = 0
        if self.pieces:
            events += self._block({"type": "text", "text": ""}, index,
                                  [{"type": "text_delta", "text": p} for p in self.pieces])
            index += 1
        for call in self.reply.tool_calls:
            block = {"type": "tool_use", "id": call.id or f"toolu_{index}", "name": call.name,
                     "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": part}
                      for part in _split(call.arguments_json(), 3)]
            events += self._block(block, index, deltas)
            index += 1
        delta = {"type": "message_delta",
                 "delta": {"stop_reason": self.stop_reason, "stop_sequence": None},
                 "usage": {"output_tokens": self.output_tokens}}
        events += [_sse(delta, "message_delta"), _sse({"type": "message_stop"}, "message_stop")]
        return events

    @staticmethod
    def _block(block: Mapping[str, object], index: int,
               deltas: Sequence[Mapping[str, object]]) -> list[str]:
        events = [_sse({"type": "content_block_start", "index": index, "content_block": block},
                       "content_block_start")]
        events += [_sse({"type": "content_block_delta", "index": index, "delta": d},
                        "content_block_delta") for d in deltas]
        events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        return events


def _split(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]
