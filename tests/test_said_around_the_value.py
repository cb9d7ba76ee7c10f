"""Values and decisions said with words around them that change nothing, found by the blind
sets of 2026-11-29 (a third Korean transfer set, a second card-desk set):

- an apology before the answer ("죄송하지만 취소해 주십시오") hid it;
- putting off the decision itself ("확인은 이따가 할게") asked for a date;
- a new value said as a preference ("5만원이 낫겠다", "express would be better") or a need
  ("i need it asap, do express"), and a value after "do" ("do express", read as a question);
- a cancel turned down before a change ("취소하지 말고 날짜만 내일로 바꿔줘");
- an ordinal with thanks or "pls" ("the second one pls") answering "which one?";
- the question said back before its answer ("my pin? its 5309", "금액이요? 3만원이요");
- a polite "if" after a value ("u4471 if that helps") made it a condition;
- an amount typed onto the word before it, as dictation does ("내일오만원", "용돈오만원").

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from tests.test_card_desk_blind import READY, desk
from tests.test_changes_at_confirmation import SINGLE, SINGLE_EN, confirming
from tests.test_plain_amounts import conversation


@pytest.mark.parametrize(("reply", "decision", "stage"), [
    ("실례지만 취소해 주세요", "cancel", "CANCELLED"),
    ("미안한데 그냥 이체해 줘", "confirm", "EXECUTED"),
    ("번거로우시겠지만 취소 부탁드립니다", "cancel", "CANCELLED"),
])
async def test_an_apology_before_the_answer_hides_nothing(reply: str, decision: str,
                                                         stage: str) -> None:
    reading, now, _ = await confirming(SINGLE, reply)
    assert reading["decision"] == decision and now == stage


async def test_an_apology_before_a_question_decides_nothing() -> None:
    reading, stage, _ = await confirming(SINGLE, "죄송한데 얼마라고요")
    assert reading["decision"] is None and stage == "READY"


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE, "결정은 나중에 할게요"), (SINGLE_EN, "i'll decide later"),
    (SINGLE_EN, "let me confirm later"),
])
async def test_putting_off_the_decision_waits(before: list[str], reply: str) -> None:
    reading, stage, said = await confirming(before, reply)
    assert reading["decision"] is None and reading["slots"] == {} and stage == "READY"


@pytest.mark.parametrize(("before", "reply", "amount"), [
    (SINGLE, "4만원이 낫겠네요", 40000), (SINGLE_EN, "35k would be better", 35000),
    (SINGLE, "생각해 보니 7만원이 좋겠어요", 70000), (SINGLE_EN, "i'd prefer 45k", 45000),
])
async def test_a_new_amount_said_as_a_preference_is_the_change(before: list[str], reply: str,
                                                               amount: int) -> None:
    reading, stage, _ = await confirming(before, reply)
    assert reading["slots"] == {"amount": amount} and stage == "READY"


@pytest.mark.parametrize("reply", ["express would be better", "do express delivery then",
                                   "i want it express", "actually i need it fast, express"])
async def test_a_delivery_said_as_a_preference_or_a_need_is_the_change(reply: str) -> None:
    *_, (reading, state, _) = await desk(*READY, reply)
    assert reading["slots"] == {"delivery": "express"} and state["stage"] == "READY"


@pytest.mark.parametrize(("reply", "slot"), [
    ("취소는 하지 말고 4만원으로", "amount"), ("중단하지 마시고 금요일로 해 주세요", "when"),
])
async def test_a_cancel_turned_down_before_a_change_is_the_change(reply: str, slot: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert list(reading["slots"]) == [slot] and reading["decision"] is None and stage == "READY"


@pytest.mark.parametrize(("answer", "flow"), [
    ("2nd one thanks", "status"), ("first one i guess", "verify"),
    ("두 번째 거 부탁해요", "status"),
])
async def test_an_ordinal_with_thanks_answers_which_one(answer: str, flow: str) -> None:
    *_, (_, state, _) = await desk("my card", answer)
    assert state["flow"] == flow  # a replacement verifies first


@pytest.mark.parametrize(("messages", "slot", "value"), [
    (("이모한테 보내줘", "how much? 25k"), "amount", 25000),
    (("2만원 보내줘", "받는 사람이요? 이모요"), "target", "이모"),
    (("엄마한테 보내줘", "얼마요? 4만원"), "amount", 40000),
])
async def test_the_question_said_back_before_its_answer_is_the_answer(
        messages: tuple[str, ...], slot: str, value: object) -> None:
    *_, (_, state, _) = await conversation(*messages)
    assert state["slots"][slot] == value and state["stage"] == "READY"


async def test_a_question_said_back_with_another_request_is_no_answer() -> None:
    *_, (_, state, _) = await conversation("엄마한테 보내줘", "잔액은? 3만원")
    assert state["slots"]["amount"] is None


async def test_the_pin_said_after_the_question_said_back_verifies() -> None:
    *_, (_, state, said) = await desk("verify me", "u512", "pin? 4455")
    assert state["stage"] == "VERIFIED" and "u512" in said


@pytest.mark.parametrize("answer", ["u512, if needed", "u512 in case you need it",
                                    "my id's u512 if it helps"])
async def test_a_polite_if_after_a_value_is_no_condition(answer: str) -> None:
    *_, (_, state, _) = await desk("verify me", answer)
    assert state["slots"]["user_id"] == "u512"


async def test_a_real_condition_after_a_value_still_holds_it() -> None:
    *_, (_, state, _) = await desk("verify me", "u512 if you can't find me by name")
    assert state["slots"]["user_id"] is None


@pytest.mark.parametrize(("message", "slots"), [
    ("동생한테모레삼만원보내줘", {"target": "동생", "amount": 30000}),
    ("삼촌께용돈이만원보내", {"target": "삼촌", "amount": 20000}),
    ("누나한테오늘사만원이체해줘", {"target": "누나", "amount": 40000}),
])
async def test_an_amount_typed_onto_the_word_before_it_is_read(message: str,
                                                               slots: dict[str, object]) -> None:
    (_, state, _), = await conversation(message)
    assert {k: state["slots"][k] for k in slots} == slots and state["stage"] == "READY"


@pytest.mark.parametrize(("messages", "slot", "value"), [
    (("verify me", "u300", "my pin? its 5309"), "user_id", "u300"),
    (("verify me", "u4471 if that helps"), "user_id", "u4471"),
    (("verify me", "u4471 if needed"), "user_id", "u4471"),
    (("verify me", "u4471 if you can't find me"), "user_id", None),
    (("my card", "the second one pls"), "user_id", None),
])
async def test_the_documented_card_desk_examples(messages: tuple[str, ...], slot: str,
                                                 value: object) -> None:
    """docs/understanding.md, "Words around a value that change nothing are read past"."""
    *_, (_, state, _) = await desk(*messages)
    assert state["slots"].get(slot) == value
    if messages[-1].startswith("my pin"):
        assert state["stage"] == "VERIFIED"
    if messages[-1].startswith("the second"):
        assert state["flow"] == "status"


@pytest.mark.parametrize(("before", "reply", "slots"), [
    (["엄마한테 보내줘"], "금액이요? 3만원이요", {"amount": 30000}),
    (SINGLE, "5만원이 낫겠다", {"amount": 50000}),
    (SINGLE, "취소하지 말고 날짜만 내일로 바꿔줘", {"when": None}),
])
async def test_the_documented_transfer_examples(before: list[str], reply: str,
                                                slots: dict[str, object]) -> None:
    """docs/understanding.md, the same paragraph (a date changes by the day run: its key)."""
    *_, (reading, state, _) = await conversation(*before, reply)
    assert set(reading["slots"]) == set(slots)
    assert all(v is None or state["slots"][k] == v for k, v in slots.items())
