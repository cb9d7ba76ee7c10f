"""Neutral chat request -> Completion or a stream of events: the provider protocol.

Vendor-neutral message, tool and model types shared by every provider. No vendor SDK is
imported here; each SDK lives in exactly one module next to this one (``openai.py``,
``anthropic.py``). Providers declare what they can do with capability flags.

Example::

    request = ChatRequest(system="Be brief.", messages=(ChatMessage("user", "hi"),))
    completion = await provider.complete(request, ModelConfig("openai", "gpt-4.1-mini"))
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Literal, Protocol, runtime_checkable

from engine.errors import ProviderError

Role = Literal["user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool the model asked to run, with its decoded JSON arguments."""

    id: str
    name: str
    arguments: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One turn of the conversation; ``tool`` messages answer the call ``tool_call_id``."""

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool in the neutral format: a name, what it does, and a JSON Schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """A named model configuration of a flow file: the model and how it is called."""

    provider: str
    model: str
    temperature: float = 0.0
    max_tokens: int | None = None
    max_retry: int = 2
    backoff_sec: float = 0.5
    timeout_sec: float = 30.0
    name: str = ""
    """The flow's name for this model (``fast``), to name the knobs that change it."""

    def timeout_knob(self) -> str:
        """What an operator changes to give this model more time."""
        where = f"timeout_sec of model {self.name} in the models block" if self.name else \
            "timeout_sec in the models block"
        env = f", or FLOWCTL_MODEL_{self.name.upper()}=,timeout=SECONDS" if self.name else ""
        return f"raise {where}{env}"


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What an agent sends: a system prompt kept apart from the messages, tools, JSON mode."""

    system: str
    messages: tuple[ChatMessage, ...]
    tools: tuple[ToolSpec, ...] = ()
    json_output: bool = False
    schema: Mapping[str, object] | None = None
    """With ``json_output``: the JSON Schema the reply must satisfy, sent in the form the
    provider takes (OpenAI ``json_schema``, an Anthropic tool, a compatible server's own)."""
    schema_name: str = "reply"
    cache_prefix: int = 0
    """How many leading characters of ``system`` stay the same from turn to turn (the
    service, its intents and slots, the rules): a provider that caches prompts marks that
    block (Anthropic ``cache_control``); 0: none known."""


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    """Input tokens the provider read from its prompt cache (where it says so)."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens,
                     self.output_tokens + other.output_tokens,
                     self.cached_tokens + other.cached_tokens)


@dataclass(frozen=True, slots=True)
class Completion:
    """The model's answer: text, the tools it wants run, and the tokens it cost."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()


@dataclass(frozen=True, slots=True)
class TextDelta:
    """New text of a streamed answer, in arrival order."""

    text: str


@dataclass(frozen=True, slots=True)
class Finished:
    """Last event of every stream: the whole completion, as ``complete`` would return it."""

    completion: Completion


StreamEvent = TextDelta | Finished


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    """What a vendor provider needs to connect; built by ``registry`` from the environment."""

    api_key: str
    base_url: str | None = None
    json_form: str | None = None
    """OPENAI_JSON_FORM: how a compatible server takes a reply's schema (forms.FORMS);
    None: ``json_schema``, stepping down once if the server refuses it."""


@runtime_checkable
class Provider(Protocol):
    """An LLM backend. ``stream`` yields ``TextDelta``* then exactly one ``Finished``.

    Every failure is raised as ``ProviderError`` with a ``kind`` (timeout, rate_limit,
    server, client, connection, malformed); retrying is the caller's job (``reliability``).
    """

    name: str
    supports_streaming: bool
    supports_tools: bool

    async def complete(self, request: ChatRequest, model: ModelConfig) -> Completion: ...

    def stream(self, request: ChatRequest, model: ModelConfig) -> AsyncIterator[StreamEvent]: ...


def last_user_message(request: ChatRequest) -> str:
    """The content of the last ``user`` message, or "" when there is none."""
    return next((m.content for m in reversed(request.messages) if m.role == "user"), "")


def decode_arguments(raw: str | None, *, provider: str, tool: str) -> Mapping[str, object]:
    """Decode a tool call's JSON arguments; anything but a JSON object is ``malformed``."""
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        raise ProviderError(
            f"{provider}: the model sent invalid JSON arguments for tool {tool!r} ({exc.msg} at "
            f"char {exc.pos}); retry, or use a model that supports tool calls reliably",
            provider=provider, kind="malformed") from exc
    if not isinstance(value, dict):
        raise ProviderError(
            f"{provider}: arguments for tool {tool!r} must be a JSON object, got "
            f"{type(value).__name__}", provider=provider, kind="malformed")
    return value


JSON_INSTRUCTION = "Answer with a single JSON object and nothing else."


def system_for_json(system: str) -> str:
    """The system prompt with an explicit JSON instruction appended (JSON mode needs one)."""
    return f"{system}\n\n{JSON_INSTRUCTION}" if system else JSON_INSTRUCTION


ErrorKind = Literal["timeout", "rate_limit", "server", "client", "connection", "malformed"]


def status_kind(status: int) -> ErrorKind:
    """Classify an HTTP error status: 408 timeout, 429 rate_limit, 5xx server, else client."""
    if status == 408:
        return "timeout"
    if status == 429:
        return "rate_limit"
    return "server" if status >= 500 else "client"


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return _seconds_until(value)


def _seconds_until(http_date: str) -> float | None:
    try:
        moment = parsedate_to_datetime(http_date)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - datetime.now(UTC)).total_seconds())
