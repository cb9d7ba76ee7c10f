"""The runtime on real LLM SDKs (openai, anthropic) against local wire-compatible servers.

One understanding call for what rules miss and none for what they settle, tokens streamed
as they arrive (the `message` field of JSON agents too), provider faults survived, memory
folded. No network beyond loopback.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.runtime.values.events import AgentDone, Done, LlmDone, LlmToken
from engine.store import MemoryStore
from tests.conftest import ROOT, TODAY
from tests.fakes.llm_servers import FakeLLMServer, FakeReply


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


ENGINES: list[Engine] = []


@pytest.fixture(autouse=True)
async def fresh(server: FakeLLMServer) -> Any:
    server.reset()
    yield
    while ENGINES:
        await ENGINES.pop().aclose()


def understanding(intent: str | None, **slots: Any) -> FakeReply:
    ops = [{"op": "set", "slot": k, "value": v} for k, v in slots.items()]
    return FakeReply(text=json.dumps({"intent": intent, "confidence": 0.95, "operations": ops},
                                     ensure_ascii=False))


def engine_for(service: CompiledService, env: dict[str, str]) -> Engine:
    engine = Engine(service, store=MemoryStore(), settings=load_settings(env),
                    clock=lambda: TODAY)
    ENGINES.append(engine)
    return engine


async def run(engine: Engine, sid: str, message: str) -> list[Any]:
    return [e async for e in engine.turn(sid, message)]


SEED_TRANSFER = [  # (message, stage after it): the seed's transfer conversation
    ("엄마한테 만원, 용걸이한테 5만원 보내줘", "READY"), ("확인", "READY"), ("확인", "EXECUTED"),
    ("엄마한테 보내줘", "FILLING"), ("마이너스 천원", "FILLING"), ("3만원", "READY"),
    ("아니 5만원으로 해줘", "READY"), ("취소", "CANCELLED"), ("총 얼마 보냈어?", "ANSWER")]


async def test_rules_settle_the_seed_transfer_without_any_llm_call(
        transfer: CompiledService, server: FakeLLMServer) -> None:
    # memory folding (its own LLM call every few turns) is tested separately below
    engine = engine_for(transfer, {**server.env(), "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "50"})
    assert engine.models.offline == {}

    async def control(sid: str) -> None:
        """A message the rules cannot settle: the live model is asked, exactly once."""
        asked = len(server.requests)
        server.enqueue(understanding("transfer", target="어머니", amount=50000))
        done = (await run(engine, sid, "어머니 계좌에 오만 원 넣어드려"))[-1]
        assert len(server.requests) == asked + 1
        snap = done.state_snapshot  # the model's answer was used:
        assert (snap["flow"], snap["stage"], snap["slots"].get("target")) == (
            "transfer", "READY", "어머니")
        assert [a["provider"] for a in done.trace["agents"] if "provider" in a] == ["openai"]

    await control("before")  # the model is configured and reachable
    asked = len(server.requests)
    for message, stage in SEED_TRANSFER:
        events = await run(engine, "s", message)
        done = events[-1]
        assert isinstance(done, Done) and "error" not in done.trace, message
        assert done.state_snapshot["stage"] == stage, message
        assert [a for a in done.trace["agents"] if "provider" in a] == [], message
        assert not [e for e in events if isinstance(e, LlmToken | LlmDone)], message
    assert len(server.requests) == asked  # not one call for the whole seed conversation
    assert [c["outcome"] for c in await engine.store.completed("s")] == [
        "EXECUTED", "EXECUTED", "CANCELLED"]
    await control("after")  # and it was reachable all along


async def test_what_rules_miss_takes_one_openai_call_for_intent_and_slots(
        transfer: CompiledService, server: FakeLLMServer) -> None:
    server.enqueue(understanding("transfer", target="어머니", amount=50000))
    engine = engine_for(transfer, server.env())
    events = await run(engine, "s", "어머니 계좌에 오만 원 넣어드려")
    done = events[-1]
    assert isinstance(done, Done)
    assert done.state_snapshot["stage"] == "READY"
    assert done.state_snapshot["slots"]["target"] == "어머니"
    assert len(server.requests) == 1
    body = server.requests[0].body
    assert body["messages"][0]["role"] == "system"
    assert "transfer" in body["messages"][0]["content"]
    assert body["messages"][-1] == {"role": "user", "content": "어머니 계좌에 오만 원 넣어드려"}
    call = [a for a in done.trace["agents"] if a["agent"] == "understand" and "provider" in a]
    assert call[0]["provider"] == "openai" and call[0]["tokens_in"] > 0
    assert (await engine.reply("s", "확인")).state_snapshot["stage"] == "EXECUTED"
    assert len(server.requests) == 1  # nothing for the confirmation


async def test_chat_tokens_stream_through_anthropic(transfer: CompiledService,
                                                    server: FakeLLMServer) -> None:
    env = {**server.env(), "FLOWCTL_MODEL_FAST": "anthropic:claude-test"}
    reply = json.dumps({"intent": None, "confidence": 0.1, "operations": [],
                        "message": "안녕하세요! 무엇을 도와드릴까요?"}, ensure_ascii=False)
    server.enqueue(FakeReply(text=reply, chunks=tuple(reply[i:i + 6] for i in
                                                      range(0, len(reply), 6)),
                             token_interval_sec=0.01))
    events = await run(engine_for(transfer, env), "s", "안녕하세요")
    tokens = [e.text for e in events if isinstance(e, LlmToken)]
    assert len(tokens) > 1 and "".join(tokens) == "안녕하세요! 무엇을 도와드릴까요?"
    assert [r.api for r in server.requests] == ["anthropic"]  # one call understood and answered
    chat = server.requests[0].body
    assert "<flowctl-state>" in str(chat["system"])  # the system prompt goes in `system`
    assert chat["messages"][-1]["content"] == [{"type": "text", "text": "안녕하세요"}]
    assert json.dumps(chat["messages"], ensure_ascii=False).count("안녕하세요") == 1


JSON_AGENT = """
service: helper
default_flow: main
models:
  m: {provider: openai, model: test, max_retry: 0, timeout_sec: 2}
flows:
  main:
    initial: TALK
    stages:
      TALK:
        steps: [{agent: talker, prompt: talk, model: m, json_output: true, fallback: sorry}]
messages:
  sorry: "잠시 후 다시 시도해 주세요."
"""


@pytest.fixture
def json_service(tmp_path: Path) -> CompiledService:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "talk.j2").write_text("Answer as JSON with action and message.")
    (tmp_path / "helper.yaml").write_text(JSON_AGENT)
    return compile_file(tmp_path / "helper.yaml")


async def test_json_agent_streams_its_message_field(json_service: CompiledService,
                                                    server: FakeLLMServer) -> None:
    reply = '{"action": "ASK", "message": "네, 바로 \\"확인\\"해 드릴게요."}'
    server.enqueue(FakeReply(text=reply, chunks=tuple(reply[i:i + 5] for i in
                                                      range(0, len(reply), 5))))
    events = await run(engine_for(json_service, server.env()), "s", "도와줘")
    tokens = [e.text for e in events if isinstance(e, LlmToken)]
    assert len(tokens) > 3
    assert "".join(tokens) == '네, 바로 "확인"해 드릴게요.'
    done_payload = next(e.payload for e in events if isinstance(e, LlmDone))
    assert done_payload == {"action": "ASK", "message": '네, 바로 "확인"해 드릴게요.'}


async def test_malformed_json_is_asked_again_then_falls_back(
        json_service: CompiledService, server: FakeLLMServer) -> None:
    server.enqueue(FakeReply(text='{"action": "ASK", "mess'), FakeReply(text="no json here"))
    engine = engine_for(json_service, {**server.env(), "FLOWCTL_MODEL_M": "openai:test"})
    engine.models.live["m"].config = dataclasses.replace(engine.models.live["m"].config,
                                                         max_retry=1)
    done = (await run(engine, "s", "도와줘"))[-1]
    assert done.message == "잠시 후 다시 시도해 주세요."
    assert len(server.requests) == 2
    assert all("malformed" in a["error"] for a in done.trace["agents"] if a.get("provider"))


async def test_a_retry_repairs_a_malformed_json_reply(
        json_service: CompiledService, server: FakeLLMServer) -> None:
    server.enqueue(FakeReply(text="Sure thing!"), FakeReply(text='{"message": "고쳤어요"}'))
    engine = engine_for(json_service, server.env())
    engine.models.live["m"].config = dataclasses.replace(engine.models.live["m"].config,
                                                         max_retry=1)
    done = (await run(engine, "s", "도와줘"))[-1]
    assert done.message == "고쳤어요"


TOOL_AGENT = JSON_AGENT.replace("json_output: true", "tools: [calculator]")


async def test_agent_tool_loop_with_the_calculator(tmp_path: Path,
                                                   server: FakeLLMServer) -> None:
    from tests.fakes.llm_servers import FakeToolCall

    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "talk.j2").write_text("Use the calculator for arithmetic.")
    (tmp_path / "helper.yaml").write_text(TOOL_AGENT)
    server.enqueue(FakeReply(tool_calls=(FakeToolCall(name="calculator",
                                                      arguments={"expression": "10000 * 3"}),)),
                   FakeReply(text="3만원이에요."))
    engine = engine_for(compile_file(tmp_path / "helper.yaml"), server.env())
    done = (await run(engine, "s", "만원의 세 배는?"))[-1]
    assert done.message == "3만원이에요."
    second = server.requests[1].body["messages"]
    assert second[-1]["role"] == "tool" and second[-1]["content"] == "30000"
    assert server.requests[0].body["tools"][0]["function"]["name"] == "calculator"


async def test_a_timeout_falls_back_and_is_traced(json_service: CompiledService,
                                                  server: FakeLLMServer) -> None:
    server.enqueue(FakeReply(text='{"message": "late"}', delay_sec=3))
    done = (await run(engine_for(json_service, server.env()), "s", "도와줘"))[-1]
    assert done.message == "잠시 후 다시 시도해 주세요."
    call = done.trace["agents"][-1]
    assert call["agent"] == "talker" and call["error"].startswith("timeout"), call
    assert call["fallback"] is True


async def test_429_is_retried_after_retry_after(transfer: CompiledService,
                                                server: FakeLLMServer) -> None:
    server.enqueue(FakeReply.rate_limited(retry_after=0.05),
                   understanding("transfer", target="어머니", amount=50000))
    engine = engine_for(transfer, server.env())
    done = (await run(engine, "s", "어머니 계좌에 오만 원 넣어드려"))[-1]
    assert done.state_snapshot["stage"] == "READY"
    call = next(a for a in done.trace["agents"] if a.get("provider"))
    assert call["retries"] == 1 and call["success"] is True


async def test_the_circuit_opens_and_turns_go_offline(transfer: CompiledService,
                                                      server: FakeLLMServer) -> None:
    env = {**server.env()}
    engine = engine_for(transfer, env)
    live = engine.models.get("fast")
    assert live is not None
    live.config = dataclasses.replace(live.config, max_retry=0)
    server.enqueue(*[FakeReply.server_error()] * 10)
    for _ in range(5):
        await run(engine, "s", "음 그러니까")  # no intent by rules: the LLM is asked, and fails
    asked = len(server.requests)
    done = (await run(engine, "s", "음 그러니까"))[-1]
    assert len(server.requests) == asked  # circuit open: the provider is not called
    assert done.message.startswith("무엇을 도와드릴까요?")
    assert any(a.get("error") == "circuit open" for a in done.trace["agents"])


async def test_memory_folds_with_the_summary_model(transfer: CompiledService,
                                                   server: FakeLLMServer) -> None:
    env = {**server.env(), "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "2",
           "FLOWCTL_MEMORY_KEEP_RECENT_TURNS": "1"}
    engine = engine_for(transfer, env)
    server.enqueue(FakeReply(text="엄마에게 1만원을 보냈다."))
    await run(engine, "s", "엄마한테 1만원 보내줘")
    events = await run(engine, "s", "확인")  # the fold is due: written after the turn
    assert not [e for e in events if isinstance(e, AgentDone) and e.agent == "memory"]
    await engine.folds.settled()
    assert len(server.requests) == 1
    assert "엄마한테 1만원 보내줘" in server.requests[0].body["messages"][-1]["content"]
    done = (await run(engine, "s", "총 얼마 보냈어?"))[-1]  # the next turn applies it
    assert [a["agent"] for a in done.trace["agents"] if a.get("provider")] == ["memory"]
    record = await engine.store.load("s")
    assert record is not None
    assert record.data["memory"]["summary_text"] == "엄마에게 1만원을 보냈다."
    assert len(record.data["memory"]["raw_history"]) == 4  # 1 kept + this turn's
    assert len(server.requests) == 1


async def test_offline_memory_summary_is_built_from_completed_tasks(
        transfer: CompiledService) -> None:
    env = {"FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "2", "FLOWCTL_MEMORY_KEEP_RECENT_TURNS": "1"}
    engine = engine_for(transfer, env)
    for message in ["엄마한테 1만원 보내줘", "확인", "안녕"]:
        await run(engine, "s", message)
    record = await engine.store.load("s")
    assert record is not None
    summary = record.data["memory"]["summary_text"]
    assert "transfer EXECUTED (target=엄마, amount=10000)" in summary
    assert "엄마한테 1만원 보내줘" in summary
    assert record.data["slots"] == {}  # the flow was reset; the summary survived it


async def test_summary_off_keeps_only_recent_turns(transfer: CompiledService) -> None:
    env = {"FLOWCTL_MEMORY_ENABLE_SUMMARY": "false", "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "1",
           "FLOWCTL_MEMORY_KEEP_RECENT_TURNS": "1"}
    engine = engine_for(transfer, env)
    for message in ["엄마한테 1만원 보내줘", "확인", "안녕"]:
        await run(engine, "s", message)
    record = await engine.store.load("s")
    assert record is not None
    assert record.data["memory"]["summary_text"] == ""
    assert [h["content"] for h in record.data["memory"]["raw_history"]][0] == "안녕"


def test_flow_tests_with_a_scripted_llm_pass() -> None:
    from cli import main

    assert main(["test", str(ROOT / "flows" / "transfer.llm.test.yaml")]) == 0
