"""The online shop (flows/commerce.yaml) read in the words its customers use beyond the
flow's Korean examples: English for every intent and value, buying said as 구입 or "사고
싶어", and a payment or purchase called off as a cancellation (never as a purchase).

Every sentence here is new: none is in an eval set or the flow's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore

FLOW = Path(__file__).resolve().parents[1] / "flows" / "commerce.yaml"
SHOPPER = {"is_logged_in": True, "user_type": "consumer", "user_id": "u-31"}


async def reading_of(message: str) -> dict[str, Any]:
    engine = Engine(compile_file(FLOW), store=MemoryStore(), settings=load_settings({}))
    try:
        done = await engine.reply("s", message, context=SHOPPER)
    finally:
        await engine.aclose()
    return dict(done.trace.get("reading") or {})


@pytest.mark.parametrize(("message", "intent", "slots"), [
    ("suggest a laptop for school", "get_recommendation",
     {"category": "laptop", "purpose": "study"}),
    ("any good headphones for gaming? recommend one", "get_recommendation",
     {"category": "earphone", "purpose": "game"}),
    ("I got a fake bag from this seller, total scam", "report_safety", {}),
    ("compare the cheapest offers for P-109", "compare_price", {"product": "P-109"}),
    ("swap my order ORD-4402 for another size", "exchange",
     {"order_id": "ORD-4402", "kind": "exchange"}),
])
async def test_english_names_the_intent_and_its_values(message: str, intent: str,
                                                       slots: dict[str, Any]) -> None:
    reading = await reading_of(message)
    assert reading["intent"] == intent
    assert {k: reading["slots"].get(k) for k in slots} == slots


@pytest.mark.parametrize("message", ["무선 키보드 하나 구입하려고요", "이 모니터 꼭 사고 싶어요",
                                     "purchase two of P-102 please"])
async def test_buying_in_other_words_is_a_purchase(message: str) -> None:
    assert (await reading_of(message))["intent"] == "purchase"


@pytest.mark.parametrize("message", ["구매 취소 부탁드려요", "어제 한 결제취소 해주세요",
                                     "구입 취소하고 싶어요 ORD-5150", "주문 캔슬할게요"])
async def test_a_purchase_called_off_is_a_cancellation(message: str) -> None:
    reading = await reading_of(message)
    assert reading["intent"] == "cancel_order"
    assert reading["slots"].get("kind") == "cancel"
    assert "checkout" not in reading["slots"]


async def test_noise_cancelling_cancels_nothing() -> None:
    reading = await reading_of("노이즈캔슬링 헤드폰 추천 부탁해요")
    assert reading["intent"] == "get_recommendation"
    assert reading["slots"].get("kind") is None


@pytest.mark.parametrize("message", ["배송비는 얼마 받아요?", "배송지를 회사로 바꿀 수 있나요"])
async def test_the_delivery_fee_and_address_are_no_order_status(message: str) -> None:
    assert (await reading_of(message))["intent"] != "order_status"
