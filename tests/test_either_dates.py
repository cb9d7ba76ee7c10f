"""A date said as one of two ("수요일이나 목요일에", "monday or tuesday") names no date to send
on: the date is asked for (never "now", the empty date), and the two are no two tasks. A date
alone with 이나 ("내일이나 보내") is that date. Every sentence here is new: none is in an eval
set, a flow's tests or another test."""

from __future__ import annotations

import pytest

from tests.test_changes_at_confirmation import SINGLE, confirming
from tests.test_plain_amounts import conversation


@pytest.mark.parametrize("message", [
    "할머니한테 5만원 수요일이나 목요일에 보내줘",
    "삼촌한테 2만원 금요일 또는 토요일에 송금해 주세요",
    "send grandpa 20k monday or tuesday",
    "wire 30000 won to jisoo friday/saturday",
    "엄마한테 3만원 내일이나 모레 보내줘", "send mom 30k friday or monday",  # docs/dsl.md
])
async def test_one_of_two_dates_asks_which(message: str) -> None:
    said = await conversation(message)
    reading, snapshot, reply = said[0]
    assert snapshot["stage"] == "FILLING" and snapshot["slots"]["when"] is None
    assert "건이 요청" not in reply and "날짜" in reply  # one task, its date asked for
    assert "when" not in reading["slots"]


async def test_the_date_chosen_after_the_question_is_sent_on() -> None:
    said = await conversation("할머니한테 5만원 수요일이나 목요일에 보내줘", "목요일로 할게", "네")
    assert said[1][1]["stage"] == "READY" and said[1][1]["slots"]["when"] is not None
    assert said[2][1]["stage"] == "EXECUTED"


async def test_a_date_alone_with_ina_is_that_date() -> None:
    said = await conversation("이모한테 2만원 모레나 보내")
    assert said[0][1]["stage"] == "READY" and said[0][1]["slots"]["when"] is not None


@pytest.mark.parametrize("reply", ["수요일 아니면 목요일로 바꿔줘", "move it to monday or tuesday"])
async def test_one_of_two_dates_at_the_confirmation_asks_which(reply: str) -> None:
    _, stage, said = await confirming(SINGLE, reply)
    assert stage == "FILLING" and "날짜" in said


@pytest.mark.parametrize("message", [
    "월요일에 받을 수 있게 일요일에 삼촌한테 5만원 보내줘",
])
async def test_two_dates_in_one_request_ask_which_and_make_one_task(message: str) -> None:
    said = await conversation(message)
    _, snapshot, reply = said[0]
    assert snapshot["stage"] == "FILLING" and snapshot["slots"]["when"] is None
    assert "건이 요청" not in reply and "날짜" in reply


async def test_the_day_of_a_why_is_not_the_requests() -> None:
    """"누나 결혼식이 토요일이라": the wedding's day, told as why; the request's is Friday."""
    said = await conversation("누나 결혼식이 토요일이라 금요일에 누나한테 10만원 보내줘")
    _, snapshot, reply = said[0]
    assert snapshot["stage"] == "READY" and snapshot["slots"]["when"] == "2026-12-04"
    assert "건이 요청" not in reply


async def test_a_date_said_away_before_another_is_the_other() -> None:
    said = await conversation("이모한테 보내줘", "모레 말고 글피로 5만원")
    assert said[1][1]["slots"]["amount"] == 50000 and said[1][1]["slots"]["when"] is not None
