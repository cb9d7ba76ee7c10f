"""What a blind set of conversations with the card help desk found, and its Korean kin.

- A yes with a change after "but" ("yes but express") is the change, not a yes; a change
  asked politely ("can u make it express pls") is a change too.
- An English past participle a flow lists ("cracked", "stolen") reads the other forms of its
  verb, as a value ("a crack in it") and as a keyword ("someone stole my card").
- A request corrected by another in one message ("my card is damaged, no wait, it was
  stolen") is the second one, with its values; a part only like another intent's example
  that gives the first request a value is that request's ("…, express delivery please").
- A question holding one intent's keyword inside another's ("where is my new card") does not
  hide the shorter one: both are only leaned to, and the rules ask which one (or take the
  shorter one's intent when the question is like one of its examples).
- The PIN is four digits kept as said ("0042"); a number said as another detail than the
  one asked for ("the last four of my card are 5521" for the PIN) is not it.
- A sentence said twice in a row (a called flow and its caller both cancelled) is said once.
- Korean: a relation or a full name said with no particle right before the amount ("엄마
  5만원 보내줘") is the recipient; a word that names no one ("월세") is not. A past-tense
  question ending ("보냈나") asks, it does not request.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_plain_amounts import conversation

READY = ["I need a new card", "u31", "2580", "damaged", "010-3333-4444"]
"""A replacement at its confirmation: a damaged card, standard delivery, 010-3333-4444."""


async def desk(*messages: str) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
    """(the reading, the state snapshot, the reply) of each message to the card help desk."""
    return await conversation(*messages, flow="cards.yaml")


@pytest.mark.parametrize(("reply", "slot", "value"), [
    ("yep but express it", "delivery", "express"),
    ("ok, but ship it express", "delivery", "express"),
    ("sure but use 010-7777-8888", "phone", "010-7777-8888"),
    ("could u do express pls", "delivery", "express"),
    ("yes, though it was stolen really, but go via express", "delivery", "express"),
])
async def test_a_yes_with_a_change_is_the_change(reply: str, slot: str, value: str) -> None:
    *_, (reading, state, _) = await desk(*READY, reply)
    assert reading["decision"] is None and state["stage"] == "READY"
    assert state["slots"][slot] == value


@pytest.mark.parametrize(("answer", "reason"), [
    ("there's a crack across the chip", "damaged"), ("it broke in half", "damaged"),
    ("a thief stole it", "lost"), ("scratches all over it", "damaged"),
    ("i misplace everything, it's gone", "lost"),
])
async def test_a_participle_reads_the_forms_of_its_verb(answer: str, reason: str) -> None:
    *_, (reading, state, _) = await desk(*READY[:3], answer)
    assert reading["slots"] == {"reason": reason} and state["slots"]["reason"] == reason


@pytest.mark.parametrize("message", ["somebody stole my card on the bus",
                                     "i think a pickpocket stole my debit card"])
async def test_a_keyword_reads_the_forms_of_its_verb(message: str) -> None:
    (reading, state, reply), = await desk(message)
    assert reading["intent"] == "lost" and "Sorry to hear that" in reply
    assert state["flow"] == "verify"


@pytest.mark.parametrize("message", ["my card broke, wait no, somebody stole it",
                                     "it's cracked, sorry i mean it got stolen"])
async def test_a_request_corrected_in_the_message_is_the_second(message: str) -> None:
    said = await desk(message, "u8", "1357")
    assert said[-1][1]["flow"] == "replace" and said[-1][1]["slots"]["reason"] == "lost"


async def test_a_request_taken_back_for_another_starts_only_the_other() -> None:
    said = await desk("whats my balance, actually no, replace my card")
    assert said[0][1]["flow"] == "verify"
    assert "Please verify first" not in said[0][2] and not said[0][1]["task_queue"]


@pytest.mark.parametrize("message", ["new card please, express delivery",
                                     "replace my card and express delivery pls"])
async def test_a_value_like_another_intents_example_stays_with_its_request(
        message: str) -> None:
    said = await desk(message, "u8", "1357")
    assert said[-1][1]["flow"] == "replace" and said[-1][1]["slots"]["delivery"] == "express"


@pytest.mark.parametrize("message", ["has my new card been posted yet",
                                     "any news on the new card?"])
async def test_a_question_between_two_keywords_asks_which(message: str) -> None:
    (reading, state, reply), = await desk(message)
    assert state["flow"] is None and reading["intent"] is None
    assert "Which one do you mean" in reply


@pytest.mark.parametrize("message", ["when's the new card arriving?",
                                     "where's the new card you're sending?"])
async def test_a_question_like_the_shorter_keywords_example_is_its_intent(message: str) -> None:
    (reading, state, reply), = await desk(message)
    assert state["flow"] == "status" and "There is no card order." in reply


async def test_a_question_between_two_keywords_after_an_order_asks_about_its_status() -> None:
    said = await desk(*READY, "yes please", "did the new card ship", "yes")
    assert "Did you mean where a card order is?" in said[-2][2]
    assert said[-1][1]["flow"] == "status" and "Your card order is ordered." in said[-1][2]


@pytest.mark.parametrize(("pin", "verified"), [
    ("0042", True), ("pin 0909", True), ("my pin number is 0315", True), ("042", False),
    ("00420", False), ("my account number is 7781", False), ("card no. 6610", False),
])
async def test_the_pin_is_four_digits_as_said_and_no_other_details(pin: str,
                                                                   verified: bool) -> None:
    *_, (_, state, _) = await desk("verify me", "u5", pin)
    assert (state["stage"] == "VERIFIED") is verified


async def test_a_sentence_said_twice_in_a_row_is_said_once() -> None:
    *_, (_, state, reply) = await desk("my card snapped", "u5", "stop, cancel that")
    assert state["stage"] == "CANCELLED" and reply == "Cancelled."


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("누나 7만원 보내줘", "누나", 70000), ("이모 삼만원 이체해줘", "이모", 30000),
    ("최지훈 4만원 송금해줘", "최지훈", 40000), ("우리 할머니 20만원 보내드려", "할머니", 200000),
    ("형 6만 보내줘", "형", 60000),
])
async def test_a_person_said_without_a_particle_before_the_amount_is_the_recipient(
        message: str, target: str, amount: int) -> None:
    (_, state, _), = await conversation(message)
    assert state["stage"] == "READY"
    assert (state["slots"]["target"], state["slots"]["amount"]) == (target, amount)


@pytest.mark.parametrize("message", ["관리비 12만원 보내줘", "회비 3만원 이체해줘"])
async def test_a_word_that_names_no_one_before_the_amount_is_no_recipient(message: str) -> None:
    (_, state, _), = await conversation(message)
    assert state["stage"] == "FILLING" and state["slots"]["target"] is None


@pytest.mark.parametrize("message", ["삼촌한테 10만원 송금했나", "이모 2만원 보냈니",
                                     "동생한테 이체했나"])
async def test_a_past_tense_question_requests_nothing(message: str) -> None:
    (reading, state, _), = await conversation(message)
    assert state["flow"] is None and reading["intent"] is None
