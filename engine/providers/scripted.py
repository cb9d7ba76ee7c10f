"""Fixture of scripted replies (YAML/JSON file or list) -> a Provider that plays them in order.

Part of the product: authors use it in ``flowctl test`` to run conversations without an
API key, and tests and benchmarks use it to count LLM calls. Each entry of the fixture:

    - match: "보내"          # optional regex searched in the last user message
      reply: "text"          # or  json: {action: ASK, message: "..."}  (serialised)
      tool_calls: [{name: calculator, arguments: {expression: "1+1"}}]
      error: timeout         # timeout | rate_limit | server | connection | client | malformed
      retry_after: 1.5       # with error: rate_limit
      delay_ms: 50           # wait before answering (or before the first chunk)
      interval_ms: 5         # wait between streamed chunks
      repeat: true           # keep the entry instead of consuming it

The first entry whose ``match`` matches (or that has none) is used. A plain string entry
is a reply. Unknown keys are an error, so typos surface when the fixture is loaded.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard, get_args

import yaml

from engine.errors import ProviderError
from engine.providers.base import (
    ChatRequest,
    Completion,
    ErrorKind,
    Finished,
    ModelConfig,
    StreamEvent,
    TextDelta,
    ToolCall,
    Usage,
    last_user_message,
)
from engine.providers.reliability import Sleep

ENTRY_KEYS = ("match", "reply", "json", "tool_calls", "error", "retry_after", "delay_ms",
              "interval_ms", "repeat")
ERROR_KINDS: tuple[str, ...] = get_args(ErrorKind)
RawEntry = Mapping[str, object] | str


@dataclass(frozen=True, slots=True)
class ScriptEntry:
    """One scripted reply (or fault), validated."""

    reply: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    match: re.Pattern[str] | None = None
    error: ErrorKind | None = None
    retry_after: float | None = None
    delay_ms: int = 0
    interval_ms: int = 0
    repeat: bool = False
    where: str = ""

    def applies_to(self, user_message: str) -> bool:
        return self.match is None or self.match.search(user_message) is not None


def parse_entry(raw: RawEntry, where: str, ids: itertools.count[int]) -> ScriptEntry:
    """Validate one raw fixture entry; ValueError names the entry and the fix."""
    if isinstance(raw, str):
        return ScriptEntry(reply=raw, where=where)
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: expected a mapping or a string, got {type(raw).__name__}")
    unknown = sorted(set(raw) - set(ENTRY_KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}; "
                         f"allowed: {', '.join(ENTRY_KEYS)}")
    if "reply" in raw and "json" in raw:
        raise ValueError(f"{where}: give either `reply` or `json`, not both")
    return ScriptEntry(
        reply=_reply(raw, where),
        tool_calls=_tool_calls(raw.get("tool_calls", []), where, ids),
        match=_pattern(raw.get("match"), where),
        error=_error(raw.get("error"), where),
        retry_after=_number(raw.get("retry_after"), where, "retry_after"),
        delay_ms=int(_number(raw.get("delay_ms"), where, "delay_ms") or 0),
        interval_ms=int(_number(raw.get("interval_ms"), where, "interval_ms") or 0),
        repeat=bool(raw.get("repeat", False)),
        where=where,
    )


def _reply(raw: Mapping[str, object], where: str) -> str:
    if "json" in raw:
        return json.dumps(raw["json"], ensure_ascii=False)
    reply = raw.get("reply", "")
    if not isinstance(reply, str):
        raise ValueError(f"{where}: `reply` must be text; use `json:` for structured replies")
    return reply


def _pattern(value: object, where: str) -> re.Pattern[str] | None:
    if value is None:
        return None
    try:
        return re.compile(str(value))
    except re.error as exc:
        raise ValueError(f"{where}: `match` is not a valid regex ({exc})") from exc


def _error(value: object, where: str) -> ErrorKind | None:
    if value is None:
        return None
    if not _is_error_kind(value):
        raise ValueError(f"{where}: unknown error {value!r}; use one of {', '.join(ERROR_KINDS)}")
    return value


def _is_error_kind(value: object) -> TypeGuard[ErrorKind]:
    return value in ERROR_KINDS


def _number(value: object, where: str, key: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"{where}: `{key}` must be a non-negative number")
    return float(value)


def _tool_calls(value: object, where: str, ids: itertools.count[int]) -> tuple[ToolCall, ...]:
    if not isinstance(value, list):
        raise ValueError(f"{where}: `tool_calls` must be a list of {{name, arguments}}")
    calls = []
    for item in value:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise ValueError(f"{where}: each tool call needs a `name` (and `arguments`)")
        arguments = item.get("arguments", {})
        if not isinstance(arguments, Mapping):
            raise ValueError(f"{where}: `arguments` of tool {item['name']!r} must be a mapping")
        calls.append(ToolCall(str(item.get("id") or f"call_{next(ids)}"), item["name"],
                              dict(arguments)))
    return tuple(calls)


def load_script(path: str | Path) -> list[RawEntry]:
    """Read a fixture file (``.json`` as JSON, anything else as YAML) as raw entries."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    if not isinstance(data, list):
        raise ValueError(f"{path}: a scripted fixture is a list of entries "
                         "(- reply: ... / - json: ...), see docs/providers.md")
    return data


def approx_tokens(text: str) -> int:
    """A deterministic token estimate (4 characters per token), good enough for counting."""
    return (len(text) + 3) // 4


class ScriptedProvider:
    """Plays scripted replies; records every request in ``requests``.

    Example::

        provider = ScriptedProvider(["hello", {"json": {"action": "ASK", "message": "?"}}])
        provider.enqueue({"error": "rate_limit", "retry_after": 1})
    """

    supports_streaming = True
    supports_tools = True

    def __init__(self, script: Sequence[RawEntry] | str | Path = (), *, name: str = "scripted",
                 chunk_chars: int = 4, sleep: Sleep = asyncio.sleep) -> None:
        self.name = name
        self.source = str(script) if isinstance(script, str | Path) else "<in-memory script>"
        self.requests: list[ChatRequest] = []
        self.usage = Usage()  # total of every reply given
        self._chunk_chars = max(1, chunk_chars)
        self._sleep = sleep
        self._ids = itertools.count(1)
        self._entries: list[ScriptEntry] = []
        self._used = 0
        raw = load_script(script) if isinstance(script, str | Path) else script
        self.enqueue(*raw)

    def enqueue(self, *entries: RawEntry) -> None:
        """Append entries (same format as the fixture) to the script."""
        start = len(self._entries) + self._used
        self._entries += [parse_entry(raw, f"{self.source} entry {start + i + 1}", self._ids)
                          for i, raw in enumerate(entries)]

    @property
    def remaining(self) -> int:
        return len(self._entries)

    async def complete(self, request: ChatRequest, model: ModelConfig) -> Completion:
        entry = await self._answer(request)
        return self._completion(entry, request)

    async def stream(self, request: ChatRequest, model: ModelConfig) -> AsyncIterator[StreamEvent]:
        entry = await self._answer(request)
        for index in range(0, len(entry.reply), self._chunk_chars):
            if index and entry.interval_ms:
                await self._sleep(entry.interval_ms / 1000)
            yield TextDelta(entry.reply[index : index + self._chunk_chars])
        yield Finished(self._completion(entry, request))

    async def _answer(self, request: ChatRequest) -> ScriptEntry:
        self.requests.append(request)
        entry = self._take(last_user_message(request))
        if entry.delay_ms:
            await self._sleep(entry.delay_ms / 1000)
        if entry.error is not None:
            raise ProviderError(f"{self.name}: scripted {entry.error} error ({entry.where})",
                                provider=self.name, kind=entry.error,
                                retry_after=entry.retry_after)
        return entry

    def _take(self, user_message: str) -> ScriptEntry:
        for index, entry in enumerate(self._entries):
            if entry.applies_to(user_message):
                if not entry.repeat:
                    del self._entries[index]
                    self._used += 1
                return entry
        raise ProviderError(self._exhausted(user_message), provider=self.name, kind="client")

    def _exhausted(self, user_message: str) -> str:
        if not self._entries:
            return (f"{self.name}: fixture {self.source} ran out of replies after {self._used} "
                    f"(last user message: {user_message!r}); add an entry to the fixture, or "
                    "`repeat: true` on one that should answer every time")
        patterns = ", ".join(repr(e.match.pattern) for e in self._entries if e.match)
        return (f"{self.name}: no entry of fixture {self.source} matches the last user message "
                f"{user_message!r}; the waiting entries match {patterns}; add an entry without "
                "`match` or fix the patterns")

    def _completion(self, entry: ScriptEntry, request: ChatRequest) -> Completion:
        prompt = request.system + "".join(m.content for m in request.messages)
        usage = Usage(approx_tokens(prompt), approx_tokens(entry.reply))
        self.usage += usage
        return Completion(entry.reply, entry.tool_calls, usage)
