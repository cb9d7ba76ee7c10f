"""An agent step's result (`agents.<name>`): a status a flow branches on — success,
need_info, cannot_handle, partial — with `reason` and `missing`, for every agent step; the
fields of a checked JSON reply only for a step that keeps them; false in a condition unless
the agent answered."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.errors import FlowDefinitionError
from engine.runtime.engine import Engine
from engine.store import MemoryStore

FLOW = """
service: helper_desk
models:
  helper:
    provider: scripted
    fixture: replies.yaml
    output_schema:
      type: object
      required: [message]
      properties:
        message: {type: string}
        status: {type: string}
        missing: {type: array, items: {type: string}}
        reason: {type: string}
        answer: {type: string}
  plain: {provider: scripted, fixture: replies.yaml}
default_flow: main
flows:
  main:
    initial: ASKED
    stages:
      ASKED:
        steps:
          - {agent: helper, prompt: help, model: helper, json_output: true, fallback: offline}
          - if: agents.helper
            then: [{say: answered}]
          - if: agents.helper.status == 'need_info'
            then: [{say: needs}]
          - if: agents.helper.status in ['cannot_handle', 'partial']
            then: [{say: not_done}]
  plain:
    initial: ASKED
    stages:
      ASKED:
        steps:
          - {agent: talker, prompt: help, model: plain, fallback: offline}
          - {say: talked}
  offline:
    initial: ASKED
    stages:
      ASKED:
        steps:
          - {agent: nobody, prompt: help, fallback: offline}
          - {say: talked_offline}
intents:
  chat: {keywords: [수다]}
  quiet: {keywords: [조용]}
routes: {chat: plain, quiet: offline}
messages:
  offline: 지금은 도와드릴 수 없어요.
  answered: "답: {{ agents.helper.answer }}"
  needs: "필요한 것: {{ agents.helper.missing | join(', ') }}"
  not_done: "{{ agents.helper.status }} ({{ agents.helper.reason }})"
  talked: "[{{ agents.talker.status }}]"
  talked_offline: "[{{ agents.nobody.status }}: {{ agents.nobody.reason }}]"
"""

REPLIES = """
- {match: "환율", repeat: true, json: {message: "알려드릴게요.", answer: "1,380원"}}
- {match: "송금", repeat: true,
   json: {message: "얼마를 보낼까요?", status: need_info, missing: [amount, target]}}
- {match: "주식", repeat: true,
   json: {message: "그건 못 해요.", status: cannot_handle, reason: 투자 상담 불가}}
- {match: "여러", repeat: true,
   json: {message: "둘 중 하나만 했어요.", status: partial, reason: 두 번째 건 실패}}
- {match: "끝났", repeat: true, json: {message: "네.", status: done, answer: "완료"}}
- {match: "장애", repeat: true, error: server}
- {match: "수다", repeat: true, reply: "좋아요!"}
"""


@pytest.fixture
def flow(tmp_path: Path) -> Path:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "help.j2").write_text("도와주세요.", encoding="utf-8")
    (tmp_path / "replies.yaml").write_text(REPLIES, encoding="utf-8")
    path = tmp_path / "helper.yaml"
    path.write_text(FLOW, encoding="utf-8")
    return path


async def said(flow: Path, message: str) -> str:
    engine = Engine(compile_file(flow), store=MemoryStore(), settings=load_settings({}))
    return (await engine.reply("s", message)).message


@pytest.mark.parametrize(("message", "branch"), [
    ("오늘 환율 알려줘", "답: 1,380원"),                        # success: its fields are read
    ("엄마한테 송금해줘", "필요한 것: amount, target"),           # the agent asks for details
    ("주식 뭐 살까", "cannot_handle (투자 상담 불가)"),           # the agent says it cannot
    ("여러 개 한 번에 해줘", "partial (두 번째 건 실패)"),        # the agent did part of it
    ("다 끝났어?", "답: 완료"),                                   # a status of its own: a success
])
async def test_a_flow_branches_on_the_status_the_agent_reports(
        flow: Path, message: str, branch: str) -> None:
    reply = await said(flow, message)
    assert reply.endswith(branch)
    others = [m for m in ("답:", "필요한 것:", "cannot_handle", "partial") if m not in branch]
    assert not [m for m in others if m in reply]  # nor the branch a true result would take


async def test_a_failed_call_is_cannot_handle_and_false_in_a_condition(flow: Path) -> None:
    reply = await said(flow, "서버 장애 테스트")
    assert reply.startswith("지금은 도와드릴 수 없어요.")
    assert reply.endswith("cannot_handle (no usable reply)") and "답:" not in reply


async def test_every_agent_step_has_a_status_not_only_those_that_keep_output(
        flow: Path) -> None:
    assert (await said(flow, "수다 떨자")).endswith("[success]")
    assert (await said(flow, "조용히 있어")).endswith("[cannot_handle: no model]")


@pytest.mark.parametrize(("old", "new", "problem"), [
    ("{{ agents.talker.status }}", "{{ agents.talker.answer }}",
     "`agents.talker.answer` is not part of its result: agent step `talker` keeps no output"),
    ("{{ agents.talker.status }}", "{{ agents.talkr.status }}",
     "`agents.talkr` names no agent step"),
])
def test_reading_what_an_agent_step_cannot_have_is_a_compile_error(
        flow: Path, old: str, new: str, problem: str) -> None:
    flow.write_text(flow.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    with pytest.raises(FlowDefinitionError) as caught:
        compile_file(flow)
    assert [f.code for f in caught.value.findings] == ["FL037"]
    assert problem in caught.value.findings[0].message


# -- a validator of the flow's own, on a JSON agent's reply ---------------------------------------

RULES = '''
from engine.compiler.validators import Replace


def in_stock(output, slots):
    """Refuse a product the shop does not carry; round a price to hundreds."""
    if output.get("answer") == "품절 상품":
        return "that product is sold out"
    if output.get("answer") == "가격":
        return Replace({**output, "answer": "1,400원"})
    if output.get("answer") == "망가짐":
        return 42
    return True
'''

VALIDATED = """
- {match: "재고", json: {message: "품절 상품을 추천해요.", answer: "품절 상품"}}
- {match: "재고", json: {message: "다른 상품을 추천해요.", answer: "대체 상품"}}
- {match: "끝까지", repeat: true, json: {message: "품절 상품이요.", answer: "품절 상품"}}
- {match: "얼마", repeat: true, json: {message: "알려드릴게요.", answer: "가격"}}
- {match: "버그", repeat: true, json: {message: "네.", answer: "망가짐"}}
"""


@pytest.fixture
def validated(flow: Path) -> Path:
    (flow.parent / "shop_rules.py").write_text(RULES, encoding="utf-8")
    (flow.parent / "replies.yaml").write_text(VALIDATED, encoding="utf-8")
    text = flow.read_text(encoding="utf-8").replace(
        "json_output: true, fallback: offline}",
        "json_output: true, fallback: offline,\n             validator: 'shop_rules:in_stock'}")
    flow.write_text(text, encoding="utf-8")
    return flow


async def test_a_refused_reply_is_asked_again_told_why(validated: Path) -> None:
    engine = Engine(compile_file(validated), store=MemoryStore(), settings=load_settings({}))
    done = await engine.reply("s", "재고 있는 거 추천해줘")
    assert done.message == "다른 상품을 추천해요. 답: 대체 상품"
    live = engine.models.get("helper")
    assert live is not None
    retry = live.provider.requests[-1].system  # type: ignore[attr-defined]
    assert "that product is sold out" in retry


async def test_a_reply_refused_twice_is_the_fallback_and_cannot_handle(validated: Path) -> None:
    reply = await said(validated, "끝까지 품절만 줘")
    assert reply.startswith("지금은 도와드릴 수 없어요.") and "품절 상품이요" not in reply
    assert reply.endswith("cannot_handle (no usable reply)")


async def test_a_validator_may_replace_the_reply(validated: Path) -> None:
    assert (await said(validated, "얼마야")).endswith("답: 1,400원")


async def test_a_verdict_a_validator_cannot_give_fails_the_turn(validated: Path) -> None:
    engine = Engine(compile_file(validated), store=MemoryStore(), settings=load_settings({}))
    done = await engine.reply("s", "버그 내봐")
    assert done.trace.get("error") == "turn_failed"


def test_a_validator_needs_a_json_agent(flow: Path) -> None:
    (flow.parent / "shop_rules.py").write_text(RULES, encoding="utf-8")
    flow.write_text(flow.read_text(encoding="utf-8").replace(
        "model: plain, fallback: offline}",
        "model: plain, fallback: offline, validator: 'shop_rules:in_stock'}"), encoding="utf-8")
    with pytest.raises(FlowDefinitionError) as caught:
        compile_file(flow)
    assert [f.code for f in caught.value.findings] == ["FL034"]
    assert "a validator checks a JSON reply" in caught.value.findings[0].message
