"""Choices, amounts and requests said in ways the rules used to misread, each class with
sentences of its own (none from the blind sets that found them):

- a choice's short name glued to 하다 said of something else the speaker does or did
  ("매일 체크하는 사람이라", "교환했었는데") is not the choice; said as asked for ("체크로
  할게요", "교환하고 싶어요") it is;
- a choice turned down with the request's noun between ("체크카드는 신청 안 할래요") is never
  put to the confirmation;
- "그렇다면" (in that case) is no condition; a formal apology before a cancel ("외람되지만")
  cancels; asking to cancel an application when none runs starts none;
- two requests of one priority in one message ask which one was meant;
- a purpose said with 용 ("업무용이에요") is the purpose;
- "half a million won" is 500,000; "a couple hundred thousand", "a few thousand" are no
  amount; "half an hour" halves nothing; a day of the month before "send" is the date;
- a clause of what was done ("…교환했었는데") before the request leaves the request's values.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from tests.played import play

ROOT = Path(__file__).resolve().parents[1]
CARD = compile_file(ROOT / "flows" / "card.yaml")
COMMERCE = compile_file(ROOT / "flows" / "commerce.yaml")
TRANSFER = compile_file(ROOT / "flows" / "transfer.yaml")
SHOPPER = {"is_logged_in": True, "user_id": "u-3", "user_type": "consumer"}


@pytest.mark.parametrize("answer", ["저는 돈 쓰는 거 매일 체크하는 사람이라",
                                    "신용 점수 때문에 고민이에요"])
async def test_a_short_name_inside_another_word_chooses_nothing(answer: str) -> None:
    played = await play(CARD, ["카드 하나 만들고 싶어요", answer])
    assert (played.stage, played.slots["kind"]) == ("FILLING", None)


@pytest.mark.parametrize(("answer", "kind"), [("체크로 할게요", "debit"),
                                              ("신용으로 하고 싶어요", "credit")])
async def test_a_short_name_said_as_asked_for_is_the_choice(answer: str, kind: str) -> None:
    played = await play(CARD, ["카드 하나 만들고 싶어요", answer])
    assert (played.stage, played.slots["kind"]) == ("READY", kind)


@pytest.mark.parametrize(("message", "refused"), [
    ("체크카드는 신청 안 할래요, 잔액이 늘 모자라서요", "debit"),
    ("신용카드는 발급 안 받고 싶어요", "credit"),
])
async def test_a_kind_turned_down_is_never_put_to_the_confirmation(message: str,
                                                                   refused: str) -> None:
    played = await play(CARD, [message])
    assert played.slots.get("kind") != refused and played.stage != "READY"
    assert played.finished == []


async def test_in_that_case_is_no_condition() -> None:
    played = await play(CARD, ["카드 발급 받으려고요", "그렇다면 신용카드로 해 주세요"])
    assert (played.stage, played.slots["kind"]) == ("READY", "credit")


async def test_a_formal_apology_before_a_cancel_cancels() -> None:
    played = await play(CARD, ["체크카드 만들어 주세요", "외람되지만 이번 신청은 취소하겠습니다"])
    assert [task["outcome"] for task in played.finished] == ["CANCELLED"]


async def test_cancelling_an_application_when_none_runs_starts_none() -> None:
    played = await play(CARD, ["카드 신청 좀 취소해 줘"])
    assert played.snapshot["flow"] != "apply" and played.finished == []


async def test_two_requests_of_one_priority_ask_which_one() -> None:
    played = await play(COMMERCE, ["키보드 좀 찾아보고 추천도 해줘"], context=SHOPPER)
    assert played.message == "다음 중 어떤 것을 도와드릴까요? '상품 검색', '상품 추천'"
    assert played.finished == []


@pytest.mark.parametrize(("answer", "purpose"), [("업무용이에요", "work"),
                                                 ("공부용으로요", "study")])
async def test_a_purpose_said_with_yong_is_the_purpose(answer: str, purpose: str) -> None:
    played = await play(COMMERCE, ["노트북 추천해 주세요", answer], context=SHOPPER)
    assert played.slots["purpose"] == purpose


@pytest.mark.parametrize("answer", ["업무용은 아니에요", "공부용은 싫어요"])
async def test_a_purpose_turned_down_with_yong_is_none(answer: str) -> None:
    played = await play(COMMERCE, ["노트북 추천해 주세요", answer], context=SHOPPER)
    assert played.slots["purpose"] is None


async def test_a_clause_of_what_was_done_before_no_request_starts_nothing() -> None:
    played = await play(COMMERCE, ["지난주에 반품했는데 돈이 아직 안 들어왔어요"], context=SHOPPER)
    assert played.slots.get("kind") is None
    assert all(task.get("outcome") != "ACCEPTED" for task in played.finished)


async def test_a_clause_of_what_was_done_leaves_the_request() -> None:
    played = await play(COMMERCE, ["저번 달에 한 번 교환했었는데 이번엔 ORD-1002 환불해 주세요"],
                        context=SHOPPER)
    assert played.snapshot["flow"] == "after_sales"
    assert "ORD-1002" in played.message


@pytest.mark.parametrize(("message", "amount"), [("send Mina half a million won", 500000),
                                                 ("pay Tom 20k in half an hour", 20000)])
async def test_half_of_a_round_number_and_half_an_hour(message: str, amount: int) -> None:
    played = await play(TRANSFER, [message])
    assert (played.stage, played.slots["amount"]) == ("READY", amount)


@pytest.mark.parametrize("message", ["send Mina a couple hundred thousand won",
                                     "send Mina a few thousand won"])
async def test_a_guess_of_an_amount_is_no_amount(message: str) -> None:
    played = await play(TRANSFER, [message])
    assert played.slots["amount"] is None and played.finished == []


async def test_a_day_of_the_month_before_send_is_the_date() -> None:
    played = await play(TRANSFER, ["on the 3rd send Jake 20k"])
    assert (played.stage, played.slots["when"]) == ("READY", "2026-04-03")
