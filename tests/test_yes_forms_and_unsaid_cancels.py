"""What a confirmation reads in forms the blind sets of 2026-11-29 (a third Korean transfer
set, a second card-desk set) found unread or misread:

- a cancel word negated in English ("don't cancel it!!") cancelled: it is no cancel and no
  no; with a yes ("yes, don't cancel") it is the yes;
- "stop asking" ("그만 물어보고 보내") cancelled: "stop" said of something other than the
  flow's doing is no cancel, and what follows it is the answer;
- formal and written yes forms ("송금하여 주십시오", "틀림없습니다", "확인하였습니다"), and
  English ones ("yep thats it", "do the needful", "spot on") were not read;
- an adverb typed onto the verb ("이제보내줘") was not read as the spaced form is.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from tests.test_card_desk_blind import READY, desk
from tests.test_changes_at_confirmation import SINGLE, SINGLE_EN, confirming


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE_EN, "please do not cancel"), (SINGLE_EN, "never cancel it"),
    (SINGLE_EN, "no, don't cancel the transfer"), (SINGLE_EN, "dont cancel!!!"),
])
async def test_a_cancel_word_negated_is_no_decision(before: list[str], reply: str) -> None:
    await decided_as(before, reply, None)


async def test_a_cancel_word_negated_at_the_card_desk_keeps_the_order_open() -> None:
    *_, (reading, state, said) = await desk(*READY, "no no do not cancel it")
    assert reading["decision"] is None and state["stage"] == "READY" and "Cancelled" not in said


async def test_a_yes_with_a_cancel_word_negated_is_the_yes() -> None:
    reading, stage, _ = await confirming(SINGLE_EN, "yes, don't cancel")
    assert reading["decision"] == "confirm" and stage == "EXECUTED"


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE, "그만 좀 물어보고 이체해"), (SINGLE, "그만 묻고 보내 주세요"),
    (SINGLE_EN, "quit asking and send it"), (SINGLE_EN, "stop asking me questions, just do it"),
])
async def test_stop_asking_then_a_yes_is_the_yes(before: list[str], reply: str) -> None:
    await decided_as(before, reply, "confirm")


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE, "그만 물어보세요"), (SINGLE_EN, "stop bugging me"), (SINGLE, "그만 좀 귀찮게 해"),
])
async def test_stop_asking_alone_cancels_nothing(before: list[str], reply: str) -> None:
    await decided_as(before, reply, None)


@pytest.mark.parametrize("reply", ["그만", "그만할래요", "그만 둘게요"])
async def test_stop_alone_still_cancels(reply: str) -> None:
    await decided_as(SINGLE, reply, "cancel")


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE, "이체하여 주시기 바랍니다"), (SINGLE, "정확합니다"), (SINGLE, "틀림없어요 보내주세요"),
    (SINGLE, "네 확인하였습니다"), (SINGLE_EN, "precisely"), (SINGLE_EN, "bang on, go ahead"),
    (SINGLE_EN, "that's the one"), (SINGLE_EN, "you got it"), (SINGLE_EN, "works for me"),
])
async def test_formal_and_idiomatic_yes_forms_confirm(before: list[str], reply: str) -> None:
    await decided_as(before, reply, "confirm")


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE, "송금하여 주시겠습니까"), (SINGLE_EN, "thats it?"), (SINGLE_EN, "is that it"),
    (SINGLE, "진짜네"), (SINGLE, "바로네"),
])
async def test_the_same_words_asked_or_exclaimed_confirm_nothing(before: list[str],
                                                                 reply: str) -> None:
    await decided_as(before, reply, None)


@pytest.mark.parametrize("reply", ["얼른보내줘", "바로이체해", "걍보내"])
async def test_an_adverb_typed_onto_the_verb_is_read_as_spaced(reply: str) -> None:
    await decided_as(SINGLE, reply, "confirm")


async def test_an_adverb_typed_onto_a_negated_verb_cancels_as_spaced() -> None:
    reading, stage, _ = await confirming(SINGLE, "그냥보내지마")
    assert reading["decision"] == "cancel" and stage == "CANCELLED"


@pytest.mark.parametrize(("before", "reply", "decision"), [
    (SINGLE_EN, "don't cancel it!!", None), (SINGLE, "취소하지 마", None),
    (SINGLE_EN, "yes, don't cancel", "confirm"), (SINGLE, "그만 물어보고 보내", "confirm"),
    (SINGLE_EN, "stop asking and send it", "confirm"), (SINGLE_EN, "stop asking me", None),
    (SINGLE, "죄송하지만 취소해 주십시오", "cancel"), (SINGLE_EN, "sorry, go ahead", "confirm"),
    (SINGLE, "송금하여 주십시오", "confirm"), (SINGLE, "틀림없습니다", "confirm"),
    (SINGLE, "확인하였습니다", "confirm"), (SINGLE_EN, "yep thats it", "confirm"),
    (SINGLE_EN, "do the needful", "confirm"), (SINGLE_EN, "spot on", "confirm"),
    (SINGLE, "이제보내줘", "confirm"), (SINGLE, "그냥보내", "confirm"),
    (SINGLE_EN, "thats it?", None), (SINGLE, "진짜네", None),
    (SINGLE, "확인은 이따가 할게", None), (SINGLE_EN, "I'll decide later", None),
])
async def test_the_documented_decisions(before: list[str], reply: str,
                                        decision: str | None) -> None:
    """docs/understanding.md, "The precision contract", the decisions."""
    await decided_as(before, reply, decision)


AFTER = {None: "READY", "confirm": "EXECUTED", "cancel": "CANCELLED"}
"""The stage a transfer's confirmation ends in after each decision."""


async def decided_as(before: list[str], reply: str, decision: str | None) -> None:
    """``reply`` at the confirmation ``before`` led to is ``decision``, with no value, and the
    transfer ends where that decision takes it."""
    reading, stage, _ = await confirming(before, reply)
    assert reading["decision"] == decision and reading["slots"] == {}
    assert stage == AFTER[decision]
