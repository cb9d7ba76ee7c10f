"""The scripted provider: fixture files, matching, faults, streaming, exhaustion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import ProviderError
from engine.providers.base import ChatMessage, ChatRequest, Finished, ModelConfig, TextDelta
from engine.providers.registry import build_provider
from engine.providers.scripted import ScriptedProvider

MODEL = ModelConfig("scripted", "script")


def ask(text: str) -> ChatRequest:
    return ChatRequest(system="sys", messages=(ChatMessage("user", text),))


YAML_FIXTURE = """\
- match: "보내"
  json: {action: ASK, message: "얼마를 보낼까요?"}
- reply: "default answer"
  repeat: true
"""


async def test_yaml_fixture_with_match_json_and_repeat(tmp_path: Path) -> None:
    fixture = tmp_path / "replies.yaml"
    fixture.write_text(YAML_FIXTURE, encoding="utf-8")
    provider = build_provider("scripted", {}, fixture=fixture)

    first = await provider.complete(ask("안녕"), MODEL)
    second = await provider.complete(ask("엄마한테 보내줘"), MODEL)
    third = await provider.complete(ask("보내줘 또"), MODEL)

    assert first.text == "default answer"  # the match entry waits for a matching message
    assert json.loads(second.text) == {"action": "ASK", "message": "얼마를 보낼까요?"}
    assert third.text == "default answer"  # consumed: only the repeating entry is left
    assert len(provider.requests) == 3  # type: ignore[attr-defined]


async def test_json_fixture_file(tmp_path: Path) -> None:
    fixture = tmp_path / "replies.json"
    fixture.write_text(json.dumps([{"reply": "from json"}, "plain string"]), encoding="utf-8")
    provider = ScriptedProvider(fixture)

    assert (await provider.complete(ask("a"), MODEL)).text == "from json"
    assert (await provider.complete(ask("b"), MODEL)).text == "plain string"


async def test_exhaustion_names_the_fixture_and_the_message(tmp_path: Path) -> None:
    fixture = tmp_path / "short.yaml"
    fixture.write_text("- reply: only one\n", encoding="utf-8")
    provider = ScriptedProvider(fixture)
    await provider.complete(ask("first"), MODEL)

    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask("엄마한테 3만원"), MODEL)

    message = str(caught.value)
    assert caught.value.kind == "client" and not caught.value.retryable
    assert str(fixture) in message and "'엄마한테 3만원'" in message
    assert "ran out of replies after 1" in message and "repeat: true" in message


async def test_no_entry_matches_lists_the_patterns() -> None:
    provider = ScriptedProvider([{"match": "^yes$", "reply": "ok"}])

    with pytest.raises(ProviderError, match=r"matches the last user message 'no'.*'\^yes\$'"):
        await provider.complete(ask("no"), MODEL)


@pytest.mark.parametrize("kind", ["timeout", "rate_limit", "server", "malformed", "connection"])
async def test_scripted_faults(kind: str) -> None:
    provider = ScriptedProvider([{"error": kind, "retry_after": 2}, "after the fault"])

    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask("x"), MODEL)

    assert caught.value.kind == kind and caught.value.retry_after == 2
    assert "entry 1" in str(caught.value)
    assert (await provider.complete(ask("x"), MODEL)).text == "after the fault"


async def test_streaming_splits_reply_into_chunks_with_delays() -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    provider = ScriptedProvider([{"reply": "hello scripted world", "delay_ms": 30,
                                  "interval_ms": 5}], chunk_chars=4, sleep=sleep)

    events = [e async for e in provider.stream(ask("hi"), MODEL)]

    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert deltas[0] == "hell" and "".join(deltas) == "hello scripted world"
    assert isinstance(events[-1], Finished)
    assert events[-1].completion.text == "hello scripted world"
    assert slept == [0.03] + [0.005] * (len(deltas) - 1)


async def test_tool_calls_enqueue_and_usage_accounting() -> None:
    provider = ScriptedProvider()
    provider.enqueue({"tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}]},
                     "four")

    first = await provider.complete(ask("2+2?"), MODEL)
    second = await provider.complete(ask("and?"), MODEL)

    assert first.tool_calls[0].name == "calculator" and first.tool_calls[0].id == "call_1"
    assert first.tool_calls[0].arguments == {"expression": "2+2"}
    assert second.text == "four" and provider.remaining == 0
    assert provider.usage.output_tokens == first.usage.output_tokens + second.usage.output_tokens
    assert provider.usage.input_tokens > 0


@pytest.mark.parametrize("entry, message", [
    ({"repy": "typo"}, "unknown key(s) repy; allowed: match, reply"),
    ({"reply": "a", "json": {}}, "either `reply` or `json`"),
    ({"error": "boom"}, "unknown error 'boom'; use one of timeout"),
    ({"match": "("}, "`match` is not a valid regex"),
    ({"delay_ms": -1}, "`delay_ms` must be a non-negative number"),
    ({"tool_calls": [{"arguments": {}}]}, "each tool call needs a `name`"),
    ({"reply": 3}, "`reply` must be text"),
    (42, "expected a mapping or a string"),
])
def test_invalid_entries_are_rejected_when_loaded(entry: object, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        ScriptedProvider([entry])  # type: ignore[list-item]
    assert "<in-memory script> entry 1" in str(caught.value)
    assert message in str(caught.value)


def test_fixture_must_be_a_list(tmp_path: Path) -> None:
    fixture = tmp_path / "bad.yaml"
    fixture.write_text("reply: not a list\n", encoding="utf-8")
    with pytest.raises(ValueError, match="is a list of entries"):
        ScriptedProvider(fixture)
