"""From two blind sets of 2026-11-29 (the transfer's money, transfer and account named while
deciding; tricks against the card application's confirmation), each fixed as a class:

- a yes taken back by a cancel word cancels ("네 아 아니다 취소해 주세요"); taken back by
  "never mind" it stays unsettled (it may take back the waiting);
- the task's own value as the owner of what is decided ("네, 이모 돈은 보내주세요", "삼촌
  건 돈은 보내지 마세요"), never when another value is said with it ("네 ORD-… 환불해 주세요"
  at a cancel);
- what the speaker has done, told before the decision ("계좌 번호 다시 봤어요. 보내주세요");
- why it is no longer needed, then a cancel ("he doesn't need it anymore, cancel the
  transfer", "이제 필요 없대요 취소해 주세요");
- a pronoun for the recipient beside a yes ("ok send her the money");
- this time said with a cancel ("이번엔 취소할게요"); deciding not to ("신청 안 하는 걸로
  할게요") cancels, while "다음에 할래요" only puts the decision off (it waits); a formal
  future yes ("발급 부탁드리겠습니다").

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from tests.test_plain_amounts import conversation

SINGLE = "이모한테 4만원 보내줘"
SINGLE_EN = "send 40000 won to my aunt"
BATCH = "이모한테 4만원, 삼촌한테 2만원 보내줘"


async def decided(first: str, reply: str, flow: str = "transfer.yaml") -> tuple[str | None, str]:
    said = await conversation(first, reply, flow=flow)
    assert said[0][1]["stage"] == "READY"
    return said[-1][0].get("decision"), said[-1][1]["stage"]


@pytest.mark.parametrize(("reply", "decision"), [
    ("응 보내줘 아 잠깐 아니다 취소할래", "cancel"), ("yes go ahead, no wait, cancel it", "cancel"),
    ("네네 아 아니다 그만둘게요", "cancel"), ("ok send it, oh wait never mind", None),
])
async def test_a_yes_taken_back_by_a_cancel_word_cancels(reply: str, decision: str | None) -> None:
    assert (await decided(SINGLE, reply))[0] == decision


@pytest.mark.parametrize(("reply", "decision"), [
    ("네, 이모 돈은 보내주세요", "confirm"), ("이모 거 송금은 취소할게요", "cancel"),
    ("삼촌 돈은 보내지 마세요", None),  # another's: the question again
])
async def test_the_tasks_own_recipient_as_the_owner_decides(reply: str,
                                                             decision: str | None) -> None:
    assert (await decided(SINGLE, reply))[0] == decision


async def test_a_value_of_another_task_said_with_a_yes_decides_nothing() -> None:
    said = await conversation("이모한테 4만원 보내줘", "네 이모한테 5만원 보내주세요")
    assert said[-1][1]["stage"] == "READY" and said[-1][1]["slots"]["amount"] == 50000


@pytest.mark.parametrize("reply", ["계좌 번호 다시 봤어요. 보내주세요",
                                   "이모랑 통화했어요 네 보내주세요"])
async def test_what_the_speaker_has_done_told_before_a_yes_confirms(reply: str) -> None:
    assert await decided(SINGLE, reply) == ("confirm", "EXECUTED")


@pytest.mark.parametrize("reply", ["어제 이모한테 보냈어요 네",
                                   "이모가 보내지 말라고 했어요 보내주세요"])
async def test_a_report_of_sending_or_of_anothers_words_is_no_reason(reply: str) -> None:
    assert (await decided(SINGLE, reply))[1] == "READY"


@pytest.mark.parametrize(("first", "reply"), [
    (SINGLE_EN, "she doesn't need it anymore, cancel the transfer"),
    (SINGLE_EN, "my aunt no longer needs the money, cancel"),
    (SINGLE, "이모가 이제 필요 없대요 취소해 주세요"),
])
async def test_why_it_is_no_longer_needed_then_a_cancel_cancels(first: str, reply: str) -> None:
    assert await decided(first, reply) == ("cancel", "CANCELLED")


@pytest.mark.parametrize("reply", ["ok send her the money", "yes pay him please"])
async def test_a_pronoun_for_the_recipient_beside_a_yes_confirms(reply: str) -> None:
    assert (await decided(SINGLE_EN, reply))[1] == "EXECUTED"


@pytest.mark.parametrize(("reply", "stage"), [("이번엔 그냥 취소할게요", "CANCELLED"),
                                              ("이번에는 그만둘게요", "CANCELLED")])
async def test_this_time_with_a_cancel_cancels(reply: str, stage: str) -> None:
    assert (await decided(SINGLE, reply))[1] == stage


@pytest.mark.parametrize(("reply", "stage"), [
    ("다음에 할래요", "READY"), ("그냥 신청 안 하는 걸로 해 주세요", "CANCELLED"),
    ("네 발급 부탁드리겠어요", "APPLIED"), ("신청 부탁하겠습니다", "APPLIED"),
])
async def test_put_off_or_a_formal_yes_at_the_card_confirmation(reply: str, stage: str) -> None:
    assert (await decided("체크카드 발급해 주세요", reply, flow="card.yaml"))[1] == stage
