"""`response: orchestrator`: DONE carries the orchestrator's contract — final_response,
selected_agents (agent steps and actions in order, with their output), action_requests (as
the gateway let them through), confidence_score (the mean of the turn's readings) — over the
JSON endpoint and the stream alike; a service without it answers the plain DONE."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import Settings
from engine.runtime.engine import Engine
from engine.store import SqliteStore
from tests.fakes.bank import Bank
from tests.server.conftest import MakeServer, sse

FLOW = """
service: desk
response: orchestrator
default_flow: chat
models:
  picker:
    provider: scripted
    fixture: replies.yaml
    output_schema:
      type: object
      required: [message, item]
      properties: {message: {type: string}, item: {type: string}}
actions:
  quote:
    http: {url: "{{ env.BANK_URL }}/transfers", json: {to: "'수수료'", amount: 0}}
    timeout_sec: 5
intents:
  recommend: {keywords: [추천], examples: [노트북 추천해줘, 이어폰 추천 좀]}
  fee: {keywords: [수수료], examples: [수수료 얼마야, 송금 수수료 알려줘]}
routes: {recommend: recommend, fee: fee}
flows:
  chat:
    initial: CHAT
    stages:
      CHAT: {say: chat}
  recommend:
    initial: PICK
    stages:
      PICK:
        terminal: true
        steps:
          - {agent: picker, prompt: pick, model: picker, json_output: true, fallback: offline}
  fee:
    initial: ASK
    stages:
      ASK:
        steps:
          - {call: quote, ok: quoted, error: failed}
      QUOTED: {terminal: true, say: quoted}
      FAILED: {terminal: true, say: failed}
    transitions:
      - {trigger: quoted, source: ASK, dest: QUOTED}
      - {trigger: failed, source: ASK, dest: FAILED}
messages:
  chat: 무엇을 도와드릴까요?
  offline: 지금은 추천할 수 없어요.
  quoted: "수수료는 {{ result.amount | won }}이에요."
  failed: 수수료를 알 수 없어요.
"""


@pytest.fixture
def bank() -> Iterator[Bank]:
    bank = Bank().start()
    yield bank
    bank.stop()


def engine_for(tmp_path: Path, bank: Bank, text: str = FLOW) -> Engine:
    (tmp_path / "prompts").mkdir(exist_ok=True)
    (tmp_path / "prompts" / "pick.j2").write_text("하나 골라 주세요.", encoding="utf-8")
    (tmp_path / "replies.yaml").write_text(
        '- {match: "추천", repeat: true, json: {message: "버즈3를 추천해요.", item: 버즈3}}\n',
        encoding="utf-8")
    (tmp_path / "desk.yaml").write_text(text, encoding="utf-8")
    return Engine(compile_file(tmp_path / "desk.yaml"), store=SqliteStore(tmp_path / "s.db"),
                  settings=Settings(env={"BANK_URL": bank.url}))


async def chat(make_server: MakeServer, engine: Engine, message: str) -> dict[str, Any]:
    server = make_server(engine=engine)
    async with server.client() as client:
        response = await client.post("/v1/agent/chat", json={"session_id": "s",
                                                              "message": message})
        assert response.status_code == 200
        interaction: dict[str, Any] = response.json()["interaction"]
        return interaction


async def test_an_agent_step_is_a_selected_agent_with_its_output(
        make_server: MakeServer, tmp_path: Path, bank: Bank) -> None:
    done = await chat(make_server, engine_for(tmp_path, bank), "이어폰 하나 추천해줄래")
    assert done["final_response"] == done["message"] == "버즈3를 추천해요."
    assert done["selected_agents"] == [{
        "agent_name": "picker", "order": 1,
        "output": {"message": "버즈3를 추천해요.", "item": "버즈3", "status": "success",
                   "reason": "", "missing": []}}]
    assert done["action_requests"] == [] and done["requires_confirmation"] is False
    intent = next(e for e in done["_trace"]["agents"] if e["agent"] == "intent")
    assert done["confidence_score"] == intent["confidence"] == 0.9  # one keyword


async def test_an_action_is_requested_and_selected(
        make_server: MakeServer, tmp_path: Path, bank: Bank) -> None:
    done = await chat(make_server, engine_for(tmp_path, bank), "송금 수수료가 얼마인지 궁금해요")
    assert done["message"] == "수수료는 0원이에요."
    [request] = done["action_requests"]
    assert request["action"] == "quote" and request["args"]["to"] == "수수료"
    assert [a["agent_name"] for a in done["selected_agents"]] == ["quote"]
    assert done["selected_agents"][0]["output"]["transaction_id"] == "tx-1"


async def test_a_message_no_intent_matches_selects_nothing_with_no_confidence(
        make_server: MakeServer, tmp_path: Path, bank: Bank) -> None:
    done = await chat(make_server, engine_for(tmp_path, bank), "안녕")
    assert done["message"] == "무엇을 도와드릴까요?"
    assert done["selected_agents"] == [] and done["action_requests"] == []
    assert done["confidence_score"] == 0.0  # the intent reading found none


async def test_the_stream_carries_the_same_fields(
        make_server: MakeServer, tmp_path: Path, bank: Bank) -> None:
    server = make_server(engine=engine_for(tmp_path, bank))
    async with server.client() as client:
        events = await sse(client, "POST", "/v1/agent/chat/stream",
                           json={"session_id": "s", "message": "노트북 추천해줘"})
    done = events[-1][1]
    assert done["final_response"] == "버즈3를 추천해요."
    assert [a["agent_name"] for a in done["selected_agents"]] == ["picker"]


async def test_a_service_without_it_answers_the_plain_done(
        make_server: MakeServer, tmp_path: Path, bank: Bank) -> None:
    engine = engine_for(tmp_path, bank, FLOW.replace("response: orchestrator\n", ""))
    done = await chat(make_server, engine, "노트북 추천해줘")
    assert not {"final_response", "selected_agents", "action_requests",
                "confidence_score"} & set(done)
