"""From four blind sets of 2026-11-29 (the transfer's confirmation heard as hedges, reasons and
corrections; the card application as people change and explain things; the pizza shop texted
indirectly; the online shop on a phone), each fixed as a class:

- a yes or a cancel followed only by why ("…생신 선물이에요", "…급해서요", "forget it, not
  hungry anymore"); anything else after a yes is no why ("네 ㅋㅋ 농담이에요", "네 밥은
  먹었어요"), nor is a why that names someone, a number or a doubt;
- an apology before a decision ("죄송해요 취소할게요"); a run of noes ("아니아니");
- a particle run on into the word after a value ("체크로할게요");
- a short Hangul choice heading another noun is no choice ("신용점수", "체크포인트");
- a corrected name said with its copula, then a remark ("…말고 박지연이야 오타남");
- a reset opened with a thinking sound ("hmm change the size");
- a wish is no condition ("환불해 주셨으면 해요");
- what the speaker has done, said with -죠, before a cancel ("아까 했죠 그만할게요").

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from tests.test_money_named_and_decisions_taken_back import decided
from tests.test_plain_amounts import conversation

TRANSFER = "고모한테 15만원 보내줘"
CARD = "신용카드 신청할게요"
PIZZA = "one medium pizza with extra cheese please"


@pytest.mark.parametrize("reply", [
    "네 보내 주세요 결혼 축의금이에요", "응 보내 모임 회비야", "네 부탁해요 급한 일이라서요",
    "넵 송금해 주세요 약속했거든요", "yes send it, because she lent me lunch money",
])
async def test_a_yes_followed_only_by_why_confirms(reply: str) -> None:
    assert await decided(TRANSFER, reply) == ("confirm", "EXECUTED")


@pytest.mark.parametrize("reply", [
    "네 ㅎㅎ 장난이에요", "네 점심은 먹었어요", "네 보내 주세요 고모부 선물이에요",
    "네 보내 주세요 안 급하거든요", "yes send it, if she asks",
    "yes send it, just kidding",
])
async def test_what_is_no_why_after_a_yes_decides_nothing(reply: str) -> None:
    assert await decided(TRANSFER, reply) == (None, "READY")


@pytest.mark.parametrize(("reply", "flow", "first"), [
    ("취소할게요 돈이 모자라서요", "transfer.yaml", TRANSFER),
    ("그만둘게요 이미 계좌로 줬거든요", "transfer.yaml", TRANSFER),
    ("cancel it, we already ordered from somewhere else", "pizza.yaml", PIZZA),
    ("forget it, my sister doesn't need it anymore", "transfer.yaml", TRANSFER),
])
async def test_a_cancel_followed_by_why_cancels(reply: str, flow: str, first: str) -> None:
    assert await decided(first, reply, flow) == ("cancel", "CANCELLED")


@pytest.mark.parametrize("reply", ["cancel it, but keep the sides", "never cancel it, ok?"])
async def test_a_cancel_with_a_turn_after_it_decides_nothing(reply: str) -> None:
    assert (await decided(PIZZA, reply, "pizza.yaml"))[1] == "READY"


@pytest.mark.parametrize(("reply", "decision", "stage"), [
    ("미안해요 취소해 주세요", "cancel", "CANCELLED"),
    ("죄송합니다 네 진행해 주세요", "confirm", "APPLIED"),
    ("미안합니다", None, "READY"), ("아니아니 안 할래요", "cancel", "CANCELLED"),
    ("아뇨아뇨아뇨", "deny", "CANCELLED"),
])
async def test_an_apology_or_a_run_of_noes_around_a_decision(reply: str, decision: str | None,
                                                             stage: str) -> None:
    assert await decided(CARD, reply, "card.yaml") == (decision, stage)


@pytest.mark.parametrize(("reply", "kind"), [
    ("신용으로할래요", "credit"), ("체크를할게요", "debit"), ("아니아니 체크로해줘", "debit"),
])
async def test_a_particle_run_on_into_the_next_word_is_still_the_choice(reply: str,
                                                                        kind: str) -> None:
    said = await conversation("카드 하나 신청할래요", reply, flow="card.yaml")
    assert said[-1][1]["slots"]["kind"] == kind and said[-1][1]["stage"] == "READY"


@pytest.mark.parametrize("reply", ["체크리스트 먼저 볼게요", "신용정보 동의가 필요한가요",
                                   "신용불량이라도 되나요"])
async def test_a_short_choice_heading_another_noun_chooses_nothing(reply: str) -> None:
    said = await conversation("카드 하나 신청할래요", reply, flow="card.yaml")
    assert said[-1][1]["slots"]["kind"] is None and said[-1][1]["stage"] == "FILLING"


@pytest.mark.parametrize("reply", ["김수진 말고 김수정이에요 잘못 씀",
                                   "김수진 말고 김수정이야 철자 틀림"])
async def test_a_corrected_name_with_its_copula_then_a_remark_is_the_name(reply: str) -> None:
    said = await conversation("김수진한테 3만원 보내줘", reply)
    assert said[-1][1]["slots"]["target"] == "김수정" and said[-1][1]["stage"] == "READY"


@pytest.mark.parametrize("reply", ["umm change the size", "oh actually, change the size please",
                                   "okay so can I change the size"])
async def test_a_reset_opened_with_a_thinking_sound_asks_again(reply: str) -> None:
    said = await conversation(PIZZA, reply, flow="pizza.yaml")
    assert said[-1][1]["slots"]["size"] is None and said[-1][1]["stage"] == "FILLING"


async def test_a_wish_is_a_request_not_a_condition() -> None:
    said = await conversation("오빠한테 7만원 보내 주셨으면 해요")
    assert said[-1][1]["slots"] == {"target": "오빠", "amount": 70000, "when": None}
    said = await conversation("오빠한테 월급 들어오면 7만원 보내 줘")
    assert said[-1][1]["slots"]["amount"] is None


@pytest.mark.parametrize("reply", ["아 어제 봤죠 그만할게요", "벌써 받았지요 취소해 주세요"])
async def test_what_was_done_said_with_jyo_then_a_cancel_cancels(reply: str) -> None:
    assert await decided(TRANSFER, reply) == ("cancel", "CANCELLED")


@pytest.mark.parametrize(("reply", "decision"), [
    ("네 보내주세요 급해서요", "confirm"), ("yes send it, because it's her birthday", "confirm"),
    ("넵 보내 주세요 생신 선물이에요", "confirm"), ("응 보내 회비야", "confirm"),
    ("취소할게요 돈이 모자라서요", "cancel"), ("네 ㅋㅋ 농담이에요", None),
    ("네 밥은 먹었어요", None), ("네 보내주세요 아빠 거예요", None),
    ("죄송해요 취소할게요", "cancel"), ("아니아니 취소요", "cancel"),
])
async def test_the_examples_of_docs_understanding(reply: str, decision: str | None) -> None:
    """The sentences docs/understanding.md gives for a decision followed by why."""
    assert (await decided(TRANSFER, reply))[0] == decision


async def test_the_pizza_example_of_docs_understanding() -> None:
    assert (await decided(PIZZA, "forget it, not hungry anymore", "pizza.yaml"))[0] == "cancel"
