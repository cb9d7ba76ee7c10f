"""An agent with tools states only facts this turn gave it: a tool's answer (or what the tool
was asked about), the user's message, the turn's state. A number it made up, or an earlier
turn's answer repeated for a new question, is not shown: the step's fallback answers and
``_trace`` says ``UNGROUNDED_VALUE``.

The model is the real ``openai`` SDK against the local wire-compatible fake; the tool is
the built-in calculator.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.runtime.calls.facts import unfounded
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.fakes.llm_servers import FakeLLMServer, FakeReply, FakeToolCall

FLOW = """
service: helper
default_flow: main
models:
  m: {provider: openai, model: test, max_retry: 0, timeout_sec: 5}
flows:
  main:
    initial: TALK
    stages:
      TALK:
        steps: [{agent: talker, prompt: talk, model: m, tools: [calculator], fallback: sorry}]
messages:
  sorry: "지금은 확인해 드릴 수 없어요."
"""
FALLBACK = "지금은 확인해 드릴 수 없어요."


@pytest.mark.parametrize(("reply", "sources", "made_up"), [
    ("A100은 배송중이에요.", ['{"order_id": "A100"}', '{"status": "배송중"}'], []),
    ("택배사 A, 2023년 9월 15일 도착 예정", [], ["2023"]),
    ("합계는 159,000원입니다", ['{"amount": 159000}'], []),
    ("운송장 번호는 6012-3456-7890 입니다", ['{"tracking": "601234567890"}'], []),
    ("운송장 번호는 6012-3456-7899 입니다", ['{"tracking": "601234567890"}'], ["6012-3456-7899"]),
    ("2개 남았어요, 9월 5일", [], []),  # small counts and day numbers are no facts to check
])
def test_facts_are_the_digit_runs_a_source_states(reply: str, sources: list[str],
                                                 made_up: list[str]) -> None:
    assert unfounded(reply, sources) == made_up


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
def service(tmp_path: Path) -> CompiledService:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "talk.j2").write_text("Use the calculator for arithmetic.")
    (tmp_path / "helper.yaml").write_text(FLOW)
    return compile_file(tmp_path / "helper.yaml")


def engine_for(service: CompiledService, server: FakeLLMServer) -> Engine:
    server.reset()
    return Engine(service, store=MemoryStore(), settings=load_settings(server.env()))


def calls(expression: str) -> FakeReply:
    return FakeReply(tool_calls=(FakeToolCall("calculator", {"expression": expression}),))


async def test_a_fact_the_tool_returned_is_said(service: CompiledService,
                                                server: FakeLLMServer) -> None:
    engine = engine_for(service, server)
    server.enqueue(calls("1234 * 5"), FakeReply(text="답은 6170이에요."))
    done = await engine.reply("s", "1234 곱하기 5는?")
    assert done.message == "답은 6170이에요."
    assert "UNGROUNDED_VALUE" not in done.trace.get("failure_tags", [])
    assert "State only facts" in str(server.requests[0].body["messages"][0]["content"])
    await engine.aclose()


@pytest.mark.parametrize("made_up", ["주문 번호 ORD-88213 건은 내일 도착해요.",
                                     "2023년 9월 15일에 발송됐어요.",
                                     "잔액은 1,250,000원입니다."])
async def test_a_fact_no_tool_returned_is_not_shown(service: CompiledService,
                                                    server: FakeLLMServer,
                                                    made_up: str) -> None:
    engine = engine_for(service, server)
    server.enqueue(FakeReply(text=made_up))
    done = await engine.reply("s", "내 주문 어떻게 됐어?")
    assert done.message == FALLBACK
    assert "UNGROUNDED_VALUE" in done.trace["failure_tags"]
    (call,) = [a for a in done.trace["agents"] if a.get("provider")]
    assert str(call["error"]).startswith("malformed")  # outside FLOWCTL_DEV_MODE: its kind only
    await engine.aclose()


async def test_an_earlier_answer_is_not_repeated_for_a_new_question(
        service: CompiledService, server: FakeLLMServer) -> None:
    engine = engine_for(service, server)
    server.enqueue(calls("1234 * 5"), FakeReply(text="답은 6170이에요."))
    assert (await engine.reply("s", "1234 곱하기 5는?")).message == "답은 6170이에요."
    server.enqueue(FakeReply(text="답은 6170이에요."))  # no tool this time: stale
    done = await engine.reply("s", "그럼 4321 곱하기 5는?")
    assert done.message == FALLBACK
    await engine.aclose()
