"""What a third blind set of online-shop conversations (2026-11-29, shoppers typing on a
phone, from slang to 하십시오체) found around decisions, each fixed as a class:

- a cancel set aside in Korean ("취소 아니고요 네 담아주세요") cancelled; set aside before a
  yes ("취소하지 말고 그대로 접수해주세요") it is the yes;
- the user's own yes with someone else agreeing too ("네 남편도 하라네요 접수해주세요") was
  left unsettled; someone else's agreement alone still is no yes;
- "잘 알겠습니다. 네, 그리 접수해 주시기 바랍니다" ("잘", "그리") was no yes;
- a new value said as "the one" ("ORD-1005 거예요") changed nothing;
- a request's keyword done before and said of a thing ("지난달에 구입한 이어폰") started that
  request (a purchase) instead of the message's own (an exchange);
- a cancel after only how one feels ("아 근데 귀찮다 그만할래요") was left unsettled;
- "당연 5점이죠" (a 죠 that insists) was read as a question.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from engine.nlu.keywords import keyword_pattern
from engine.nlu.phrases import is_question
from tests.test_changes_at_confirmation import SINGLE, SINGLE_EN, confirming
from tests.test_yes_forms_and_unsaid_cancels import decided_as


@pytest.mark.parametrize("reply", ["취소하지 말고 그냥 보내줘", "취소 아니고요 네 보내주세요",
                                   "취소는 하지 말고 이체해 주세요",
                                   "중단하지 마시고 송금해 주세요"])
async def test_a_cancel_set_aside_before_a_yes_is_the_yes(reply: str) -> None:
    await decided_as(SINGLE, reply, "confirm")


@pytest.mark.parametrize("reply", ["취소 아니고요", "취소는 아니에요", "취소 아니라 잠깐만요"])
async def test_a_cancel_set_aside_alone_cancels_nothing(reply: str) -> None:
    await decided_as(SINGLE, reply, None)


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE, "네 아내도 보내래요 보내주세요"), (SINGLE, "네 형도 진행하라네요 진행해 주세요"),
    (SINGLE, "누나도 괜찮대요 네 보내주세요"), (SINGLE_EN, "yes, my husband agrees too"),
])
async def test_ones_own_yes_with_someone_agreeing_too_is_the_yes(before: list[str],
                                                                reply: str) -> None:
    await decided_as(before, reply, "confirm")


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE, "아내도 보내래요"), (SINGLE, "남편도 반대래요 보내주세요"),
    (SINGLE, "남편이 하래요 보내주세요"), (SINGLE_EN, "my husband agrees too"),
])
async def test_someone_elses_agreement_or_objection_moves_nothing(before: list[str],
                                                                 reply: str) -> None:
    await decided_as(before, reply, None)


async def test_a_courteous_written_yes_confirms() -> None:
    reading, stage, _ = await confirming(SINGLE, "잘 알겠습니다. 네, 그리 송금해 주시기 바랍니다.")
    assert reading["decision"] == "confirm" and stage == "EXECUTED"


@pytest.mark.parametrize(("reply", "amount"), [("7만원 거예요", 70000),
                                               ("아 잠깐 8만원 거예요 잘못 말했어요", 80000)])
async def test_a_new_value_said_as_the_one_is_the_change(reply: str, amount: int) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == {"amount": amount} and stage == "READY"


@pytest.mark.parametrize(("keyword", "message", "found"), [
    ("구입", "작년에 구입한 청소기 환불되나요", False),
    ("결제", "결제된 주문 취소해 주세요", False),
    ("구입", "청소기 구입하고 싶어요", True), ("결제", "결제할게요", True),
    ("이체", "이체한 거 보여줘", False), ("이체", "엄마한테 이체해 줘", True),
])
def test_a_keyword_done_before_and_said_of_a_thing_requests_nothing(keyword: str, message: str,
                                                                    found: bool) -> None:
    assert bool(keyword_pattern(keyword).search(message)) is found


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE, "아 진짜 복잡하네 그만할래요"), (SINGLE_EN, "meh too much hassle, forget it"),
])
async def test_a_cancel_after_a_feeling_cancels(before: list[str], reply: str) -> None:
    await decided_as(before, reply, "cancel")


@pytest.mark.parametrize("reply", ["아직 보내지 마", "취소는 안 해",
                                   "보내긴 해야 하는데 그만할래요"])
async def test_a_hold_or_a_cancel_turned_down_is_no_cancel_after_a_feeling(reply: str) -> None:
    await decided_as(SINGLE, reply, None)


@pytest.mark.parametrize(("text", "asks"), [("물론 4점이죠", False), ("당근 좋죠", False),
                                           ("4점이죠?", True), ("몇 점이죠", True)])
def test_a_jyo_that_insists_after_of_course_asks_nothing(text: str, asks: bool) -> None:
    assert is_question(text) is asks


@pytest.mark.parametrize("reply", ["오늘은 그만할래요", "내일은 그만 둘게요"])
async def test_a_day_said_with_quitting_changes_no_date_and_waits(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == {} and reading["decision"] is None and stage == "READY"


async def test_a_cancel_set_aside_before_a_change_is_the_change() -> None:
    reading, stage, _ = await confirming(SINGLE, "취소 아니고요 7만원으로 해 주세요")
    assert reading["slots"] == {"amount": 70000} and stage == "READY"
