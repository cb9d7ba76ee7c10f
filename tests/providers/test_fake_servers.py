"""The fake servers themselves: sync use (benchmarks), default replies, an empty queue."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from tests.fakes.llm_servers import FakeLLMServer, FakeReply


def test_sync_context_manager_and_default_reply() -> None:
    with FakeLLMServer(default=FakeReply(text="always this")) as server:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        for _ in range(2):
            response = httpx.post(f"{server.openai_base_url}/chat/completions", json=body)
            assert response.json()["choices"][0]["message"]["content"] == "always this"
        assert len(server.requests) == 2 and server.requests[0].api == "openai"
    assert server.port  # stopped, but the address stays known


def test_empty_queue_answers_400_with_a_hint(server: FakeLLMServer) -> None:
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    response = httpx.post(f"{server.anthropic_base_url}/v1/messages", json=body)
    assert response.status_code == 400
    assert "server.enqueue" in response.json()["error"]["message"]


def test_anthropic_stream_event_sequence(server: FakeLLMServer) -> None:
    server.enqueue(FakeReply(text="a b"))
    body = {"model": "m", "max_tokens": 5, "stream": True,
            "messages": [{"role": "user", "content": "hi"}]}
    response = httpx.post(f"{server.anthropic_base_url}/v1/messages", json=body)
    names = [line.split(": ", 1)[1] for line in response.text.splitlines()
             if line.startswith("event: ")]
    assert names == ["message_start", "content_block_start", "content_block_delta",
                     "content_block_delta", "content_block_stop", "message_delta", "message_stop"]


def test_openai_stream_ends_with_usage_and_done(server: FakeLLMServer) -> None:
    server.enqueue(FakeReply(text="a b c"))
    body = {"model": "m", "stream": True, "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": "hi"}]}
    response = httpx.post(f"{server.openai_base_url}/chat/completions", json=body)
    data = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    assert data[-1] == "[DONE]"
    assert json.loads(data[-2])["usage"]["completion_tokens"] == 3
    assert [json.loads(d)["choices"][0]["delta"].get("content") for d in data[1:4]] == [
        "a", " b", " c"]


def test_network_beyond_loopback_is_blocked() -> None:
    with pytest.raises(OSError, match="blocked in tests"):
        socket.create_connection(("192.0.2.1", 443), timeout=0.1)
