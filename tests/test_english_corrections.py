"""What a second set of English conversations written blind found.

- A no that only holds off ("no, don't send it yet", "nah not now") waits, as "아직은
  아니야" does; a cancel word with it still cancels ("never mind, I'll do it later").
- A cancel after an interjection ("ugh never mind", "welp, forget it") and "don't bother"
  cancel.
- A correction in English inside the message that says it: an amount after a bare "no"
  ("40k, no, 45k"), a "sorry" at the end correcting nothing; a name said alone after the
  correction ("…to grandma, actually grandpa"); "friday not tomorrow" at a confirmation.
- "forty k", thousands followed by "in 3 days" or "then"; "on the 20th" as a date.
- A question about cancelling later is no date of sending: the date said stays.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.test_changes_at_confirmation import SINGLE_EN, confirming
from tests.test_plain_amounts import conversation


@pytest.mark.parametrize("reply", ["nope, not yet", "nah don't send it now",
                                   "no no not yet lol", "don't transfer it until i say so"])
async def test_a_no_that_only_holds_off_waits(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE_EN, reply)
    assert reading["decision"] is None and stage == "READY"


@pytest.mark.parametrize("reply", ["no don't send it", "cancel it for now",
                                   "never mind, maybe later", "ugh forget it",
                                   "welp, nevermind", "oops cancel", "don't bother"])
async def test_a_cancel_still_cancels(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE_EN, reply)
    assert reading["decision"] == "cancel" and stage == "CANCELLED"


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("pay dad 40k, no, 45k", "dad", 45000),
    ("wire jisoo 15k.. no 18k sorry", "jisoo", 18000),
    ("send 60k to grandma, actually grandpa", "grandpa", 60000),
    ("transfer 25k to tom no wait jerry", "jerry", 25000),
    ("send aunt 70k i mean 7k", "aunt", 7000),
])
async def test_a_correction_inside_the_request_is_the_value(message: str, target: str,
                                                            amount: int) -> None:
    said = await conversation(message)
    assert said[0][1]["stage"] == "READY"
    assert (said[0][1]["slots"]["target"], said[0][1]["slots"]["amount"]) == (target, amount)


async def test_a_correction_that_takes_everything_back_cancels() -> None:
    said = await conversation("send 30k to mom actually never mind")
    assert said[0][1]["stage"] == "CANCELLED"


async def test_a_date_with_the_one_it_replaces_said_away_changes_it() -> None:
    said = await conversation("send 20000 won to jiwoo tomorrow", "do it friday not tomorrow")
    when = said[1][1]["slots"]["when"]
    assert said[1][0]["slots"] == {"when": when} and said[1][1]["stage"] == "READY"
    assert dt.date.fromisoformat(when).weekday() == 4  # a Friday, not tomorrow


@pytest.mark.parametrize(("message", "amount"), [
    ("send minho forty k", 40000), ("send jo 40 thousand in 2 days", 40000),
    ("send dad 2 million then", 2_000_000),
])
async def test_english_amount_forms(message: str, amount: int) -> None:
    said = await conversation(message)
    assert said[0][1]["slots"]["amount"] == amount


@pytest.mark.parametrize(("message", "day"), [("send mina 30k on the 20th", 20),
                                              ("send mina 30k the 1st of next month", 1)])
async def test_a_day_of_the_month_in_english_is_the_date(message: str, day: int) -> None:
    said = await conversation(message)
    assert int(said[0][1]["slots"]["when"][-2:]) == day


@pytest.mark.parametrize("message", ["send mina 30k for her 20th birthday",
                                     "send the 3rd floor neighbour 30k"])
async def test_a_floor_or_a_birthday_is_no_date(message: str) -> None:
    said = await conversation(message)
    assert said[0][1]["slots"]["amount"] == 30000 and said[0][1]["slots"]["when"] is None


@pytest.mark.parametrize("question", ["can I cancel it later?", "나중에 취소돼?",
                                      "could i undo it later?"])
async def test_a_question_about_cancelling_later_keeps_the_date(question: str) -> None:
    said = await conversation("send mina 30k tomorrow", question)
    assert said[1][1]["stage"] == "READY"
    assert said[1][1]["slots"]["when"] == said[0][1]["slots"]["when"] is not None


@pytest.mark.parametrize(("reply", "decision"), [  # docs/dsl.md's examples
    ("not yet", None), ("no, don't send it now", None), ("cancel it for now", "cancel"),
    ("never mind, I'll do it later", "cancel"),
])
async def test_the_documented_holds(reply: str, decision: str | None) -> None:
    reading, _, _ = await confirming(SINGLE_EN, reply)
    assert reading["decision"] == decision


async def test_the_documented_examples() -> None:  # docs/understanding.md
    assert (await conversation("send 60k to grandma, actually grandpa"))[0][1]["slots"][
        "target"] == "grandpa"
    assert (await conversation("send mom 40k, no, 45k"))[0][1]["slots"]["amount"] == 45000
    assert (await conversation("send mom forty k"))[0][1]["slots"]["amount"] == 40000
    said = await conversation("send mom 40k tomorrow", "can I cancel it later?")
    assert said[1][1]["slots"]["when"] == said[0][1]["slots"]["when"]
