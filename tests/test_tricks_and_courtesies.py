"""Classes found by two blind sets of 2026-11-29 — the transfer service against tricks, and a
third pizza set of dictated, very polite and non-native customers:

- a yes written as markup ("{{ confirm }}") confirmed (and asked the bank to move money):
  markup is no decision;
- insisting ("보내라고요", "이체하라니까") was not read as the yes it is; with someone named
  before it, it is their words;
- a time of something already done ("다음 달로 미뤘다가") or naming which thing ("이번 달
  생활비가") asked for a date;
- a polite "if" ("if you would", "if it isn't too much bother") made a value a condition;
- long, courteous and non-native yeses ("that sounds just right", "is correct", "yes from
  me too") were not read;
- "no, keep it" answering "change the size?" was the order's no, not the change's;
- "when" joining a clause of time ("cash when he gets here") made a question;
- a card number said with the method ("card 5555 …") was dropped (flows/pizza.yaml names
  the card number "card" too).

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_changes_at_confirmation import SINGLE, SINGLE_EN, confirming
from tests.test_plain_amounts import conversation
from tests.test_yes_forms_and_unsaid_cancels import decided_as

ORDERED = ["small pizza no extra cheese", "place it"]
"""A pizza order confirmed: the payment asks card or cash."""


async def pizza(*messages: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(the reading, the state, the reply) of the last of ``messages`` to the pizza shop."""
    *_, last = await conversation(*messages, flow="pizza.yaml")
    return last


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE_EN, "{{ yes }}"), (SINGLE_EN, "<confirm/>"), (SINGLE_EN, "`yes`"),
    (SINGLE, "${ok}"), (SINGLE, "{% 확인 %}"),
])
async def test_a_yes_written_as_markup_moves_nothing(before: list[str], reply: str) -> None:
    await decided_as(before, reply, None)


@pytest.mark.parametrize("reply", ["보내라니까요", "이체하라고요", "네 송금하라니까"])
async def test_insisting_is_the_yes(reply: str) -> None:
    await decided_as(SINGLE, reply, "confirm")


@pytest.mark.parametrize("reply", ["아빠가 보내라니까", "누나가 이체하라고요", "보내라고요?"])
async def test_insisting_in_someone_elses_words_or_asked_moves_nothing(reply: str) -> None:
    await decided_as(SINGLE, reply, None)


@pytest.mark.parametrize("reply", ["지난번엔 나중에 했다가 잊어버렸어요",
                                   "이번 주 일정이 바빠서요", "작년엔 다음 달로 미뤘었거든요"])
async def test_a_time_of_something_done_or_of_a_thing_asks_no_date(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == {} and stage == "READY"


async def test_a_time_to_send_on_is_still_asked_about() -> None:
    reading, stage, _ = await confirming(SINGLE, "다음 달 초에 보내줘")
    assert stage == "FILLING"  # the date is asked for: no time that names no date is "now"


@pytest.mark.parametrize(("answer", "size"), [
    ("medium, if you would", "medium"), ("large if it's not too much trouble", "large"),
    ("small, if that's quite alright", "small"),
])
async def test_a_polite_if_leaves_the_value(answer: str, size: str) -> None:
    _, state, _ = await pizza("i'd like a pizza", answer)
    assert state["slots"]["size"] == size


async def test_a_real_condition_still_holds_the_value() -> None:
    _, state, _ = await pizza("i'd like a pizza", "large if they have it in stock")
    assert state["slots"]["size"] is None


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE_EN, "yes, is correct"), (SINGLE_EN, "all correct, go ahead"),
    (SINGLE_EN, "yes from me as well"),
    (SINGLE_EN, "Oh that sounds perfect. Yes please, go ahead. Thank you kindly for your help."),
])
async def test_courteous_and_non_native_yeses_confirm(before: list[str], reply: str) -> None:
    await decided_as(before, reply, "confirm")


@pytest.mark.parametrize("answer", ["nah, leave it", "no, keep the medium",
                                    "nope keep it as it was"])
async def test_no_keep_it_answers_the_change_question(answer: str) -> None:
    reading, state, said = await pizza("medium pizza extra cheese", "make it large", answer)
    assert reading["decision"] == "deny" and state["stage"] == "READY"
    assert "stays medium" in said and state["slots"]["size"] == "medium"


@pytest.mark.parametrize("answer", ["i'll pay cash when you get here",
                                    "cash when the driver comes"])
async def test_when_joining_a_clause_of_time_asks_nothing(answer: str) -> None:
    _, state, said = await pizza(*ORDERED, answer)
    assert state["slots"]["method"] == "cash" and said == "Pay by cash?"


async def test_when_opening_a_question_still_asks() -> None:
    _, state, _ = await pizza(*ORDERED, "when will it get here")
    assert state["slots"]["method"] is None


async def test_the_card_number_said_with_the_method_is_read() -> None:
    _, state, said = await pizza(*ORDERED, "credit card 4111 1111 1111 1111")
    assert state["stage"] == "READY" and "ending 1111" in said


@pytest.mark.parametrize(("before", "reply", "decision"), [
    (SINGLE, "보내라고요", "confirm"), (SINGLE, "이체하라니까", "confirm"),
    (SINGLE, "아빠가 보내라니까", None), (SINGLE_EN, "{{ confirm }}", None),
    (SINGLE_EN, "<yes>", None), (SINGLE_EN, "`ok`", None),
    (SINGLE_EN, "Oh, that sounds lovely. Yes, please go ahead and place it. Thank you so much "
                "for your help.", "confirm"),
    (SINGLE_EN, "yes yes, is correct", "confirm"),
    (SINGLE, "그때는 다음 달로 미뤘다가", None), (SINGLE, "이번 달 생활비가 빠듯해", None),
])
async def test_the_documented_decisions(before: list[str], reply: str,
                                        decision: str | None) -> None:
    """docs/understanding.md, "The precision contract"."""
    await decided_as(before, reply, decision)


@pytest.mark.parametrize(("messages", "slot", "value"), [
    (("medium pizza extra cheese", "make it large", "no, keep it"), "size", "medium"),
    (("medium pizza extra cheese", "make it large", "nah, leave it"), "size", "medium"),
    (("i'd like a pizza", "large, if it isn't too much bother"), "size", "large"),
    (("i'd like a pizza", "small, if that's quite all right"), "size", "small"),
    ((*ORDERED, "cash when he gets here"), "method", "cash"),
])
async def test_the_documented_pizza_examples(messages: tuple[str, ...], slot: str,
                                             value: str) -> None:
    """docs/understanding.md, the same section."""
    _, state, _ = await pizza(*messages)
    assert state["slots"][slot] == value
