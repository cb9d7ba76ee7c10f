"""What a second set of whole conversations written blind found: a value corrected inside
the message that says it, and the forms people text.

- An amount in 만 without 원 said away for another ("5만 말고 6만", "10만.. 아니다 12만"),
  at the start, while the amount is asked and at the confirmation: the second is the
  amount. Before, neither was money (no 원, no verb right after) and the message was asked
  again. Likewise one said before to whom it goes ("4만5천 누나한테 보내줘").
- A name corrected with an interjection between ("누나.. 아 아니다 형", "dad, no wait,
  grandpa"), and a full name said away by its given name ("지은 말고 …" for 이지은).
- An answer meaning "now" with a yes or a verb around it ("응 바로 보내", "just send it
  now"), when the date is asked.
- Texted and regional endings of the flow's own verb as a yes at the confirmation
  ("송금해주삼", "이체하시죠", "보내주이소"); the same with a question mark or a negation
  decides nothing.
- A volitional form of the verb ("보낼래", "부칠게요") starts the transfer as "보내줘" does.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from tests.test_changes_at_confirmation import SINGLE, confirming
from tests.test_plain_amounts import conversation


@pytest.mark.parametrize(("message", "amount"), [
    ("외삼촌한테 7만 말고 8만 보내줘", 80000),
    ("사촌 형한테 2만 아니고 2만5천 이체해 주세요", 25000),
    ("막내한테 5만 대신 6만 보내", 60000),
])
async def test_an_amount_without_won_said_away_at_the_start_is_the_other(
        message: str, amount: int) -> None:
    said = await conversation(message)
    assert said[0][1]["stage"] == "READY" and said[0][1]["slots"]["amount"] == amount


@pytest.mark.parametrize(("answer", "amount"), [
    ("10만.. 아니다 12만", 120000), ("6만 말고 6만5천으로요", 65000), ("아니 1.5만", 15000),
])
async def test_an_amount_corrected_in_the_answer_to_how_much_is_the_last(
        answer: str, amount: int) -> None:
    said = await conversation("고모한테 보내 줘", answer)
    assert said[1][1]["stage"] == "READY" and said[1][1]["slots"]["amount"] == amount


@pytest.mark.parametrize(("reply", "amount"), [
    ("앗 6만 말고 7만", 70000), ("6만 아니고 5만5천", 55000), ("어 6만 아니라 9만이요", 90000),
])
async def test_an_amount_corrected_at_the_confirmation_changes_it(reply: str, amount: int
                                                                  ) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == {"amount": amount} and stage == "READY"


@pytest.mark.parametrize("message", ["4만5천 누나한테 보내줘", "2만 친구한테 이체해 주세요"])
async def test_an_amount_without_won_before_to_whom_it_goes_is_the_amount(message: str
                                                                          ) -> None:
    said = await conversation(message)
    assert said[0][1]["stage"] == "READY" and said[0][1]["slots"]["amount"] in (45000, 20000)


@pytest.mark.parametrize("message", ["5만 명 말고 4만 명이 왔대", "10만 포인트 말고 5만 포인트",
                                     "3만 보 걸었어"])
async def test_counted_things_in_man_are_no_amount(message: str) -> None:
    said = await conversation("동생한테 보내줘", message)
    assert said[1][1]["slots"]["amount"] is None and said[1][1]["stage"] == "FILLING"


@pytest.mark.parametrize(("answer", "target"), [
    ("누나.. 아 아니다 형", "형"), ("할머니 어 아니 할아버지", "할아버지"),
    ("dad, no wait, grandpa", "grandpa"), ("Sam - sorry, I meant Sara", "Sara"),
])
async def test_a_name_corrected_in_the_answer_to_whom_is_the_last(answer: str, target: str
                                                                  ) -> None:
    said = await conversation("4만원 보내려고", answer)
    assert said[1][1]["stage"] == "READY" and said[1][1]["slots"]["target"] == target


async def test_a_full_name_said_away_by_its_given_name_is_replaced() -> None:
    said = await conversation("이지은한테 3만원 보내줘", "지은 말고 지현한테")
    assert said[1][1]["stage"] == "READY"
    assert said[1][1]["slots"] == {"target": "지현", "amount": 30000, "when": None}


async def test_another_given_name_said_away_changes_nothing() -> None:
    said = await conversation("이지은한테 3만원 보내줘", "은 말고 현이")
    assert said[1][1]["slots"]["target"] == "이지은"


@pytest.mark.parametrize("answer", ["응 바로 보내", "네 지금 해 주세요", "just send it now",
                                    "ok right away", "그냥 바로요", "right now please"])
async def test_an_answer_meaning_now_with_a_yes_or_a_verb_goes_on_without_a_date(
        answer: str) -> None:
    said = await conversation("삼촌한테 5만원 월말쯤 보내줘", answer)
    assert said[0][1]["stage"] == "FILLING"  # the date is asked
    assert (said[1][1]["stage"], said[1][1]["slots"]["when"]) == ("READY", None)


@pytest.mark.parametrize("answer", ["지금 말고", "지금은 안 돼", "now?", "그냥",
                                    "지금 말고 다음 주쯤"])
async def test_a_not_now_or_a_question_keeps_the_date_asked(answer: str) -> None:
    said = await conversation("삼촌한테 5만원 월말쯤 보내줘", answer)
    assert said[1][1]["stage"] == "FILLING"


@pytest.mark.parametrize("reply", ["송금해주삼", "이체하시죠", "보내주이소", "네 쏴주세용",
                                   "ㅇㅇ 진행하셈"])
async def test_texted_and_regional_endings_of_the_verb_are_a_yes(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["decision"] == "confirm" and stage == "EXECUTED"


@pytest.mark.parametrize("reply", ["송금해주삼?", "이체하시죠?", "보내지 마셈", "안 보내주이소"])
async def test_the_same_endings_asked_or_negated_decide_nothing(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["decision"] is None and stage == "READY"


@pytest.mark.parametrize(("message", "target"), [("이모한테 보낼래", "이모"),
                                                 ("삼촌한테 부칠게요", "삼촌"),
                                                 ("친구한테 돈 좀 보낼래요", "친구")])
async def test_a_volitional_form_of_the_verb_starts_the_transfer(message: str, target: str
                                                                  ) -> None:
    said = await conversation(message)
    assert said[0][0]["intent"] == "transfer"
    assert (said[0][1]["stage"], said[0][1]["slots"]["target"]) == ("FILLING", target)


@pytest.mark.parametrize("message", ["동생한테 영상 보낼게", "어제 엄마한테 보낸 거 맞지?"])
async def test_things_sent_or_a_past_sending_start_no_transfer(message: str) -> None:
    said = await conversation(message)
    assert said[0][1]["flow"] != "transfer" or said[0][1]["stage"] != "READY"
    assert said[0][0]["intent"] != "transfer"


@pytest.mark.parametrize(("reply", "decision"), [  # docs/dsl.md's examples
    *((r, "confirm") for r in ("보내주삼", "보내셈", "보내주세용", "보내시죠", "진행하셈",
                               "보내 주이소", "보내주소", "보내뿌라")),
    ("보내주시죠?", None), ("보내지 마셈", None),
])
async def test_the_documented_endings(reply: str, decision: str | None) -> None:
    reading, _, _ = await confirming(SINGLE, reply)
    assert reading["decision"] == decision


@pytest.mark.parametrize(("message", "amount"), [("3만 말고 4만", 40000),  # docs/understanding.md
                                                 ("10만.. 아니다 12만", 120000)])
async def test_the_documented_corrections(message: str, amount: int) -> None:
    said = await conversation("엄마한테 보낼래", message)
    assert said[1][1]["slots"]["amount"] == amount


@pytest.mark.parametrize("reply", ["지은 말고 최유진씨로 바꿔줘",
                                   "아 지은 말고 최유진 씨로 변경해 주세요"])
async def test_a_full_name_said_away_by_its_given_name_before_a_change_is_replaced(
        reply: str) -> None:
    said = await conversation("이지은한테 3만원 보내줘", reply)
    assert said[1][1]["stage"] == "READY" and said[1][1]["slots"]["target"] == "최유진"


@pytest.mark.parametrize(("reply", "slots"), [
    ("그리고 받는 분은 외숙모로", {"target": "외숙모"}),
    ("아 그리고 금액은 8만원으로 해 주세요", {"amount": 80000}),
    ("and make it 90000", {"amount": 90000}),
])
async def test_a_change_opening_with_and_is_a_change(reply: str, slots: dict[str, object]
                                                     ) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == slots and stage == "READY"
