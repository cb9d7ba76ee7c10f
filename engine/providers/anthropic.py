"""ChatRequest -> Anthropic Messages call -> Completion or stream events.

The only module importing the ``anthropic`` SDK (and ``httpx2``, its transport: the SDK lets
transport errors escape unwrapped while a stream is being read). The SDK's own retries are
off (``max_retries=0``): ``reliability`` retries.

Mapping of the neutral request:

- the system prompt goes in the ``system=`` parameter, never in ``messages``;
- tools become ``{"name", "description", "input_schema"}``;
- tool calls and results travel as ``tool_use`` / ``tool_result`` content blocks, and
  consecutive results are merged into one user message as the API requires;
- ``json_output`` appends a JSON instruction to the system prompt (the API has no JSON mode);
  with a ``schema`` (and no tools of its own) the reply is a forced call of a tool whose
  ``input_schema`` is that schema, and the call's input comes back as the reply's text
  (streamed as its ``input_json_delta`` pieces arrive);
- a request's ``cache_prefix`` (its system prompt's stable head) is sent as a system block
  of its own with ``cache_control``, the turn's tail after it;
- ``max_tokens`` is required by the API: 1024 unless the model config says otherwise;
- ``temperature`` is not sent: the 2.x SDK's ``messages.create`` no longer accepts it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import anthropic
import httpx2
from anthropic.types import Message, RawMessageStreamEvent

from engine.errors import ProviderError
from engine.providers.base import (
    ChatMessage,
    ChatRequest,
    Completion,
    ErrorKind,
    Finished,
    ModelConfig,
    ProviderSettings,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolSpec,
    Usage,
    decode_arguments,
    retry_after_seconds,
    status_kind,
    system_for_json,
)

if TYPE_CHECKING:  # the SDK's request TypedDicts, for mypy only
    from anthropic.types import ContentBlockParam, MessageParam, ToolParam
    from anthropic.types.message_create_params import MessageCreateParamsBase

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 1024

Block = dict[str, object]


class AnthropicProvider:
    """Anthropic Claude models through the Messages API.

    Example::

        provider = AnthropicProvider(ProviderSettings(api_key="sk-ant-..."))
        completion = await provider.complete(request, ModelConfig("anthropic", "claude-sonnet-4-0"))
    """

    supports_streaming = True
    supports_tools = True

    def __init__(self, settings: ProviderSettings, *, name: str = "anthropic") -> None:
        self.name = name
        # An explicit base_url keeps the SDK from reading ANTHROPIC_BASE_URL from os.environ.
        self._client = anthropic.AsyncAnthropic(api_key=settings.api_key,
                                                base_url=settings.base_url or DEFAULT_BASE_URL,
                                                max_retries=0)

    async def aclose(self) -> None:
        await self._client.close()

    async def complete(self, request: ChatRequest, model: ModelConfig) -> Completion:
        with _translated(self.name):
            message = await self._client.messages.create(**_params(request, model),
                                                         timeout=model.timeout_sec)
        return _completion(message, self.name, _answer_tool(request))

    async def stream(self, request: ChatRequest, model: ModelConfig) -> AsyncIterator[StreamEvent]:
        state = _StreamState(answer=_answer_tool(request))
        with _translated(self.name):
            events = await self._client.messages.create(**_params(request, model), stream=True,
                                                        timeout=model.timeout_sec)
            async with events:
                async for event in events:
                    text = state.add(event)
                    if text:
                        yield TextDelta(text)
        yield Finished(state.completion(self.name))


def _params(request: ChatRequest, model: ModelConfig) -> MessageCreateParamsBase:
    """The request's body; ``timeout`` (and ``stream``) go to each call."""
    params: MessageCreateParamsBase = {
        "model": model.model,
        "max_tokens": model.max_tokens or DEFAULT_MAX_TOKENS,
        "messages": _messages(request.messages),
    }
    system = system_for_json(request.system) if request.json_output else request.system
    if 0 < request.cache_prefix < len(system):  # the stable head cached, the turn's tail not
        params["system"] = [
            {"type": "text", "text": system[:request.cache_prefix],
             "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": system[request.cache_prefix:]}]
    elif system:
        params["system"] = system
    if request.tools:
        params["tools"] = [_tool(spec) for spec in request.tools]
    answer = _answer_tool(request)
    if answer is not None and request.schema is not None:
        params["tools"] = [{"name": answer, "description": "Give the reply.",
                            "input_schema": dict(request.schema)}]
        params["tool_choice"] = {"type": "tool", "name": answer}
    return params


def _answer_tool(request: ChatRequest) -> str | None:
    """The name of the tool whose forced call carries a schema's reply; None without one."""
    if request.json_output and request.schema is not None and not request.tools:
        return request.schema_name
    return None


def _tool(spec: ToolSpec) -> ToolParam:
    return {"name": spec.name, "description": spec.description,
            "input_schema": dict(spec.parameters)}


def _messages(messages: tuple[ChatMessage, ...]) -> list[MessageParam]:
    """Neutral messages -> alternating user/assistant messages of content blocks."""
    turns: list[tuple[Literal["user", "assistant"], list[ContentBlockParam]]] = []
    for message in messages:
        role: Literal["user", "assistant"] = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue  # the API rejects empty content
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    return [{"role": "assistant", "content": content} if who == "assistant"
            else {"role": "user", "content": content} for who, content in turns]


def _blocks(message: ChatMessage) -> list[ContentBlockParam]:
    if message.role == "tool":
        return [{"type": "tool_result", "tool_use_id": message.tool_call_id or "",
                 "content": message.content}]
    blocks: list[ContentBlockParam] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    blocks += [{"type": "tool_use", "id": call.id, "name": call.name,
                "input": dict(call.arguments)} for call in message.tool_calls]
    return blocks


def _completion(message: Message, provider: str, answer: str | None = None) -> Completion:
    text: list[str] = []
    calls: list[ToolCall] = []
    for block in message.content:
        if block.type == "text":
            text.append(block.text)
        elif block.type == "tool_use" and block.name == answer:
            text.append(json.dumps(block.input, ensure_ascii=False))
        elif block.type == "tool_use":
            calls.append(_tool_call(block.id, block.name, block.input, provider))
    usage = Usage(message.usage.input_tokens or 0, message.usage.output_tokens or 0,
                  getattr(message.usage, "cache_read_input_tokens", 0) or 0)
    return Completion("".join(text), tuple(calls), usage)


def _tool_call(call_id: str, name: str, arguments: object, provider: str) -> ToolCall:
    if not isinstance(arguments, Mapping):
        raise ProviderError(f"{provider}: input of tool {name!r} is not a JSON object",
                            provider=provider, kind="malformed")
    return ToolCall(call_id, name, arguments)


@dataclass(slots=True)
class _PartialBlock:
    type: str
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    initial: object = None


@dataclass(slots=True)
class _StreamState:
    """Accumulates stream events into the same Completion the non-streaming call returns."""

    blocks: dict[int, _PartialBlock] = field(default_factory=dict)
    answer: str | None = None
    """The forced tool whose input is the reply (a schema's JSON)."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    finished: bool = False

    def add(self, event: RawMessageStreamEvent) -> str:
        match event.type:
            case "message_start":
                self.input_tokens = event.message.usage.input_tokens or 0
                self.output_tokens = event.message.usage.output_tokens or 0
                self.cached_tokens = getattr(event.message.usage, "cache_read_input_tokens",
                                             0) or 0
            case "content_block_start":
                block = event.content_block
                self.blocks[event.index] = _PartialBlock(
                    block.type, getattr(block, "id", ""), getattr(block, "name", ""),
                    initial=getattr(block, "input", None))
            case "content_block_delta":
                return self._delta(event.index, event.delta)
            case "message_delta":
                self.output_tokens = event.usage.output_tokens or self.output_tokens
                self.input_tokens = event.usage.input_tokens or self.input_tokens
            case "message_stop":
                self.finished = True
        return ""

    def _delta(self, index: int, delta: object) -> str:
        block = self.blocks.setdefault(index, _PartialBlock("text"))
        kind = getattr(delta, "type", "")
        if kind == "text_delta":
            text: str = getattr(delta, "text", "")
            block.parts.append(text)
            return text
        if kind == "input_json_delta":
            piece: str = getattr(delta, "partial_json", "")
            block.parts.append(piece)
            if block.type == "tool_use" and block.name == self.answer:
                return piece  # the reply's JSON, as it arrives
        return ""

    def completion(self, provider: str) -> Completion:
        if not self.finished:
            raise ProviderError(f"{provider}: the stream ended before message_stop (cut off)",
                                provider=provider, kind="malformed")
        text: list[str] = []
        calls: list[ToolCall] = []
        for _, block in sorted(self.blocks.items()):
            if block.type == "text":
                text.extend(block.parts)
            elif block.type == "tool_use" and block.name == self.answer:
                text.append("".join(block.parts) if block.parts
                            else json.dumps(block.initial or {}, ensure_ascii=False))
            elif block.type == "tool_use":
                arguments = (decode_arguments("".join(block.parts), provider=provider,
                                              tool=block.name)
                             if block.parts else block.initial or {})
                calls.append(_tool_call(block.id, block.name, arguments, provider))
        usage = Usage(self.input_tokens, self.output_tokens, self.cached_tokens)
        return Completion("".join(text), tuple(calls), usage)


_BODY_KINDS: Mapping[str, ErrorKind] = {
    "overloaded_error": "server", "api_error": "server",
    "rate_limit_error": "rate_limit", "timeout_error": "timeout",
}


@contextmanager
def _translated(provider: str) -> Iterator[None]:
    """Raise every SDK, transport or decoding failure as ProviderError with the right kind."""
    try:
        yield
    except (anthropic.APITimeoutError, httpx2.TimeoutException) as exc:
        raise ProviderError(f"{provider}: request timed out; raise the model's timeout_sec in the "
                            "models block (or FLOWCTL_MODEL_<NAME>=,timeout=SECONDS) or check "
                            "the server", provider=provider, kind="timeout") from exc
    except (anthropic.APIConnectionError, httpx2.TransportError) as exc:
        cause = exc.__cause__ or exc
        raise ProviderError(f"{provider}: connection failed ({type(cause).__name__}: {cause}); "
                            "check ANTHROPIC_BASE_URL and that the server is up",
                            provider=provider, kind="connection") from exc
    except anthropic.APIStatusError as exc:
        raise _status_error(exc, provider) from exc
    except (anthropic.APIResponseValidationError, httpx2.DecodingError, ValueError) as exc:
        raise ProviderError(f"{provider}: malformed response ({type(exc).__name__}: {exc})",
                            provider=provider, kind="malformed") from exc
    except anthropic.AnthropicError as exc:
        raise ProviderError(f"{provider}: {exc}", provider=provider, kind="client") from exc


def _status_error(exc: anthropic.APIStatusError, provider: str) -> ProviderError:
    status = exc.status_code
    kind = status_kind(status) if status >= 400 else _body_kind(exc.body)
    hint = {401: "check ANTHROPIC_API_KEY", 403: "check the key's permissions",
            404: "check the model name and ANTHROPIC_BASE_URL"}.get(status, "")
    detail = f"; {hint}" if hint else ""
    return ProviderError(f"{provider}: HTTP {status}: {exc.message}{detail}", provider=provider,
                         kind=kind, retry_after=retry_after_seconds(exc.response.headers),
                         status=status)


def _body_kind(body: object) -> ErrorKind:
    """Kind of an error event sent inside a 200 stream, from its ``error.type``."""
    error = body.get("error") if isinstance(body, Mapping) else None
    name = error.get("type") if isinstance(error, Mapping) else None
    return _BODY_KINDS.get(str(name), "client")
