"""ChatRequest -> OpenAI Chat Completions (or Responses API) call -> Completion or stream events.

The only module importing the ``openai`` SDK. Works with api.openai.com and with any
OpenAI-compatible server (vLLM, Ollama, llama.cpp) through ``base_url``. The SDK's own
retries are off (``max_retries=0``): ``reliability`` retries, so attempts are counted once.

Mapping of the neutral request:

- the system prompt becomes a leading ``{"role": "system"}`` message;
- tools are wrapped as ``{"type": "function", "function": {name, description, parameters}}``;
- ``json_output`` asks for JSON: the request's ``schema`` in the server's form (``forms``:
  OpenAI's ``json_schema``, strict when the schema allows; a compatible server's own form),
  plain ``{"type": "json_object"}`` without one;
- every SDK exception is raised as ``ProviderError`` with its kind.

A server that answers 404 on ``/chat/completions`` (it only serves the Responses API) gets
the same request again at once on ``/responses`` (mapped by ``openai_responses``), streamed
when the call streams; once that answered, the provider sends every later request straight
there (``api``), so a turn never pays the 404 again. A 404 from both is one ``ProviderError``
naming both paths; any other failure is the usual ``ProviderError`` of the call that failed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import aclosing, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar, cast

import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from engine.errors import ProviderError
from engine.providers.base import (
    ChatMessage,
    ChatRequest,
    Completion,
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
from engine.providers.forms import JsonForm, form_params, next_form, refuses_form
from engine.providers.openai_responses import (
    ResponsesStreamState,
    responses_completion,
    responses_params,
)

if TYPE_CHECKING:  # the SDK's request TypedDicts, for mypy only
    from openai.types.chat import (
        ChatCompletionFunctionToolParam,
        ChatCompletionMessageFunctionToolCallParam,
        ChatCompletionMessageParam,
    )
    from openai.types.chat.completion_create_params import CompletionCreateParamsBase
    from openai.types.responses.response_create_params import ResponseCreateParamsBase

DEFAULT_BASE_URL = "https://api.openai.com/v1"
log = logging.getLogger("flowctl.providers")

Api = Literal["chat", "responses"]
_T = TypeVar("_T")
_Item = TypeVar("_Item", contravariant=True)


class _Accumulates(Protocol[_Item]):
    """A stream's items -> their new text, then the whole Completion."""

    def add(self, item: _Item) -> str: ...

    def completion(self, provider: str) -> Completion: ...


class OpenAIProvider:
    """OpenAI (or OpenAI-compatible) chat completions, or the Responses API where a server
    has no chat completions.

    Example::

        provider = OpenAIProvider(ProviderSettings(api_key="sk-..."))
        completion = await provider.complete(request, ModelConfig("openai", "gpt-4.1-mini"))
    """

    supports_streaming = True
    supports_tools = True

    def __init__(self, settings: ProviderSettings, *, name: str = "openai") -> None:
        self.name = name
        # An explicit base_url keeps the SDK from reading OPENAI_BASE_URL from os.environ.
        self._client = openai.AsyncOpenAI(api_key=settings.api_key,
                                          base_url=settings.base_url or DEFAULT_BASE_URL,
                                          max_retries=0)
        # api.openai.com wants max_completion_tokens; compatible servers know max_tokens.
        self._max_tokens_key = "max_tokens" if settings.base_url else "max_completion_tokens"
        self.json_form: JsonForm = cast(JsonForm, settings.json_form or "json_schema")
        """How this server takes a reply's schema; steps down once if it refuses it."""
        self._fixed_form = settings.json_form is not None
        self.api: Api = "chat"
        """The API this server answers on: ``responses`` once chat completions answered 404
        and the Responses API answered instead. Kept for the process."""

    async def aclose(self) -> None:
        await self._client.close()

    async def complete(self, request: ChatRequest, model: ModelConfig) -> Completion:
        while True:
            form = self.json_form
            try:
                return await self._either(lambda: self._chat(request, model),
                                          lambda: self._responses(request, model))
            except ProviderError as err:
                if not self._step_down(request, form, err):
                    raise

    async def stream(self, request: ChatRequest, model: ModelConfig) -> AsyncIterator[StreamEvent]:
        while True:
            form = self.json_form
            try:
                events = await self._either(lambda: self._open_chat(request, model),
                                            lambda: self._open_responses(request, model))
                break
            except ProviderError as err:  # refused before any byte: nothing was streamed
                if not self._step_down(request, form, err):
                    raise
        async with aclosing(events):
            async for event in events:
                yield event

    async def _either(self, chat: Callable[[], Awaitable[_T]],
                      responses: Callable[[], Awaitable[_T]]) -> _T:
        """``chat()``, or ``responses()`` on a server without chat completions: chat answered
        404 now, or did before and the Responses API answered then."""
        if self.api == "responses":
            return await responses()
        try:
            return await chat()
        except ProviderError as err:
            if err.status != 404:
                raise
        try:
            answer = await responses()
        except ProviderError as err:
            if err.status == 404:
                raise self._neither(err) from err
            raise
        log.warning("%s: %s has no chat/completions (HTTP 404) but answers on responses; using "
                    "the Responses API from now on", self.name, self._client.base_url)
        self.api = "responses"
        return answer

    def _neither(self, err: ProviderError) -> ProviderError:
        """The error of a server that answered 404 on both APIs (often: an unknown model)."""
        cause = err.__cause__
        said = cause.message if isinstance(cause, openai.APIStatusError) else str(err)
        base = self._client.base_url
        return ProviderError(f"{self.name}: HTTP 404 from both {base}chat/completions and "
                             f"{base}responses: {said}; check the model name, and that "
                             "OPENAI_BASE_URL is the server's OpenAI API root (usually ending "
                             "in /v1)", provider=self.name, kind="client", status=404)

    async def _chat(self, request: ChatRequest, model: ModelConfig) -> Completion:
        with _translated(self.name):
            response = await self._client.chat.completions.create(
                **self._params(request, model), timeout=model.timeout_sec)
        return _completion(response, self.name)

    async def _responses(self, request: ChatRequest, model: ModelConfig) -> Completion:
        with _translated(self.name):
            response = await self._client.responses.create(
                **self._responses_params(request, model), timeout=model.timeout_sec)
        return responses_completion(response, self.name)

    async def _open_chat(self, request: ChatRequest,
                         model: ModelConfig) -> AsyncGenerator[StreamEvent, None]:
        params = self._params(request, model)
        params["stream_options"] = {"include_usage": True}
        with _translated(self.name):
            chunks = await self._client.chat.completions.create(
                **params, stream=True, timeout=model.timeout_sec)
        return _relay(chunks, _StreamState(), self.name)

    async def _open_responses(self, request: ChatRequest,
                              model: ModelConfig) -> AsyncGenerator[StreamEvent, None]:
        with _translated(self.name):
            events = await self._client.responses.create(
                **self._responses_params(request, model), stream=True,
                timeout=model.timeout_sec)
        return _relay(events, ResponsesStreamState(), self.name)

    def _step_down(self, request: ChatRequest, form: JsonForm, err: ProviderError) -> bool:
        """Whether to send ``request`` again in the next JSON form: the server refused
        ``form`` by name, and no operator chose it. Kept for the process."""
        if not request.json_output or request.schema is None or self._fixed_form:
            return False
        lower = next_form(form)
        if lower is None or not refuses_form(err.status, str(err)):
            return False
        if self.json_form == form:
            log.warning("%s refused JSON form %s (%s); using %s from now on (set "
                        "OPENAI_JSON_FORM to choose)", self.name, form, err, lower)
            self.json_form = lower
        return True

    def _params(self, request: ChatRequest, model: ModelConfig) -> CompletionCreateParamsBase:
        """The request's body; ``timeout`` (and ``stream``) go to each call."""
        params: CompletionCreateParamsBase = {
            "model": model.model,
            "messages": _messages(request),
            "temperature": model.temperature,
        }
        if model.max_tokens is not None:  # a TypedDict takes literal keys only
            if self._max_tokens_key == "max_tokens":
                params["max_tokens"] = model.max_tokens
            else:
                params["max_completion_tokens"] = model.max_tokens
        if request.tools:
            params["tools"] = [_tool(spec) for spec in request.tools]
        if request.json_output:
            params.update(form_params(self.json_form, request.schema,  # type: ignore[typeddict-item]
                                      request.schema_name))
        return params

    def _responses_params(self, request: ChatRequest,
                          model: ModelConfig) -> ResponseCreateParamsBase:
        return responses_params(request, model, system=_system(request), form=self.json_form)


async def _relay(stream: openai.AsyncStream[_T], state: _Accumulates[_T],
                 provider: str) -> AsyncGenerator[StreamEvent, None]:
    """A stream's text as ``TextDelta`` events, then its whole completion: one path for the
    chunks of chat completions and the events of the Responses API."""
    with _translated(provider):
        async with stream:
            async for item in stream:
                text = state.add(item)
                if text:
                    yield TextDelta(text)
    yield Finished(state.completion(provider))


def _system(request: ChatRequest) -> str:
    # OpenAI rejects JSON mode unless the word "json" appears in what the model is given.
    if request.json_output and "json" not in request.system.lower():
        return system_for_json(request.system)
    return request.system


def _messages(request: ChatRequest) -> list[ChatCompletionMessageParam]:
    system = _system(request)
    head: list[ChatCompletionMessageParam] = []
    if system:
        head.append({"role": "system", "content": system})
    return head + [_message(m) for m in request.messages]


def _message(message: ChatMessage) -> ChatCompletionMessageParam:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "",
                "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        return {"role": "assistant", "content": message.content or None,
                "tool_calls": [_wire_call(call) for call in message.tool_calls]}
    if message.role == "assistant":
        return {"role": "assistant", "content": message.content}
    return {"role": "user", "content": message.content}


def _wire_call(call: ToolCall) -> ChatCompletionMessageFunctionToolCallParam:
    arguments = json.dumps(dict(call.arguments), ensure_ascii=False)
    return {"id": call.id, "type": "function",
            "function": {"name": call.name, "arguments": arguments}}


def _tool(spec: ToolSpec) -> ChatCompletionFunctionToolParam:
    return {"type": "function", "function": {"name": spec.name, "description": spec.description,
                                             "parameters": dict(spec.parameters)}}


def _completion(response: ChatCompletion, provider: str) -> Completion:
    if not response.choices:
        raise ProviderError(f"{provider}: the response has no choices; check the model name "
                            "and the server's OpenAI compatibility",
                            provider=provider, kind="malformed")
    message = response.choices[0].message
    calls = tuple(
        _tool_call(call.id, function.name, function.arguments, provider)
        for call in message.tool_calls or ()
        # by attribute, not by class: the call classes differ across SDK versions, and
        # custom tool calls have no `function`
        if (function := getattr(call, "function", None)) is not None
    )
    return Completion(message.content or "", calls, _usage(response.usage))


def _tool_call(call_id: str | None, name: str, raw: str | None, provider: str) -> ToolCall:
    arguments = decode_arguments(raw, provider=provider, tool=name)
    return ToolCall(call_id or f"call_{name}", name, arguments)


def _usage(usage: object) -> Usage:
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(getattr(usage, "prompt_tokens", 0) or 0,
                 getattr(usage, "completion_tokens", 0) or 0,
                 getattr(details, "cached_tokens", 0) or 0)


@dataclass(slots=True)
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _StreamState:
    """Accumulates chunks into the same Completion the non-streaming call returns."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, _PartialCall] = field(default_factory=dict)
    usage: Usage = Usage()
    finished: bool = False

    def add(self, chunk: ChatCompletionChunk) -> str:
        if chunk.usage is not None:
            self.usage = _usage(chunk.usage)
        new = ""
        for choice in chunk.choices[:1]:
            new = choice.delta.content or ""
            for delta in choice.delta.tool_calls or ():
                self._add_call(delta.index, delta.id, delta.function)
            self.finished = self.finished or choice.finish_reason is not None
        self.text.append(new)
        return new

    def _add_call(self, index: int, call_id: str | None, function: object) -> None:
        partial = self.calls.setdefault(index, _PartialCall())
        partial.id = call_id or partial.id
        partial.name = getattr(function, "name", None) or partial.name
        partial.arguments.append(getattr(function, "arguments", None) or "")

    def completion(self, provider: str) -> Completion:
        if not self.finished:
            raise ProviderError(f"{provider}: the stream ended without a finish_reason (cut off or "
                                "not an OpenAI-compatible stream)", provider=provider,
                                kind="malformed")
        calls = tuple(
            _tool_call(p.id or f"call_{i}", p.name, "".join(p.arguments), provider)
            for i, p in sorted(self.calls.items())
        )
        return Completion("".join(self.text), calls, self.usage)


@contextmanager
def _translated(provider: str) -> Iterator[None]:
    """Raise every SDK or decoding failure as ProviderError with the right kind."""
    try:
        yield
    except openai.APITimeoutError as exc:
        raise ProviderError(f"{provider}: request timed out; raise the model's timeout_sec in the "
                            "models block (or FLOWCTL_MODEL_<NAME>=,timeout=SECONDS) or check "
                            "the server", provider=provider, kind="timeout") from exc
    except openai.APIConnectionError as exc:
        cause = exc.__cause__ or exc
        raise ProviderError(f"{provider}: connection failed ({type(cause).__name__}: {cause}); "
                            "check OPENAI_BASE_URL and that the server is up",
                            provider=provider, kind="connection") from exc
    except openai.APIStatusError as exc:
        raise _status_error(exc, provider) from exc
    except (openai.APIResponseValidationError, ValueError) as exc:
        raise ProviderError(f"{provider}: malformed response ({type(exc).__name__}: {exc})",
                            provider=provider, kind="malformed") from exc
    except openai.OpenAIError as exc:
        raise ProviderError(f"{provider}: {exc}", provider=provider, kind="client") from exc


def _status_error(exc: openai.APIStatusError, provider: str) -> ProviderError:
    status = exc.status_code
    headers: Mapping[str, str] = exc.response.headers
    hint = {401: "check OPENAI_API_KEY", 403: "check the key's permissions",
            404: "check the model name and OPENAI_BASE_URL"}.get(status, "")
    detail = f"; {hint}" if hint else ""
    return ProviderError(f"{provider}: HTTP {status}: {exc.message}{detail}", provider=provider,
                         kind=status_kind(status), retry_after=retry_after_seconds(headers),
                         status=status)
