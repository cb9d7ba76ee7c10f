"""A budget said as "up to" ("15만원까지요") is a budget — 까지 is a particle of a bound, as
이하 is — and a question taken back by a correction ("40만원? 아니다 20만원 이하로") reads what
is said after it; found by a blind shop set. The transfer's exact amount still refuses a
bound ("5만원까지"). Every sentence here is new."""

from __future__ import annotations

from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.test_changes_at_confirmation import FLOWS
from tests.test_plain_amounts import conversation

BUYER = {"is_logged_in": True, "user_id": "u7", "user_type": "consumer"}


async def recommend(*messages: str) -> list[dict[str, Any]]:
    engine = Engine(compile_file(FLOWS / "commerce.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    try:
        return [dict((await engine.reply("b", m, context=BUYER)).trace.get("reading") or {})
                for m in messages]
    finally:
        await engine.aclose()


@pytest.mark.parametrize(("answer", "budget"), [
    ("30만원까지요", 300000), ("20만원까지", 200000), ("50만? 아니 35만원 이하로요", 350000),
])
async def test_a_budget_up_to_or_after_a_question_taken_back_is_read(answer: str,
                                                                     budget: int) -> None:
    said = await recommend("출근용 이어폰 추천 좀", answer)
    assert said[1]["slots"].get("budget") == budget


@pytest.mark.parametrize("answer", ["30만원?", "30만원까지 되나요?"])
async def test_a_budget_asked_is_not_read(answer: str) -> None:
    said = await recommend("출근용 이어폰 추천 좀", answer)
    assert "budget" not in said[1]["slots"]


async def test_an_exact_amount_still_refuses_up_to() -> None:
    said = await conversation("이모한테 보내줘", "7만원까지")
    assert said[1][1]["slots"]["amount"] is None
