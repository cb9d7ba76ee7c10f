"""Response synthesis: summary -> numbered actions -> caveats from the turn's data, DONE's
requires_confirmation and next_suggested_actions (additive fields), and the fallback with
RESPONSE_SYNTHESIS_FAILED when a part cannot render."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.errors import FlowDefinitionError
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done, wire
from engine.store import MemoryStore
from engine.transports.http.schemas import Interaction
from tests.conftest import ROOT, TODAY
from tests.server.conftest import ServerProcess

SHOP = """
service: synth
context:
  type: object
  properties:
    items: {}
    stock: {type: integer}
default_flow: answer
flows:
  answer:
    initial: ASKED
    stages:
      ASKED:
        steps:
          - respond:
              summary: summary
              actions:
                - pick
                - {each: "context.get('items', [])", say: item_line}
                - {say: compare, when: "context.get('items', []) | length > 1"}
              caveats:
                - {say: low_stock, when: "context.get('stock', 9) < 3"}
                - always_note
              requires_confirmation: "context.get('items', []) | length > 0"
              next:
                - {each: "['장바구니 보기', '다른 상품 찾기']"}
              %FALLBACK%
messages:
  summary: >-
    요청하신 '{{ turn.message }}'에 대해 상품 {{ context.get('items', []) | length }}개를
    확인했습니다.
  pick: 마음에 드는 상품을 골라 주세요.
  item_line: "{{ value.name }} 장바구니에 담기 ({{ value.price | won }})"
  compare: 두 상품을 비교해 보세요.
  low_stock: 재고가 얼마 남지 않았어요.
  always_note: 가격은 바뀔 수 있어요.
  sorry: 지금은 정리해서 말씀드리기 어려워요.
"""
ITEMS = [{"name": "에어14", "price": 1290000}, {"name": "스톰16", "price": 2390000}]


def engine_of(tmp_path: Path, text: str, fallback: str = "") -> Engine:
    flow = tmp_path / "synth.yaml"
    flow.write_text(text.replace("%FALLBACK%", fallback), encoding="utf-8")
    return Engine(compile_file(flow), store=MemoryStore(), settings=load_settings({}),
                  clock=lambda: TODAY)


async def done_of(engine: Engine, message: str, context: dict[str, Any] | None) -> Done:
    done = [e async for e in engine.turn("s", message, context=context)][-1]
    assert isinstance(done, Done)
    return done


async def test_summary_numbered_actions_caveats(tmp_path: Path) -> None:
    engine = engine_of(tmp_path, SHOP)
    done = await done_of(engine, "노트북 보여줘", {"items": ITEMS, "stock": 2})
    assert done.message == (
        "요청하신 '노트북 보여줘'에 대해 상품 2개를 확인했습니다.\n\n"
        "1. 마음에 드는 상품을 골라 주세요.\n"
        "2. 에어14 장바구니에 담기 (129만원)\n"
        "3. 스톰16 장바구니에 담기 (239만원)\n"
        "4. 두 상품을 비교해 보세요.\n\n"
        "재고가 얼마 남지 않았어요.\n"
        "가격은 바뀔 수 있어요.")
    name, payload = wire(done)
    assert payload["requires_confirmation"] is True
    assert payload["next_suggested_actions"] == ["장바구니 보기", "다른 상품 찾기"]
    assert "failure_tags" not in payload["_trace"]


async def test_lines_whose_condition_fails_are_left_out(tmp_path: Path) -> None:
    done = await done_of(engine_of(tmp_path, SHOP), "노트북", {"items": []})
    assert done.message == ("요청하신 '노트북'에 대해 상품 0개를 확인했습니다.\n\n"
                            "1. 마음에 드는 상품을 골라 주세요.\n\n가격은 바뀔 수 있어요.")
    assert wire(done)[1]["requires_confirmation"] is False


@pytest.mark.parametrize(("items", "why"), [
    ([{"name": "에어14"}], "an item without the `price` its line reads (StrictUndefined)"),
    ("에어14", "`each` over a string, not a list"),
    ([{"name": "에어14", "price": "비쌈"}, 3], "an item that is no mapping"),
])
@pytest.mark.parametrize(("fallback", "said"), [
    ("", "죄송해요, 답변을 정리하지 못했어요. 다시 한 번 말씀해 주세요."),
    ("fallback: sorry", "지금은 정리해서 말씀드리기 어려워요."),
])
async def test_a_part_that_fails_says_the_fallback_and_tags_the_turn(
        tmp_path: Path, items: Any, why: str, fallback: str, said: str) -> None:
    done = await done_of(engine_of(tmp_path, SHOP, fallback), "노트북", {"items": items})
    assert done.message == said, why
    payload = wire(done)[1]
    assert payload["_trace"]["failure_tags"] == ["RESPONSE_SYNTHESIS_FAILED"]
    assert payload["requires_confirmation"] is False  # next_action ASK: nothing to confirm
    assert payload["next_suggested_actions"] == []


async def test_done_fields_are_additive_and_follow_the_stage_by_default(engine: Engine) -> None:
    ready = [e async for e in engine.turn("s", "엄마한테 1만원 보내줘")][-1]
    payload = wire(ready)[1]
    assert list(payload) == ["message", "next_action", "ui_hint", "state_snapshot", "hooks",
                             "_trace", "requires_confirmation", "next_suggested_actions"]
    assert payload["next_action"] == "CONFIRM" and payload["requires_confirmation"] is True
    executed = wire([e async for e in engine.turn("s", "확인")][-1])[1]
    assert executed["requires_confirmation"] is False
    assert executed["next_suggested_actions"] == []


AGENT = """
service: reco
knowledge:
  docs: {dir: knowledge}
models:
  reco:
    provider: scripted
    fixture: replies.yaml
    output_schema:
      type: object
      required: [message, suggested_actions]
      properties:
        message: {type: string}
        suggested_actions: {type: array, items: {type: string}}
default_flow: answer
flows:
  answer:
    initial: ASKED
    stages:
      ASKED:
        steps:
          - {retrieve: docs, top_k: 2}
          - {agent: reco, prompt: reco, model: reco, json_output: true, fallback: offline}
          - if: agents.reco
            then:
              - respond:
                  summary: summary
                  actions: [{each: agents.reco.suggested_actions}]
                  caveats: [{each: retrieved.docs, say: source_line}]
                  next: [{each: "agents.reco.suggested_actions[:1]"}]
messages:
  offline: 지금은 추천할 수 없어요.
  summary: "요청하신 상품 추천에 대해 결과를 확인했습니다."
  source_line: "출처: {{ value.source }} ({{ value.heading }})"
"""


async def test_agent_outputs_and_hits_fill_the_response(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "tests" / "fixtures" / "knowledge", tmp_path / "knowledge")
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "reco.j2").write_text("상품을 추천하세요.", encoding="utf-8")
    (tmp_path / "replies.yaml").write_text(
        '- match: "노트북"\n  repeat: true\n  json: {message: "에어14를 추천해요.", '
        'suggested_actions: ["에어14 상세 보기", "장바구니에 담기"]}\n', encoding="utf-8")
    done = await done_of(engine_of(tmp_path, AGENT), "가벼운 노트북 추천해줘", None)
    assert done.message == (
        "에어14를 추천해요. 요청하신 상품 추천에 대해 결과를 확인했습니다.\n\n"
        "1. 에어14 상세 보기\n2. 장바구니에 담기\n\n"
        "출처: products/laptops.md (노트북 > 가벼운 울트라북 에어14)\n"
        "출처: products/laptops.md (노트북 > 학생용 노트북 스터디15)")
    assert wire(done)[1]["next_suggested_actions"] == ["에어14 상세 보기"]


@pytest.mark.parametrize(("old", "new", "code", "message"), [
    ("- pick\n", "- pik\n", "FL020", "unknown message `pik`"),
    ("summary: summary\n", "summary: sumary\n", "FL020", "unknown message `sumary`"),
    ("{each: \"['장바구니 보기', '다른 상품 찾기']\"}", "{each: \"[1,\"}", "FL030",
     "expression syntax error"),
    ("{say: compare, when: \"context.get('items', []) | length > 1\"}", "{when: 'true'}",
     "FL016", "a response line needs `say` or `each`"),
    ("requires_confirmation: \"context.get('items', []) | length > 0\"",
     "requires_confirmation: basket", "FL031", "`basket` is not defined here"),
])
def test_synthesis_mistakes_are_located(tmp_path: Path, old: str, new: str, code: str,
                                        message: str) -> None:
    assert old in SHOP
    flow = tmp_path / "synth.yaml"
    flow.write_text(SHOP.replace("%FALLBACK%", "").replace(old, new, 1), encoding="utf-8")
    with pytest.raises(FlowDefinitionError) as err:
        compile_file(flow)
    assert any(f.code == code and message in f.message for f in err.value.findings), \
        [(f.code, f.message) for f in err.value.findings]


def test_an_empty_response_is_refused(tmp_path: Path) -> None:
    flow = tmp_path / "synth.yaml"
    flow.write_text(SHOP.replace("%FALLBACK%", "").split("          - respond:")[0]
                    + "          - respond: {next: [pick]}\nmessages: {pick: 골라요}\n",
                    encoding="utf-8")
    with pytest.raises(FlowDefinitionError) as err:
        compile_file(flow)
    assert any("needs a `summary`, `actions` or `caveats`" in f.message
               for f in err.value.findings)


def test_over_http_done_carries_the_fields(tmp_path: Path) -> None:
    flow = tmp_path / "synth.yaml"
    flow.write_text(SHOP.replace("%FALLBACK%", ""), encoding="utf-8")
    server = ServerProcess(flow, "memory://", cwd=tmp_path).wait_ready()
    try:
        response = httpx.post(f"{server.url}/v1/agent/chat", timeout=10, json={
            "session_id": "h1", "message": "노트북", "context": {"items": ITEMS}})
    finally:
        server.stop()
    assert response.status_code == 200, response.text
    interaction = response.json()["interaction"]
    assert interaction["requires_confirmation"] is True
    assert interaction["next_suggested_actions"] == ["장바구니 보기", "다른 상품 찾기"]
    assert interaction["message"].startswith("요청하신 '노트북'에 대해 상품 2개를")
    model = Interaction.model_validate(interaction)
    assert model.requires_confirmation is True  # type: ignore[attr-defined]


async def test_the_reply_docs_dsl_md_shows(tmp_path: Path) -> None:
    """docs/dsl.md's `respond` example, on two items, says exactly the reply shown under it."""
    section = (ROOT / "docs" / "dsl.md").read_text(encoding="utf-8").split(
        "### Response synthesis")[1]
    example, reply = (block.split("\n", 1)[1] for block in section.split("```")[1:4:2])
    flow = "service: docs_example\ndefault_flow: answer\ncontext: {type: object}\n" + example
    done = await done_of(engine_of(tmp_path, flow), "노트북 보여줘", {"items": ITEMS})
    assert done.message == reply.strip()
    assert wire(done)[1]["requires_confirmation"] is True


def test_flowctl_chat_shows_the_suggestions(tmp_path: Path) -> None:
    import subprocess
    import sys

    shutil.copy(ROOT / "tests" / "fixtures" / "help.yaml", tmp_path / "help.yaml")
    shutil.copytree(ROOT / "tests" / "fixtures" / "knowledge", tmp_path / "knowledge")
    ran = subprocess.run([sys.executable, str(ROOT / "cli.py"), "chat", "help.yaml"],
                         input="환불은 언제까지 돼?\n", capture_output=True, text=True,
                         cwd=tmp_path, timeout=60, env={"PATH": "/usr/bin:/bin",
                                                        "PYTHONPATH": str(ROOT)})
    assert ran.returncode == 0, ran.stderr
    assert "1. 교환·환불 정책 > 환불 기간" in ran.stdout
    assert "suggested: 다른 상품도 찾아보기" in ran.stdout
