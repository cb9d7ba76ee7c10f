"""A reply's JSON Schema reaches each provider in the form it takes.

The real ``openai`` and ``anthropic`` SDKs against the local wire-compatible fake: OpenAI's
``json_schema`` (strict when the schema allows it), a compatible server's own forms
(``OPENAI_JSON_FORM``), one step down — kept for the process — when a server refuses a form
by name, and Anthropic's forced tool whose input is the reply. The understanding call's
schema comes from the flow: its intents (or null), the slots a model may fill, the
operations, in strict mode's shape.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from engine.compiler import compile_file
from engine.errors import FlowRuntimeError, ProviderError
from engine.providers.base import ChatMessage, ChatRequest, ModelConfig, TextDelta
from engine.providers.forms import strict_ready
from engine.providers.registry import build_provider
from engine.runtime.understanding.llm import (
    understanding_request,
    understanding_schema,
    with_message,
)
from tests.conftest import ROOT
from tests.fakes.llm_servers import FakeLLMServer, FakeReply, FakeToolCall

TRANSFER = compile_file(ROOT / "flows" / "transfer.yaml")
SCHEMA = understanding_schema(TRANSFER, list(TRANSFER.flows.values()))
READING = {"intent": "transfer", "confidence": 0.9, "alternatives": [],
           "operations": [{"op": "set", "slot": "amount", "value": 50000}], "tasks": []}


def request(schema: dict[str, Any] | None = SCHEMA) -> ChatRequest:
    return ChatRequest(system="Read the message.", messages=(ChatMessage("user", "5만원"),),
                       json_output=True, schema=schema, schema_name="understanding")


async def complete(server: FakeLLMServer, name: str, *replies: FakeReply | str,
                   env: dict[str, str] | None = None, times: int = 1) -> list[dict[str, Any]]:
    """``times`` calls of one provider (one process's), the bodies the server received."""
    provider = build_provider(name, {**server.env(), **(env or {})})
    server.enqueue(*replies)
    try:
        for _ in range(times):
            await provider.complete(request(), ModelConfig(name, "m"))
    finally:
        await provider.aclose()  # type: ignore[attr-defined]
    return [dict(r.body) for r in server.requests]


def test_the_understanding_schema_is_the_flows_in_strict_shape() -> None:
    assert strict_ready(SCHEMA)
    assert SCHEMA["properties"]["intent"]["enum"] == [*sorted(TRANSFER.intent_names), None]
    jsonschema.validate(READING, SCHEMA)
    for invented in ({**READING, "intent": "joke"},
                     {**READING, "operations": [{"op": "set", "slot": "<slot>", "value": 1}]},
                     {**READING, "operations": [{"op": "confirm", "slot": None, "value": None}]},
                     {k: v for k, v in READING.items() if k != "tasks"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(invented, SCHEMA)


@pytest.mark.parametrize("flow", sorted(p.name for p in (ROOT / "flows").glob("*.yaml")
                                        if not p.name.endswith((".test.yaml", ".eval.yaml"))))
def test_every_shipped_flows_schema_is_strict(flow: str) -> None:
    try:
        service = compile_file(ROOT / "flows" / flow)
    except Exception:  # an app or a fragment, not a service
        pytest.skip(f"{flow} is not a service")
    schema = understanding_schema(service, list(service.flows.values()))
    assert strict_ready(schema) and strict_ready(with_message(schema))
    jsonschema.Draft202012Validator.check_schema(schema)


def test_the_understanding_request_carries_its_schema() -> None:
    flow = TRANSFER.flows["transfer"]
    made = understanding_request(TRANSFER, [flow], current=flow, stage="READY", slots={},
                                 message="5만원", today="2026-01-01", raw_history=[])
    assert made.json_output and made.schema == understanding_schema(TRANSFER, [flow])


async def test_openai_gets_a_strict_json_schema(server: FakeLLMServer) -> None:
    [body] = await complete(server, "openai", "{}")
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "understanding", "schema": SCHEMA, "strict": True}}


async def test_a_schema_strict_mode_cannot_take_is_sent_without_strict(
        server: FakeLLMServer) -> None:
    provider = build_provider("openai", server.env())
    loose = {"type": "object", "properties": {"message": {"type": "string"}}}
    server.enqueue("{}")
    try:
        await provider.complete(request(loose), ModelConfig("openai", "m"))
    finally:
        await provider.aclose()  # type: ignore[attr-defined]
    sent = server.requests[-1].body["response_format"]["json_schema"]  # type: ignore[index]
    assert "strict" not in sent and sent["schema"] == loose


REFUSED = FakeReply(status=500, error_message="response_format type json_schema is not "
                                              "supported by this server")


async def test_a_server_refusing_the_form_by_name_costs_one_request_per_process(
        server: FakeLLMServer) -> None:
    bodies = await complete(server, "openai", REFUSED, "{}", "{}", "{}", times=3)
    forms = [b["response_format"] for b in bodies]
    assert forms[0]["type"] == "json_schema"
    assert forms[1:] == [{"type": "json_object", "schema": SCHEMA}] * 3  # kept from then on


async def test_a_failure_that_does_not_name_the_form_is_no_reason_to_change_it(
        server: FakeLLMServer) -> None:
    with pytest.raises(ProviderError):
        await complete(server, "openai", FakeReply.server_error(500))
    assert len(server.requests) == 1


@pytest.mark.parametrize(("form", "expected"), [
    ("json_object_schema", {"response_format": {"type": "json_object", "schema": SCHEMA}}),
    ("guided_json", {"response_format": {"type": "json_object"}, "guided_json": SCHEMA}),
    ("json_object", {"response_format": {"type": "json_object"}}),
])
async def test_the_operator_names_a_servers_form(server: FakeLLMServer, form: str,
                                                 expected: dict[str, Any]) -> None:
    [body] = await complete(server, "openai", "{}", env={"OPENAI_JSON_FORM": form})
    assert {k: body[k] for k in expected} == expected
    if form != "guided_json":
        assert "guided_json" not in body


async def test_a_chosen_form_is_never_stepped_down(server: FakeLLMServer) -> None:
    with pytest.raises(ProviderError):
        await complete(server, "openai", REFUSED, env={"OPENAI_JSON_FORM": "json_schema"})
    assert len(server.requests) == 1


def test_an_unknown_form_is_refused_naming_the_choices(server: FakeLLMServer) -> None:
    with pytest.raises(FlowRuntimeError, match="OPENAI_JSON_FORM.*json_object_schema"):
        build_provider("openai", {**server.env(), "OPENAI_JSON_FORM": "grammar"})


async def test_anthropic_gets_a_forced_tool_whose_input_is_the_reply(
        server: FakeLLMServer) -> None:
    reply = FakeReply(tool_calls=(FakeToolCall("understanding", READING),))
    provider = build_provider("anthropic", server.env())
    server.enqueue(reply, reply)
    try:
        completion = await provider.complete(request(), ModelConfig("anthropic", "m"))
        pieces = [e.text async for e in provider.stream(request(), ModelConfig("anthropic", "m"))
                  if isinstance(e, TextDelta)]
    finally:
        await provider.aclose()  # type: ignore[attr-defined]
    body = server.requests[0].body
    assert body["tools"] == [{"name": "understanding", "description": "Give the reply.",
                              "input_schema": SCHEMA}]
    assert body["tool_choice"] == {"type": "tool", "name": "understanding"}
    assert json.loads(completion.text) == READING and completion.tool_calls == ()
    assert len(pieces) > 1 and json.loads("".join(pieces)) == READING  # streamed as it came


async def test_anthropic_caches_the_static_head_of_the_system_prompt(
        server: FakeLLMServer) -> None:
    flow = TRANSFER.flows["transfer"]
    made = understanding_request(TRANSFER, [flow], current=flow, stage="FILLING",
                                 slots={"target": "엄마"}, message="3만원",
                                 today="2026-01-01", raw_history=[])
    provider = build_provider("anthropic", server.env())
    server.enqueue(FakeReply(tool_calls=(FakeToolCall("understanding", READING),),
                             cached_tokens=640))
    try:
        completion = await provider.complete(made, ModelConfig("anthropic", "m"))
    finally:
        await provider.aclose()  # type: ignore[attr-defined]
    head, tail = server.requests[0].body["system"]  # type: ignore[misc]
    assert head == {"type": "text", "text": made.system[:made.cache_prefix],
                    "cache_control": {"type": "ephemeral"}}
    assert tail["text"].startswith("Now: today is 2026-01-01") and "cache_control" not in tail
    assert completion.usage.cached_tokens == 640


@pytest.mark.parametrize("name", ["openai", "anthropic"])
async def test_cached_prompt_tokens_reach_the_trace(server: FakeLLMServer, name: str) -> None:
    """The one call's cached tokens, as each provider reports them, in DONE's _trace."""
    from engine.config import load_settings
    from engine.runtime.engine import Engine
    from engine.store import MemoryStore

    reply = json.dumps({**READING, "intent": None, "operations": [], "message": "안녕하세요"})
    server.enqueue(FakeReply(text=reply, cached_tokens=512))
    env = {**server.env(), "FLOWCTL_MODEL_FAST": f"{name}:m"}
    engine = Engine(TRANSFER, store=MemoryStore(), settings=load_settings(env))
    done = await engine.reply("s", "안녕")
    await engine.aclose()
    (call,) = [a for a in done.trace["agents"] if a.get("provider")]
    assert call.get("tokens_cached") == 512
