"""A plain number said right after a money slot's name is its amount ("금액 30000으로",
"amount to 30000"): at the transfer's confirmation, while something else is asked, and in a
first message; never a number in a question, a condition, a negation or under the least
plain amount (100원? 100만원?), nor a number of something else. And a date change said in
English with its preposition or verb ("send it on friday", "set it for monday"), which a
sentence about something else is not. A slot's name is its name spaced or not ("받는분",
"보낼돈" for "받는 분", "보낼 돈").

Every sentence here is new: none is in an eval set, a flow's tests or another test."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.test_changes_at_confirmation import BATCH, SINGLE, SINGLE_EN, confirming
from tests.test_turned_down_words import reply_to_first


@pytest.mark.parametrize("before", [SINGLE, BATCH, SINGLE_EN], ids=["single", "batch", "en"])
@pytest.mark.parametrize(("reply", "amount"), [
    ("금액 45000으로 해줘", 45000),
    ("액수는 이만오천", 25000),
    ("보낼 돈 15000으로 바꿔줘", 15000),
    ("금액을 7만으로 변경", 70000),
    ("set the amount to 12000", 12000),
    ("the amount should be 65,000", 65000),
    ("amount: 70000 please", 70000),
])
async def test_a_plain_number_after_the_amounts_name_is_the_new_amount(
        before: list[str], reply: str, amount: int) -> None:
    reading, stage, said = await confirming(before, reply)
    assert reading["decision"] is None and reading["slots"] == {"amount": amount}
    assert stage == "READY" and (f"{amount:,}" in said or f"{amount // 10000}만" in said)


@pytest.mark.parametrize("reply", [
    "금액 40000 넘으면 수수료 있어?",  # a question
    "금액 35000이면 보낼게",  # a condition
    "금액 20000 아니에요",  # a negation
    "금액 20000 보내지 마",
    "the amount isn't 20000",
    "금액 300으로",  # 300원? 300만원?
    "금액 30000 이상은 곤란해",  # a limit, not the amount
    "수수료 500원이면 금액 20000은 좀",  # about something else
    "금액 3개로",  # a count of something else
])
async def test_a_number_after_the_amounts_name_not_said_as_the_amount_changes_nothing(
        reply: str) -> None:
    reading, stage, said = await confirming(SINGLE, reply)
    assert not reading.get("slots") and reading.get("decision") is None
    assert stage == "READY" and "6만원" in said


async def test_a_plain_number_after_the_amounts_name_answers_another_question() -> None:
    reading, _, _ = await reply_to_first("큰엄마한테 금액 55000 보내줘")
    assert reading["slots"] == {"target": "큰엄마", "amount": 55000}


@pytest.mark.parametrize("before", [SINGLE, SINGLE_EN], ids=["ko", "en"])
@pytest.mark.parametrize(("reply", "day"), [
    ("send it on wednesday", 2),
    ("set it for thursday", 3),
    ("change the date to saturday", 5),
    ("move it to tuesday", 1),
    ("on sunday instead", 6),
])
async def test_an_english_date_change_with_its_preposition_is_the_new_date(
        before: list[str], reply: str, day: int) -> None:
    reading, stage, _ = await confirming(before, reply)
    when = reading["slots"].get("when")
    assert reading["decision"] is None and stage == "READY"
    assert when is not None and dt.date.fromisoformat(when).weekday() == day


@pytest.mark.parametrize("reply", [
    "the bank is closed on saturday",
    "send it on monday if my salary is in",
    "send dad 30k on thursday too",
    "what about tuesday",
    "is monday ok?",
])
async def test_an_english_date_in_a_sentence_about_something_else_is_none(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert not reading.get("slots") and stage == "READY"



@pytest.mark.parametrize(("reply", "slots"), [  # docs/understanding.md's examples
    ("금액 30000으로", {"amount": 30000}), ("액수는 이만오천", {"amount": 25000}),
    ("amount to 30000", {"amount": 30000}), ("금액 30000 이상은 곤란해", {}),
    ("금액 300으로", {}), ("send it on friday", {"when": "friday"}),
    ("the bank is closed on saturday", {}),
])
async def test_the_documented_named_amounts_and_english_dates(reply: str,
                                                              slots: dict[str, object]) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    said = dict(reading.get("slots") or {})
    if "when" in said:
        assert dt.date.fromisoformat(said["when"]).strftime("%A").lower() == slots["when"]
        said["when"] = slots["when"]
    assert said == slots and reading.get("decision") is None and stage == "READY"


@pytest.mark.parametrize(("reply", "slots"), [
    ("받는분은 외숙모로 해줘", {"target": "외숙모"}),  # the flow names "받는 분"
    ("보낼돈 35000으로 바꿔줘", {"amount": 35000}),  # "보낼 돈"
])
async def test_a_slots_name_said_without_its_space_names_it(reply: str,
                                                            slots: dict[str, object]) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == slots and reading["decision"] is None and stage == "READY"


@pytest.mark.parametrize(("reply", "slot"), [("받는분 다시 할래", "target"),
                                           ("이체날짜 빼줘", "when")])
async def test_a_slot_taken_back_by_its_name_without_its_space_is_taken_back(
        reply: str, slot: str) -> None:
    reading, _, _ = await confirming(["할머니한테 6만원 내일 보내줘"], reply)
    assert reading["slots"] == {slot: None}

