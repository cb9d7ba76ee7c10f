"""From the online shop's blind set in English (2026-11-29), each fixed as a class:

- a free-text answer (a review's comment) opened like an English question but asking nothing
  ("does what it says", "Was on the fence…") is the answer, and a number said in words in it
  ("zero regrets", "one of the best") is no other slot's value; one opened with a question
  word or with a "?" still asks;
- a precaution is no condition ("just in case, …");
- a preference is no comparison ("I'd rather have an exchange than money back");
- looking for one's own papers is no product search ("lemme find the number");
- a number typed onto a name ("버즈3", "MX3") is part of the name, no count.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.calls.actions import ActionStub
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.test_plain_amounts import FLOWS

SHOPPER = {"is_logged_in": True, "user_id": "u-5", "user_type": "consumer"}
DELIVERED = {"order_id": "ORD-1002", "product": "갤럭시 버즈3", "status": "DELIVERED",
             "amount": 159000}


async def shop(*messages: str) -> dict[str, Any]:
    """The state after ``messages``, one shopper's session, the shop's order lookup stubbed."""
    engine = Engine(compile_file(FLOWS / "commerce.yaml"), store=MemoryStore(),
                    settings=load_settings({}), stubs={"get_order": ActionStub(DELIVERED, None)})
    try:
        for message in messages:
            done = await engine.reply("t", message, context=SHOPPER)
    finally:
        await engine.aclose()
    return dict(done.state_snapshot)


@pytest.mark.parametrize("comment", [
    "Does exactly what it promises, zero complaints", "Is now my daily driver, one of the best",
    "Can't believe the battery, two days easy",
])
async def test_an_english_note_that_opens_like_a_question_is_the_note(comment: str) -> None:
    state = await shop("버즈3 리뷰 쓸게요 별점 5점", comment)
    assert state["slots"]["comment"] == comment and state["slots"]["rating"] == 5
    assert state["stage"] == "READY"


@pytest.mark.parametrize("comment", ["what do people usually write here", "is emoji ok?"])
async def test_a_note_that_asks_is_no_note(comment: str) -> None:
    state = await shop("버즈3 리뷰 쓸게요 별점 5점", comment)
    assert state["slots"]["comment"] is None


async def test_a_precaution_is_no_condition() -> None:
    state = await shop("just in case, ORD-1002 교환 부탁해요")
    assert state["slots"]["order_id"] == "ORD-1002" and state["slots"]["kind"] == "exchange"


async def test_a_preference_is_no_comparison() -> None:
    state = await shop("ORD-1002 환불해줘", "actually I'd much rather get a 교환 than the money")
    assert state["slots"]["kind"] == "exchange" and state["stage"] == "READY"


@pytest.mark.parametrize("reply", ["wait let me find the order number", "영수증 찾아볼게요"])
async def test_looking_for_ones_own_papers_is_no_product_search(reply: str) -> None:
    state = await shop("환불하고 싶어요", reply)
    assert state["flow"] == "after_sales" and state["stage"] == "FILLING"


@pytest.mark.parametrize(("message", "rating"), [("갤럭시탭S9 후기 쓸래요 별점 4점", 4),
                                                  ("review for the MX3, 2 stars", 2)])
async def test_a_number_typed_onto_a_name_is_no_count(message: str, rating: int) -> None:
    state = await shop(message)
    assert state["slots"]["rating"] == rating
