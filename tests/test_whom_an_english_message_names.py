"""Whom an English message sends to, found unread by a third blind set of English transfer
conversations (2026-11-29, native speakers living in Korea):

- a romanised full name ("Park Jiyoung") kept whole, a relation with hyphens
  ("mother-in-law"), more verbs of paying ("chuck", "pay back", "give", "owe"), a relation
  paid with no amount yet ("pay my uncle"; not "pay my rent") and "for my landlord"
  (flows/transfer.yaml's patterns);
- an answer of who opened by "it's", "that's" or "for" ("it's my brother"), or said with
  what they did ("my flatmate Jake, he covered the gas bill": a message with no value at
  all is no batch of tasks);
- at the confirmation, only the new one said as meant ("sorry, I meant my sister",
  "actually my dad", "make it my uncle"), or the new one before the one said away ("it's
  for my dad not my mom");
- "never mind the date, send it now" cancelled the transfer: it takes the date back;
- "can it go on friday instead" and "push it to the 20th" changed nothing.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_changes_at_confirmation import confirming
from tests.test_plain_amounts import conversation

READY_EN = ["send 50k to grandma tomorrow"]
"""A transfer at its confirmation: 50,000 won to grandma, tomorrow."""


async def said(*messages: str) -> dict[str, Any]:
    """The state after ``messages`` to the transfer service."""
    *_, (_, state, _) = await conversation(*messages)
    return state


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("wire 80k to Lee Seojun", "Lee Seojun", 80000),
    ("pay Choi Yuna 12,000 won", "Choi Yuna", 12000),
    ("send my father-in-law 50,000 won", "father-in-law", 50000),
    ("give my nephew 10k", "nephew", 10000),
    ("chuck my cousin 15k mate", "cousin", 15000),
    ("can you do 60k for my babysitter", "babysitter", 60000),
    ("I owe Daniel 40,000, can you pay him", "Daniel", 40000),
])
async def test_whom_an_english_request_names(message: str, target: str, amount: int) -> None:
    state = await said(message)
    assert state["slots"]["target"] == target and state["slots"]["amount"] == amount
    assert state["stage"] == "READY"


async def test_a_capitalised_day_after_a_name_is_no_surname() -> None:
    state = await said("send 30k to Mom Tomorrow")
    assert state["slots"]["target"] == "Mom" and state["slots"]["when"] is not None


@pytest.mark.parametrize(("message", "target"), [("pay my aunt", "aunt"),
                                                  ("pay my bills", None),
                                                  ("pay my rent", None)])
async def test_one_of_ones_own_paid_with_no_amount_yet(message: str, target: str | None) -> None:
    state = await said(message)
    assert state["slots"]["target"] == target and state["stage"] == "FILLING"


@pytest.mark.parametrize(("answer", "target"), [
    ("it's my cousin", "cousin"), ("that's my aunt", "aunt"), ("for my nephew", "nephew"),
    ("Daniel, he fixed my bike", "Daniel"), ("its Mina", "Mina"),
])
async def test_an_answer_of_who_with_words_around_it(answer: str, target: str) -> None:
    state = await said("send 30k", answer)
    assert state["slots"]["target"] == target and state["stage"] == "READY"


@pytest.mark.parametrize("answer", ["it's raining", "its fine"])
async def test_an_answer_that_names_no_one_is_none(answer: str) -> None:
    state = await said("send 30k", answer)
    assert state["slots"]["target"] is None


@pytest.mark.parametrize(("reply", "target"), [
    ("sorry, I meant my aunt", "aunt"), ("actually my cousin", "cousin"),
    ("make it my uncle", "uncle"), ("it's for my son not my grandma", "son"),
    ("grandpa not grandma", "grandpa"),
])
async def test_the_recipient_said_as_meant_at_the_confirmation(reply: str, target: str) -> None:
    reading, stage, _ = await confirming(READY_EN, reply)
    assert reading["slots"] == {"target": target} and stage == "READY"


@pytest.mark.parametrize("reply", ["actually, go ahead", "i meant 40k", "actually never mind"])
async def test_what_is_no_name_said_as_meant_changes_no_recipient(reply: str) -> None:
    reading, _, _ = await confirming(READY_EN, reply)
    assert "target" not in reading["slots"]


@pytest.mark.parametrize("reply", ["never mind the date, send it now", "skip the date",
                                   "forget about the date", "날짜는 빼고 그냥 지금 보내줘"])
async def test_taking_the_date_back_is_no_cancel(reply: str) -> None:
    reading, stage, _ = await confirming(READY_EN, reply)
    assert reading["slots"] == {"when": None} and reading["decision"] is None
    assert stage == "READY"


async def test_never_mind_alone_still_cancels() -> None:
    reading, stage, _ = await confirming(READY_EN, "never mind")
    assert reading["decision"] == "cancel" and stage == "CANCELLED"


@pytest.mark.parametrize("reply", ["can it go on the 25th instead", "delay it to the 26th",
                                   "actually push it to the 27th"])
async def test_a_new_date_said_as_moving_it(reply: str) -> None:
    reading, stage, _ = await confirming(READY_EN, reply)
    assert list(reading["slots"]) == ["when"] and stage == "READY"


@pytest.mark.parametrize(("before", "answer", "target"), [
    (["send 30k"], "it's my brother", "brother"), (["send 30k"], "for my nephew", "nephew"),
    (["send 30k"], "my flatmate Jake, he covered the gas bill", "flatmate Jake"),
])
async def test_the_documented_answers(before: list[str], answer: str, target: str) -> None:
    """docs/understanding.md, "Words around a value that change nothing are read past"."""
    state = await said(*before, answer)
    assert state["slots"]["target"] == target


@pytest.mark.parametrize(("reply", "slots"), [
    ("sorry, I meant my sister", {"target": "sister"}), ("actually my dad", {"target": "dad"}),
    ("it's for my dad not my grandma", {"target": "dad"}),
    ("never mind the date, send it now", {"when": None}),
])
async def test_the_documented_changes(reply: str, slots: dict[str, Any]) -> None:
    """docs/understanding.md, the same paragraph."""
    reading, stage, _ = await confirming(READY_EN, reply)
    assert reading["slots"] == slots and stage == "READY"
