"""What each provider puts on the wire: system prompt, tools, tool results, JSON mode, routing."""

from __future__ import annotations

import pytest

from engine.providers.base import ChatMessage, ChatRequest, ModelConfig, ToolCall
from engine.providers.registry import build_provider
from engine.providers.tools import calculator
from tests.fakes.llm_servers import FakeLLMServer

SYSTEM = "You are the transfer assistant."
CALL = ToolCall("call_7", "calculator", {"expression": "2*3"})
CONVERSATION = ChatRequest(
    system=SYSTEM,
    messages=(
        ChatMessage("user", "2 times 3?"),
        ChatMessage("assistant", "", tool_calls=(CALL,)),
        ChatMessage("tool", "6", tool_call_id="call_7"),
        ChatMessage("assistant", "It is 6."),
        ChatMessage("user", "thanks"),
    ),
    tools=(calculator.spec,),
)


async def _send(server: FakeLLMServer, name: str, request: ChatRequest,
                model: ModelConfig | None = None) -> dict[str, object]:
    provider = build_provider(name, server.env())
    server.enqueue("ok")
    try:
        await provider.complete(request, model or ModelConfig(name, "m"))
    finally:
        await provider.aclose()  # type: ignore[attr-defined]
    return dict(server.requests[-1].body)


async def test_openai_system_prompt_is_the_first_message(server: FakeLLMServer) -> None:
    body = await _send(server, "openai", CONVERSATION)

    messages = body["messages"]
    assert isinstance(messages, list)
    assert messages[0] == {"role": "system", "content": SYSTEM}
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant",
                                             "user"]
    assert server.requests[-1].path == "/v1/chat/completions"


async def test_openai_tools_and_tool_messages(server: FakeLLMServer) -> None:
    body = await _send(server, "openai", CONVERSATION)

    assert body["tools"] == [{"type": "function", "function": {
        "name": "calculator", "description": calculator.spec.description,
        "parameters": dict(calculator.spec.parameters)}}]
    messages = body["messages"]
    assert isinstance(messages, list)
    assert messages[2]["tool_calls"] == [{"id": "call_7", "type": "function", "function": {
        "name": "calculator", "arguments": '{"expression": "2*3"}'}}]
    assert messages[3] == {"role": "tool", "tool_call_id": "call_7", "content": "6"}


async def test_openai_json_mode_and_limits(server: FakeLLMServer) -> None:
    request = ChatRequest(system="Reply briefly.", messages=(ChatMessage("user", "hi"),),
                          json_output=True)
    body = await _send(server, "openai", request, ModelConfig("openai", "m", temperature=0.3,
                                                              max_tokens=77))

    assert body["response_format"] == {"type": "json_object"}
    assert "JSON" in body["messages"][0]["content"]  # type: ignore[index]
    assert body["temperature"] == 0.3
    assert body["max_tokens"] == 77  # a compatible server (base URL set) gets max_tokens
    assert "stream" not in body


async def test_anthropic_system_prompt_is_a_parameter(server: FakeLLMServer) -> None:
    body = await _send(server, "anthropic", CONVERSATION)

    assert body["system"] == SYSTEM
    messages = body["messages"]
    assert isinstance(messages, list)
    assert all(m["role"] in ("user", "assistant") for m in messages)
    assert SYSTEM not in str(messages)
    assert body["max_tokens"] == 1024
    assert server.requests[-1].path == "/v1/messages"


async def test_anthropic_tools_and_tool_blocks(server: FakeLLMServer) -> None:
    body = await _send(server, "anthropic", CONVERSATION)

    assert body["tools"] == [{"name": "calculator", "description": calculator.spec.description,
                              "input_schema": dict(calculator.spec.parameters)}]
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "2 times 3?"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_7",
                                           "name": "calculator",
                                           "input": {"expression": "2*3"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_7",
                                      "content": "6"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "It is 6."}]},
        {"role": "user", "content": [{"type": "text", "text": "thanks"}]},
    ]


async def test_anthropic_merges_parallel_tool_results(server: FakeLLMServer) -> None:
    calls = (ToolCall("a", "calculator", {"expression": "1"}),
             ToolCall("b", "calculator", {"expression": "2"}))
    request = ChatRequest(system="", messages=(
        ChatMessage("user", "both?"), ChatMessage("assistant", "Sure.", tool_calls=calls),
        ChatMessage("tool", "1", tool_call_id="a"), ChatMessage("tool", "2", tool_call_id="b")))

    body = await _send(server, "anthropic", request)

    assert "system" not in body
    last = body["messages"][-1]  # type: ignore[index]
    assert last["role"] == "user"
    assert [block["tool_use_id"] for block in last["content"]] == ["a", "b"]


async def test_anthropic_json_mode_and_max_tokens(server: FakeLLMServer) -> None:
    request = ChatRequest(system="Classify.", messages=(ChatMessage("user", "hi"),),
                          json_output=True)
    body = await _send(server, "anthropic", request, ModelConfig("anthropic", "m", max_tokens=50))

    assert str(body["system"]).startswith("Classify.") and "JSON" in str(body["system"])
    assert body["max_tokens"] == 50


@pytest.mark.parametrize("name, header, value", [
    ("openai", "authorization", "Bearer sk-fake"),
    ("anthropic", "authorization", "Bearer sk-ant-fake"),  # 2.x SDK: no x-api-key header
])
async def test_base_url_routing_and_key(server: FakeLLMServer, name: str, header: str,
                                        value: str) -> None:
    await _send(server, name, CONVERSATION)

    assert server.requests[-1].api == name
    assert server.requests[-1].headers[header] == value


async def test_env_mapping_wins_over_process_environment(
        server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")

    for name in ("openai", "anthropic"):
        await _send(server, name, CONVERSATION)
        assert server.requests[-1].api == name  # reached the fake server from the mapping


async def test_openai_official_endpoint_uses_max_completion_tokens() -> None:
    from engine.providers.base import ProviderSettings
    from engine.providers.openai import OpenAIProvider

    provider = OpenAIProvider(ProviderSettings(api_key="sk-x"))  # no request is sent
    try:
        params = provider._params(CONVERSATION, ModelConfig("openai", "m", max_tokens=9))
    finally:
        await provider.aclose()

    assert params["max_completion_tokens"] == 9 and "max_tokens" not in params
    assert str(provider._client.base_url) == "https://api.openai.com/v1/"
