"""From two blind sets of 2026-11-29 on the Korean card application (everyday customers; what
is and is not a yes, a cancel or a change), each fixed as a class:

- what the service does things to (``words.objects``: 카드) said beside a decision adds
  nothing: "카드 신청은 그만할게요" cancels, "네 카드 발급 부탁드려요" confirms; alone or in a
  question it decides nothing;
- the task's own choice cancelled with a cancel word cancels the task ("신용카드는 취소할게요"
  at the credit card's confirmation); turned down with only a "don't" it decides nothing;
- the flow's verb with a topic particle is the object of the decision ("발급은 취소해 주세요",
  "이체는 취소");
- a choice turned down while it is asked is no choice ("신용카드는 별로예요", "체크는 쓰기
  싫어요"), and the one put in its place is ("체크는 싫고 신용으로");
- a verb keyword whose stem ends in ㄹ (만들) takes its own forms: "네 만들어 주세요" confirms,
  "만들지 말아 주세요" and "안 만들게요" cancel;
- a choice of four syllables or more said in two ("신용 카드로 바꿔 주세요");
- a request to undo the service's doing with nothing running starts nothing and is not
  asked about ("카드 발급 취소할게요");
- putting off with 다시 ("다음에 다시 할게요") cancels; a decision put off does not.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from tests.test_plain_amounts import conversation

CREDIT = "신용카드 발급해 주세요"  # straight to the credit card's confirmation
DEBIT = "체크카드로 신청할게요"


async def at_confirmation(first: str, reply: str) -> tuple[dict, dict, str]:
    said = await conversation(first, reply, flow="card.yaml")
    assert said[0][1]["stage"] == "READY"
    return said[-1]


@pytest.mark.parametrize("reply", ["카드 신청은 그만할게요", "그 카드는 취소해주세요",
                                   "이 카드 발급 취소", "카드 안 만들래요"])
async def test_a_cancel_naming_what_the_service_does_things_to_cancels(reply: str) -> None:
    reading, state, _ = await at_confirmation(CREDIT, reply)
    assert reading["decision"] == "cancel" and state["stage"] == "CANCELLED"


@pytest.mark.parametrize("reply", ["네 카드 발급 부탁드려요", "카드 만들어 주세요",
                                   "네 만들어 주세요"])
async def test_a_yes_naming_what_the_service_does_things_to_confirms(reply: str) -> None:
    reading, state, _ = await at_confirmation(DEBIT, reply)
    assert reading["decision"] == "confirm" and state["stage"] == "APPLIED"


@pytest.mark.parametrize("reply", ["카드요", "카드 혜택 있어요?", "카드는 언제 와요",
                                   "카드 한도는요"])
async def test_what_the_service_does_things_to_alone_decides_nothing(reply: str) -> None:
    reading, state, _ = await at_confirmation(DEBIT, reply)
    assert reading.get("decision") is None and state["stage"] == "READY"


@pytest.mark.parametrize("reply", ["신용카드는 취소할게요", "신용카드 신청은 그만할래요",
                                   "발급은 취소해 주세요"])
async def test_the_tasks_own_choice_cancelled_with_a_cancel_word_cancels(reply: str) -> None:
    reading, state, _ = await at_confirmation(CREDIT, reply)
    assert reading["decision"] == "cancel" and state["stage"] == "CANCELLED"


async def test_the_tasks_own_choice_turned_down_with_a_dont_applies_nothing() -> None:
    reading, state, _ = await at_confirmation(CREDIT, "신용카드는 하지 마세요")
    assert state["stage"] != "APPLIED"


@pytest.mark.parametrize("answer", ["신용카드는 별로예요", "체크는 쓰기 싫어요",
                                    "신용카드는 필요 없어요", "체크카드 안 할래요"])
async def test_a_choice_turned_down_while_it_is_asked_is_no_choice(answer: str) -> None:
    said = await conversation("카드 하나 신청하려고요", answer, flow="card.yaml")
    assert said[-1][1]["stage"] in ("FILLING", "CANCELLED") and said[-1][1]["slots"]["kind"] is None


@pytest.mark.parametrize(("answer", "kind"), [("체크는 싫고 신용으로 할게요", "credit"),
                                              ("신용카드는 필요 없고 체크로요", "debit")])
async def test_the_choice_put_in_place_of_one_turned_down_is_taken(answer: str, kind: str) -> None:
    said = await conversation("카드 하나 신청하려고요", answer, flow="card.yaml")
    assert said[-1][1]["stage"] == "READY" and said[-1][1]["slots"]["kind"] == kind


@pytest.mark.parametrize("reply", ["만들지 말아 주세요", "안 만들게요"])
async def test_a_stem_in_l_negated_cancels(reply: str) -> None:
    reading, state, _ = await at_confirmation(DEBIT, reply)
    assert reading["decision"] == "cancel" and state["stage"] == "CANCELLED"


async def test_a_choice_said_in_two_parts_is_a_change() -> None:
    reading, state, _ = await at_confirmation(DEBIT, "신용 카드로 바꿔 주세요")
    assert state["stage"] == "READY" and state["slots"]["kind"] == "credit"


@pytest.mark.parametrize("message", ["카드 발급 취소할게요", "카드 신청한 거 취소해 주세요"])
async def test_undoing_with_nothing_running_starts_nothing(message: str) -> None:
    said = await conversation(message, flow="card.yaml")
    assert said[-1][1]["flow"] in (None, "guide") and "말씀이신가요" not in said[-1][2]


async def test_putting_off_with_again_cancels_and_a_decision_put_off_waits() -> None:
    reading, state, _ = await at_confirmation(DEBIT, "다음에 다시 할게요")
    assert reading["decision"] == "cancel" and state["stage"] == "CANCELLED"
    reading, state, _ = await at_confirmation(DEBIT, "결정은 다음에 다시 할게요")
    assert reading.get("decision") is None and state["stage"] == "READY"


@pytest.mark.parametrize("reply", ["이체는 취소할게요", "그 송금은 취소해 주세요"])
async def test_a_transfer_cancelled_by_its_own_verb_as_the_topic_cancels(reply: str) -> None:
    said = await conversation("할머니한테 6만원 보내줘", reply)
    assert said[-1][0]["decision"] == "cancel" and said[-1][1]["stage"] == "CANCELLED"
