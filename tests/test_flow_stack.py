"""The flow stack and the conversation patterns: routing rules as tables, the stack in DONE,
an interruption named by the turn's one LLM call (the real openai SDK against a loopback
server), no LLM call on confirm/cancel/continue turns, and the session JSON round trip."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.runtime.understanding import routing
from engine.runtime.values.events import Done
from engine.runtime.values.session import SessionState
from engine.store import MemoryStore
from tests.conftest import ROOT, TODAY
from tests.fakes.llm_servers import FakeLLMServer, FakeReply


@pytest.fixture(scope="module")
def cards() -> CompiledService:
    return compile_file(ROOT / "flows" / "cards.yaml")


@pytest.mark.parametrize("message, expected", [
    ("verify me and then check my balance", [("verify", "verify me"), ("balance",
                                                                       "check my balance")]),
    ("check my balance, then I need a new card", [("balance", "check my balance"),
                                                  ("replace", "I need a new card")]),
    ("verify me", []),  # one flow
    ("check my balance and my balance again", []),  # the same flow twice is one request
])
def test_several_flows_in_one_message(cards: CompiledService, message: str,
                                      expected: list[tuple[str, str]]) -> None:
    found = [(i.name, text) for i, text in routing.several(message, cards, dt.date(2026, 11, 29))]
    assert found == expected


@pytest.mark.parametrize("message, options", [
    ("my card", ["replace", "status"]),  # one shared keyword, one priority: ask
    ("I need a new card", []),  # two keywords of `replace` beat one of `status`
    ("I lost my card", []),  # `lost` has the higher priority: it orders, no question
    ("what is my balance", []),
])
def test_ties_between_flows_are_asked_about(cards: CompiledService, message: str,
                                            options: list[str]) -> None:
    assert routing.ambiguous(routing.ranked(message, cards), cards) == options


@pytest.mark.parametrize("message, digresses", [
    ("what time is it?", True), ("오늘 날씨 어때", True), ("재미있는 얘기 해줄래?", True),
    ("how do refunds work", True), ("lost", False), ("u12", False), ("음...", False),
])
def test_a_question_the_flow_cannot_use_is_a_digression(cards: CompiledService, message: str,
                                                        digresses: bool) -> None:
    flow = cards.flows["replace"]
    assert routing.digression(message, cards, flow.stages["FILLING"], flow) is digresses
    # never at a confirmation: unclear input there keeps the stage (the safe default)
    assert routing.digression(message, cards, flow.stages["READY"], flow) is False


@pytest.mark.parametrize("answer, chosen", [
    ("replace a card", "replace"), ("card status", "status"), ("the second one", "status"),
    ("1", "replace"), ("첫 번째", "replace"), ("hmm", None),
])
def test_the_answer_to_which_one(cards: CompiledService, answer: str, chosen: str | None) -> None:
    assert routing.choose(answer, ["replace", "status"], cards) == chosen


def test_the_stack_survives_the_session_json() -> None:
    state = SessionState(flow="replace", stage="FILLING", slots={"reason": "lost", "x": 1})
    state.push("interrupted", ("reason",), hide=("reason",))
    assert "reason" not in state.slots  # the interrupting flow starts afresh
    again = SessionState.from_json(json.loads(json.dumps(state.to_json())))
    (frame,) = again.stack
    again.restore(again.stack.pop())
    assert (frame["kind"], again.flow, again.stage, again.slots["reason"]) == (
        "interrupted", "replace", "FILLING", "lost")
    assert "stack" not in SessionState().to_json()  # an empty stack costs nothing


# -- the turn's one LLM call ---------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


def understanding(intent: str | None, **slots: Any) -> FakeReply:
    ops = [{"op": "set", "slot": k, "value": v} for k, v in slots.items()]
    return FakeReply(text=json.dumps({"intent": intent, "confidence": 0.95, "operations": ops},
                                     ensure_ascii=False))


async def test_the_llm_names_another_intent_mid_flow_and_the_flow_resumes(
        transfer: CompiledService, server: FakeLLMServer) -> None:
    server.reset()
    engine = Engine(transfer, store=MemoryStore(),
                    settings=load_settings({**server.env(),
                                            "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "50"}),
                    clock=lambda: TODAY)
    try:
        done = await engine.reply("s", "엄마한테 보내줘")  # rules settle it: no call
        assert done.state_snapshot["stage"] == "FILLING" and server.requests == []
        # no rule matches this: the one call sees the other intents and names `history`
        server.enqueue(understanding("history"))
        done = await engine.reply("s", "지난달 거래 좀 볼래")
        assert len(server.requests) == 1
        assert "history" in server.requests[0].body["messages"][0]["content"]
        assert isinstance(done, Done) and done.next_action == "ASK_CONTINUE"
        assert done.state_snapshot["flow"] == "transfer"
        assert done.state_snapshot["slots"]["target"] == "엄마"
        assert [(op["op"], op["flow"]) for op in done.trace["stack"]] == [
            ("push", "transfer"), ("start", "history"), ("pop", "transfer")]
        # the continue, the confirmation and the execution make no call at all
        for message, stage in (("계속 진행", "FILLING"), ("3만원", "READY"),
                               ("확인", "EXECUTED")):
            done = await engine.reply("s", message)
            assert done.state_snapshot["stage"] == stage, message
        assert len(server.requests) == 1
    finally:
        await engine.aclose()


async def test_an_llm_answer_for_the_current_flow_stays_in_it(
        transfer: CompiledService, server: FakeLLMServer) -> None:
    server.reset()
    engine = Engine(transfer, store=MemoryStore(), settings=load_settings(server.env()),
                    clock=lambda: TODAY)
    try:
        await engine.reply("s", "엄마한테 보내줘")
        server.enqueue(understanding("transfer", amount=50000))
        done = await engine.reply("s", "금액은 그러니까 50000")  # the rules read no amount here
        assert len(server.requests) == 1
        assert (done.state_snapshot["stage"], done.state_snapshot["slots"]["amount"]) == (
            "READY", 50000)
        # nothing interrupted the transfer: the only flow started is the balance it calls
        assert [(op["op"], op["flow"], op["reason"]) for op in done.trace["stack"]] == [
            ("push", "transfer", "call"), ("start", "balance", "call"),
            ("pop", "transfer", "caller")]
    finally:
        await engine.aclose()


async def test_typed_false_leaves_only_the_patterns(tmp_path: Any) -> None:
    flow = tmp_path / "f.yaml"
    flow.write_text("""
service: f
locale: en
default_flow: main
slots:
  code:
    type: integer
    required: true
    ask: ask_code
    extract: {typed: false, patterns: ['#(?P<value>\\d+)']}
  count: {type: integer, required: true, ask: ask_count}
flows:
  main:
    slots: [code, count]
    initial: INIT
    stages:
      INIT: {}
      FILLING: {say: filling}
      DONE: {terminal: true, say: done}
    transitions:
      - {trigger: update, source: [INIT, FILLING], dest: DONE, when: not missing}
      - {trigger: update, source: [INIT, FILLING], dest: FILLING}
messages:
  ask_code: Which code?
  ask_count: How many?
  filling: "{{ ask(missing[0]) }}"
  done: Done.
""", encoding="utf-8")
    engine = Engine(compile_file(flow), store=MemoryStore(), clock=lambda: TODAY)
    done = await engine.reply("s", "3 of them")  # a bare number is the count, never the code
    assert done.state_snapshot["slots"] == {"code": None, "count": 3}
    done = await engine.reply("s", "#42")
    assert done.state_snapshot["stage"] == "DONE"
    (task,) = await engine.store.completed("s")
    assert task["slots"] == {"code": 42, "count": 3}


async def test_a_stubbed_http_action_needs_no_url_variable(tmp_path: Any) -> None:
    from engine.runtime.calls.actions import ActionStub

    flow = tmp_path / "h.yaml"
    flow.write_text("""
service: h
locale: en
default_flow: main
actions:
  ping: {http: {url: "{{ env.PING_URL }}/ping"}}
flows:
  main:
    initial: START
    stages:
      START:
        steps:
          - {call: ping, ok: done, error: failed}
      DONE: {terminal: true, say: done}
      FAILED: {terminal: true, say: failed}
    transitions:
      - {trigger: done, source: START, dest: DONE}
      - {trigger: failed, source: START, dest: FAILED}
messages:
  done: "Pong {{ result.value }}."
  failed: Failed.
""", encoding="utf-8")
    engine = Engine(compile_file(flow), store=MemoryStore(), clock=lambda: TODAY,
                    stubs={"ping": ActionStub(result={"value": 7})})
    done = await engine.reply("s", "hi")  # PING_URL is not set: only the stub answers
    assert done.message == "Pong 7." and "error" not in done.trace
