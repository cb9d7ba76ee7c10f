"""`patterns.confidence.unmatched: clarify`: a request no intent matches — however vague — is
asked to say more and tagged INTENT_LOW_CONFIDENCE; a message that is only social (a
greeting, thanks, a goodbye, a laugh, a filler) still goes to the default flow, as every
unmatched message does without the option."""

from __future__ import annotations

import pytest

from engine.compiler import compile_service
from engine.config import load_settings
from engine.dsl import load_service_text
from engine.runtime.engine import Engine
from engine.store import MemoryStore

FLOW = """
service: shop
default_flow: chat
intents:
  search: {keywords: [찾아, 검색, find], examples: [운동화 찾아줘, 노트북 검색해줘]}
  orders: {keywords: [주문 내역, my orders], examples: [주문 내역 보여줘]}
routes: {search: search, orders: orders}
patterns:
  confidence: {act: 0.85, confirm: 0.7, confirm_ask: sure, clarify_ask: more, unmatched: clarify}
flows:
  chat: {initial: CHAT, stages: {CHAT: {say: menu}}}
  search: {initial: S, stages: {S: {say: searching}}}
  orders: {initial: O, stages: {O: {say: orders}}}
messages:
  menu: 상품 검색과 주문 내역을 도와드려요.
  searching: 찾아볼게요.
  orders: 주문 내역이에요.
  sure: "{{ turn.intent }} 말씀이세요?"
  more: 어떤 도움이 필요하신지 조금 더 알려주세요.
"""


def engine_of(text: str) -> Engine:
    spec, source = load_service_text(text, "shop.yaml")
    return Engine(compile_service(spec, source), store=MemoryStore(), settings=load_settings({}))


@pytest.mark.parametrize("message", [
    "뭔가 괜찮은 거 있을까", "아무거나 좀", "그거 있잖아 그거", "something nice maybe",
    "좋은 거 추천 좀", "음... 어떻게 하지",
])
async def test_a_vague_request_is_asked_to_say_more_and_tagged(message: str) -> None:
    done = await engine_of(FLOW).reply("s", message)
    assert done.message == "어떤 도움이 필요하신지 조금 더 알려주세요."
    assert done.trace["failure_tags"] == ["INTENT_LOW_CONFIDENCE"]
    assert done.state_snapshot["flow"] is None


@pytest.mark.parametrize("message", [
    "안녕하세요!", "감사합니다 ㅎㅎ", "ㅋㅋㅋ", "hello there", "thanks a lot", "잘 있어요", "음...",
])
async def test_a_social_message_still_goes_to_the_default_flow(message: str) -> None:
    done = await engine_of(FLOW).reply("s", message)
    assert done.message == "상품 검색과 주문 내역을 도와드려요."
    assert "failure_tags" not in done.trace


async def test_without_the_option_every_unmatched_message_goes_to_the_default_flow() -> None:
    done = await engine_of(FLOW.replace(", unmatched: clarify", "")).reply("s", "아무거나 좀")
    assert done.message == "상품 검색과 주문 내역을 도와드려요."
    assert "failure_tags" not in done.trace


async def test_a_matched_request_is_not_affected() -> None:
    done = await engine_of(FLOW).reply("s", "운동화 좀 찾아줘")
    assert done.message == "찾아볼게요."
