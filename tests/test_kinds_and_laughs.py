"""A value named with its kind at a confirmation ("블랙 색상으로 할래요" while the shop asks to
put a white one in the cart) is the change: the kind is one of the slot's `names`. Laughter
typed onto a word ("할래요ㅋㅋ", "해줘ㅎㅎ") adds nothing to a change.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.test_changes_at_confirmation import SINGLE, confirming
from tests.test_plain_amounts import FLOWS

BUYER = {"is_logged_in": True, "user_id": "u-77", "user_type": "consumer"}


async def shop(*messages: str) -> list[dict[str, Any]]:
    """The state snapshot after each message of a logged-in buyer, one session."""
    engine = Engine(compile_file(FLOWS / "commerce.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    try:
        return [(await engine.reply("s", m, context=BUYER)).state_snapshot for m in messages]
    finally:
        await engine.aclose()


@pytest.mark.parametrize(("change", "option"), [
    ("그냥 실버 컬러로 바꿔줘요", "실버"), ("네이비 색상으로 할게요ㅎㅎ", "네이비"),
    ("음 그레이 색으로 해주세요", "그레이"),
])
async def test_an_option_named_with_its_kind_at_the_confirmation_is_the_change(
        change: str, option: str) -> None:
    *_, state = await shop("P-107 화이트 색상으로 2개 담아줘", change)
    assert state["stage"] == "READY" and state["slots"]["option"] == option


@pytest.mark.parametrize("reply", ["4만원으로 해주세요ㅋㅋㅋ", "4만원으로 바꿀게요ㅎㅎ"])
async def test_laughter_on_a_word_adds_nothing_to_a_change(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == {"amount": 40000} and stage == "READY"
