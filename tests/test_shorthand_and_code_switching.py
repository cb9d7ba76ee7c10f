"""Messages as people type them in a messenger or between two languages, each class with
sentences of its own (none from the blind sets that found them):

- 만 without 원 as the whole message, after a sound or an apology at most, is the amount;
  an amount after "아니고"/"말고" may end in a crying or laughing mark;
- a bare casual no ("아냐") is a no, not its question ("아냐?");
- an apology said with a changed value says nothing else ("아 미안 7만원");
- a time said after the act itself as a condition ("보내면 …") is the time of what would follow,
  not of the sending;
- a leading "don't" before a cancel word negates it ("dont cancel it"): no cancel;
- an English value with a Korean light verb ("damaged 됐어요", "lost 했어요") is that value;
- a yes word done in Korean ("confirm 할게요") is a yes;
- a noun ending in 니 ("장바구니", "할머니") asks nothing;
- a person described by what they do ("옆집 사는 할머니") is no name;
- a shrug before a cancel is why ("아 몰라 취소"), before a yes it leaves it unsure;
- the question echoed with its ending typed apart ("pin 이요? …") still gives the answer;
- a condition at a confirmation is of the task asked, even naming another flow's word.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.compiler.filters import won
from engine.nlu import default_words
from engine.nlu.money import find_money
from engine.nlu.phrases import is_question
from engine.nlu.reasons import answer_of
from engine.nlu.words import cancel_first, yes_no
from tests.played import play as played_in

ROOT = Path(__file__).resolve().parents[1]
TRANSFER = compile_file(ROOT / "flows" / "transfer.yaml")
CARDS = compile_file(ROOT / "flows" / "cards.yaml")


async def play(service: Any, messages: list[str], slots: dict[str, Any] | None = None
               ) -> tuple[dict[str, Any], int]:
    """The last turn's snapshot and how many tasks the conversation finished."""
    played = await played_in(service, messages, slots=slots)
    return played.snapshot, len(played.finished)


@pytest.mark.parametrize(("text", "value"), [
    ("7만", 70000), ("어 8만", 80000), ("헉 죄송 4만ㅠㅠ", 40000), ("6만 ㅋㅋ", 60000),
    ("삼만", 30000), ("2만5천", 25000), ("4만 아니고 9만ㅜ", 90000), ("만원 말고 2만ㅎㅎ", 20000),
])
def test_ten_thousands_alone_or_put_in_place_are_money(text: str, value: int) -> None:
    assert [m.value for m in find_money(text)][-1:] == [value]


@pytest.mark.parametrize("text", ["7만 명", "구독자 5만", "20만 포인트 있어", "2억", "3억ㅋㅋ"])
def test_ten_thousands_of_something_else_are_no_money(text: str) -> None:
    assert find_money(text) == []


@pytest.mark.parametrize(("reply", "amount"), [
    ("8만", 80000), ("아 죄송 6만원", 60000), ("앗 미안 9만ㅠ", 90000),
    ("2만 아니고 4만ㅋㅋ", 40000), ("ㅈㅅ 7만원으로", 70000),
])
async def test_a_new_amount_typed_in_shorthand_changes_the_transfer(reply: str,
                                                                     amount: int) -> None:
    snapshot, finished = await play(TRANSFER, ["동생한테 2만 보내줘", reply])
    assert (snapshot["stage"], snapshot["slots"]["amount"], finished) == ("READY", amount, 0)


@pytest.mark.parametrize("reply", ["아냐", "아냐아냐", "아냐 안 보낼래"])
async def test_a_casual_no_cancels_the_transfer(reply: str) -> None:
    snapshot, finished = await play(TRANSFER, ["삼촌한테 4만원 보내줘", reply])
    assert (snapshot["stage"], finished) == ("CANCELLED", 1)


@pytest.mark.parametrize("reply", ["아냐?", "삼촌 아냐?", "그거 아냐"])
async def test_a_casual_no_asked_or_of_something_decides_nothing(reply: str) -> None:
    snapshot, finished = await play(TRANSFER, ["삼촌한테 4만원 보내줘", reply])
    assert (snapshot["stage"], snapshot["slots"]["amount"], finished) == ("READY", 40000, 0)


@pytest.mark.parametrize("reply", [
    "이거 보내면 나 다음 주 내내 굶어야 함ㅋㅋ", "송금하면 이번 주말 약속 못 나감ㅠ",
    "보내면은 다음 달 카드값이 걱정이네",
])
async def test_a_time_after_the_sending_said_as_a_condition_is_not_its_date(reply: str) -> None:
    snapshot, finished = await play(TRANSFER, ["누나한테 5만원 보내줘", reply])
    assert (snapshot["stage"], snapshot["slots"]["when"], finished) == ("READY", None, 0)


async def test_a_time_said_for_the_sending_is_still_asked_for() -> None:
    snapshot, _ = await play(TRANSFER, ["누나한테 5만원 보내줘", "보내는 건 다음 달 초에 해줘"])
    assert snapshot["stage"] == "FILLING"  # a time that names no date: which day?


@pytest.mark.parametrize("text", [
    "dont cancel it, what's my balance", "do not cancel, check my balance please",
    "never cancel that lol"])
def test_a_leading_dont_before_a_cancel_is_no_cancel(text: str) -> None:
    assert cancel_first(text, CARDS.words) is None


async def test_a_cancel_said_not_to_be_done_keeps_the_card_order_asked() -> None:
    snapshot, finished = await play(
        CARDS, ["my card got bent, new one to 010-5555-1212 please", "dont cancel!! 아직요"],
        slots={"user_id": "u33"})
    assert (snapshot["stage"], finished) == ("READY", 0)


@pytest.mark.parametrize(("message", "reason"), [
    ("new card please, 카드 damaged 됐음", "damaged"),
    ("카드가 좀 broken 됐네요, replace it please", "damaged"),
    ("지갑이랑 같이 lost 했습니다, need a new card", "lost"),
])
async def test_an_english_value_with_a_korean_light_verb_is_the_value(message: str,
                                                                       reason: str) -> None:
    snapshot, _ = await play(CARDS, [message], slots={"user_id": "u33"})
    assert (snapshot["flow"], snapshot["slots"]["reason"]) == ("replace", reason)


@pytest.mark.parametrize(("text", "answer"), [
    ("confirm 할게요", "confirm"), ("ok 할게", "confirm"), ("yes 할래요", "confirm"),
    ("go ahead 할께요", "confirm"), ("confirm 안 할게요", "cancel"), ("할게요", None),
])
def test_a_yes_word_done_in_korean_is_a_yes(text: str, answer: str | None) -> None:
    assert yes_no(text, default_words("ko")) == answer


@pytest.mark.parametrize(("text", "asks"), [
    ("노트북 1개 장바구니", False), ("보낼 사람은 외할머니", False), ("큰언니", False),
    ("엄니", False), ("밥 먹었니", True), ("어디 가니", True), ("잘 지내니", True),
])
def test_a_noun_ending_in_ni_asks_nothing(text: str, asks: bool) -> None:
    assert is_question(text) is asks


@pytest.mark.parametrize("answer", ["같이 일하는 박과장", "위층에 사는 아주머니",
                                    "학원 다니는 조카"])
async def test_a_person_described_by_what_they_do_is_no_name(answer: str) -> None:
    snapshot, _ = await play(TRANSFER, ["송금 좀 할게요", answer])
    assert (snapshot["stage"], snapshot["slots"]["target"]) == ("FILLING", None)


@pytest.mark.parametrize(("amount", "text"), [
    (300000000, "3억원"), (250000000, "2억 5,000만원"), (100050000, "1억 5만원"),
])
def test_hundred_millions_are_said_with_their_own_unit(amount: int, text: str) -> None:
    assert won(amount) == text


@pytest.mark.parametrize(("text", "answer"), [
    ("에라 모르겠다 취소해", "cancel"), ("몰라요 그냥 그만할래요", "cancel"),
    ("idk, forget it", "cancel"), ("dunno... cancel", "cancel"),
    ("몰라 그냥 보내줘", None), ("idk, sure", None), ("모르겠어요", None),
])
def test_a_shrug_before_a_cancel_is_why_before_a_yes_a_doubt(text: str,
                                                             answer: str | None) -> None:
    assert answer_of(text, TRANSFER.words) == answer


@pytest.mark.parametrize("reply", ["pin 요? 2468", "PIN 이요? it's 2468", "pin은요? 2468"])
async def test_the_question_echoed_with_its_ending_apart_gives_the_answer(reply: str) -> None:
    snapshot, _ = await play(CARDS, ["verify me", "u64", reply])
    assert (snapshot["flow"], snapshot["stage"]) == ("verify", "VERIFIED")


COMMERCE = compile_file(ROOT / "flows" / "commerce.yaml")


@pytest.mark.parametrize("reply", [
    "only if it hasnt been shipped out yet", "ok if shipping is still free",
    "배송 출발 전이면 해주세요"])
async def test_a_condition_at_a_confirmation_starts_no_other_flow(reply: str) -> None:
    context = {"is_logged_in": True, "user_id": "u-1", "user_type": "consumer"}
    played = await played_in(COMMERCE, ["P-106 2개 장바구니에 담아줘", reply], context=context)
    assert (played.snapshot["flow"], played.stage, played.finished) == ("order", "READY", [])
