"""From a fourth blind set of Korean transfer conversations (2026-11-29: dates, several
transfers, corrections), each fixed as a class:

- several people joined and paid each ("엄마랑 아빠한테 각각 5만원씩", "A, B, C한테 각자
  2만원씩"): one task per person, what is said before and after (a date, the amount) in
  every one; without "각각", "각자" or "씩" it is still whom? ("누나랑 형한테 2만원");
- a weekday typed short ("금욜", "담주 화욜");
- a new amount said after what was wrong with the old ("너무 많다 5만원만 하자").

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import datetime as dt

import pytest

from engine.nlu.dates import find_dates
from tests.test_changes_at_confirmation import SINGLE, confirming
from tests.test_plain_amounts import conversation


@pytest.mark.parametrize(("message", "people", "amount"), [
    ("이모랑 삼촌한테 각각 3만원씩 보내줘", ["이모", "삼촌"], 30000),
    ("할머니, 할아버지, 고모한테 각자 만원씩 이체해 줘", ["할머니", "할아버지", "고모"], 10000),
    ("누나와 형에게 4만원씩 송금해 주세요", ["누나", "형"], 40000),
])
async def test_people_paid_each_are_one_task_each(message: str, people: list[str],
                                                  amount: int) -> None:
    turns = await conversation(message, *["네"] * len(people))
    reached = [state["slots"]["target"] for _, state, _ in turns[:-1]]
    assert reached == people
    assert all(state["slots"]["amount"] == amount for _, state, _ in turns[:-1])
    assert turns[-1][1]["stage"] == "EXECUTED"


async def test_a_date_before_people_paid_each_goes_with_every_one() -> None:
    turns = await conversation("글피 이모랑 삼촌한테 각각 2만원 보내줘", "네")
    assert turns[0][1]["slots"]["when"] == turns[1][1]["slots"]["when"] is not None


async def test_people_joined_without_each_is_still_whom() -> None:
    (_, state, _), = await conversation("이모랑 삼촌한테 2만원 보내줘")
    assert state["slots"]["target"] is None and state["slots"]["amount"] == 20000


@pytest.mark.parametrize(("text", "weekday"), [("목욜에 보내줘", 3), ("담주 월욜", 0),
                                               ("이번주 토욜까지", 5)])
def test_a_weekday_typed_short_is_that_day(text: str, weekday: int) -> None:
    (found,) = find_dates(text, dt.date(2026, 3, 11))
    assert found.value.weekday() == weekday


@pytest.mark.parametrize(("reply", "amount"), [("너무 많다 4만원만 하자", 40000),
                                               ("좀 적네 8만원으로 하자", 80000)])
async def test_a_new_amount_after_what_was_wrong_with_the_old(reply: str, amount: int) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == {"amount": amount} and stage == "READY"


async def test_people_paid_each_answering_whom_are_one_task_each() -> None:
    turns = await conversation("5만원 보내줘", "삼촌하고 숙모한테 각자", "네")
    assert [state["slots"]["target"] for _, state, _ in turns[1:]] == ["삼촌", "숙모"]
