"""ChatRequest -> Responses API request body; its response or stream events -> Completion.

The Responses API (``/v1/responses``) is how ``openai.OpenAIProvider`` reaches a server that
answers 404 on ``/v1/chat/completions``. This module only maps data; ``openai.py`` makes the
calls, so the SDK is still imported there alone (its types are imported here for mypy only).

Mapping of the neutral request:

- the system prompt becomes ``instructions``; the messages become ``input`` items: user and
  assistant messages as ``{"role", "content"}``, an assistant's tool calls as
  ``function_call`` items, tool results as ``function_call_output`` items;
- tools are ``{"type": "function", "name", "description", "parameters", "strict": false}``
  (not strict, as on the chat path: the Responses API would make them strict by default);
- ``json_output`` asks for JSON in ``text.format``: ``json_schema`` (strict when the schema
  allows) in the ``json_schema`` form, ``json_object`` in the ``json_object`` form or without
  a schema; the chat-only forms of compatible servers (``json_object_schema``,
  ``guided_json``) have no equivalent, so the request goes plain and the JSON instruction in
  the instructions stands alone;
- ``store`` is false: a chat completion leaves nothing on the server, nor does its fallback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.errors import ProviderError
from engine.providers.base import (
    ChatMessage,
    ChatRequest,
    Completion,
    ModelConfig,
    ToolCall,
    ToolSpec,
    Usage,
    decode_arguments,
)
from engine.providers.forms import JsonForm, strict_ready

if TYPE_CHECKING:  # the SDK's types, for mypy only
    from openai.types.responses import (
        FunctionToolParam,
        Response,
        ResponseFormatTextConfigParam,
        ResponseInputItemParam,
        ResponseStreamEvent,
    )
    from openai.types.responses.response_create_params import ResponseCreateParamsBase

__all__ = ["ResponsesStreamState", "responses_completion", "responses_params"]


def responses_params(request: ChatRequest, model: ModelConfig, *, system: str,
                     form: JsonForm) -> ResponseCreateParamsBase:
    """The request's body (``timeout`` and ``stream`` go to each call); ``system``: the
    instructions as the chat path would send them, ``form``: the provider's JSON form."""
    params: ResponseCreateParamsBase = {
        "model": model.model,
        "input": [item for message in request.messages for item in _items(message)],
        "temperature": model.temperature,
        "store": False,
    }
    if system:
        params["instructions"] = system
    if model.max_tokens is not None:
        params["max_output_tokens"] = model.max_tokens
    if request.tools:
        params["tools"] = [_tool(spec) for spec in request.tools]
    text_format = _text_format(request, form)
    if text_format is not None:
        params["text"] = {"format": text_format}
    return params


def _items(message: ChatMessage) -> list[ResponseInputItemParam]:
    if message.role == "tool":
        return [{"type": "function_call_output", "call_id": message.tool_call_id or "",
                 "output": message.content}]
    if message.role == "user":
        return [{"role": "user", "content": message.content}]
    said: list[ResponseInputItemParam] = []
    if message.content or not message.tool_calls:
        said.append({"role": "assistant", "content": message.content})
    return said + [_wire_call(call) for call in message.tool_calls]


def _wire_call(call: ToolCall) -> ResponseInputItemParam:
    arguments = json.dumps(dict(call.arguments), ensure_ascii=False)
    return {"type": "function_call", "call_id": call.id, "name": call.name,
            "arguments": arguments}


def _tool(spec: ToolSpec) -> FunctionToolParam:
    return {"type": "function", "name": spec.name, "description": spec.description,
            "parameters": dict(spec.parameters), "strict": False}


def _text_format(request: ChatRequest, form: JsonForm) -> ResponseFormatTextConfigParam | None:
    if not request.json_output:
        return None
    if request.schema is None or form == "json_object":
        return {"type": "json_object"}
    if form != "json_schema":
        return None
    return {"type": "json_schema", "name": request.schema_name, "schema": dict(request.schema),
            "strict": strict_ready(request.schema)}


def responses_completion(response: Response, provider: str) -> Completion:
    """The Completion of a whole response: its text, function calls and usage."""
    calls = _calls(response, provider)  # first: it checks the response is whole
    return Completion(response.output_text, calls, _usage(response))


def _calls(response: Response, provider: str) -> tuple[ToolCall, ...]:
    """The response's function calls, once it is known to be a whole, successful one."""
    _check(response, provider)
    return tuple(
        ToolCall(item.call_id or f"call_{item.name}", item.name,
                 decode_arguments(item.arguments, provider=provider, tool=item.name))
        for item in response.output if item.type == "function_call"
    )


def _check(response: Response, provider: str) -> None:
    """Raise a failed response as the server's failure, one without output as malformed."""
    error = getattr(response, "error", None)
    if getattr(response, "status", None) == "failed" or error is not None:
        detail = getattr(error, "message", None) or "no reason given"
        raise ProviderError(f"{provider}: the server failed the response ({detail})",
                            provider=provider, kind="server")
    if getattr(response, "output", None) is None:
        raise ProviderError(f"{provider}: the response has no output; check the model name "
                            "and the server's Responses API compatibility",
                            provider=provider, kind="malformed")


def _usage(response: Response) -> Usage:
    # by attribute: a compatible server may leave out what api.openai.com always sends
    usage = getattr(response, "usage", None)
    if usage is None:
        return Usage()
    details = getattr(usage, "input_tokens_details", None)
    return Usage(getattr(usage, "input_tokens", 0) or 0,
                 getattr(usage, "output_tokens", 0) or 0,
                 getattr(details, "cached_tokens", 0) or 0)


@dataclass(slots=True)
class ResponsesStreamState:
    """Accumulates stream events into the same Completion the non-streamed call returns:
    the text as it was streamed, the calls and usage of the final response."""

    text: list[str] = field(default_factory=list)
    final: Response | None = None
    error: str | None = None
    """The message of an ``error`` event: the stream's last, raised when it ends."""

    def add(self, event: ResponseStreamEvent) -> str:
        if event.type == "response.output_text.delta":
            self.text.append(event.delta)
            return event.delta
        if event.type in ("response.completed", "response.incomplete", "response.failed"):
            self.final = event.response
        elif event.type == "error":
            self.error = event.message or "no reason given"
        return ""

    def completion(self, provider: str) -> Completion:
        if self.error is not None:
            raise ProviderError(f"{provider}: the server failed the response mid-stream "
                                f"({self.error})", provider=provider, kind="server")
        if self.final is None:
            raise ProviderError(f"{provider}: the stream ended without response.completed (cut "
                                "off or not an OpenAI-compatible stream)", provider=provider,
                                kind="malformed")
        calls = _calls(self.final, provider)
        return Completion("".join(self.text), calls, _usage(self.final))
