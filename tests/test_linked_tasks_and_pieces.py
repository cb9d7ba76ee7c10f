"""Requests said in pieces or twice over, each class with sentences of its own (none from the
blind sets that found them):

- two intents in one message whose flows are one task (a lost-card report hands over to the
  replacement) start one task: one card is ordered, never a second replacement after it;
- an amount said with "-이고" ("금액은 2만원이고") is the amount;
- a time said of another, later sending ("다음 주에 또 보낼지도") is no date for this one;
- "일단", "여기서", "별거 아냐", "확실해" and "늘 고마워요" around a yes add nothing to it;
- two catalogue names said apart in one request name no product (which one?), a name only
  like another intent's example is the request's own, and a number typed onto a name is no
  count, a particle after it notwithstanding ("버즈3랑").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from tests.played import play as played_in

ROOT = Path(__file__).resolve().parents[1]
CARDS = compile_file(ROOT / "flows" / "cards.yaml")
TRANSFER = compile_file(ROOT / "flows" / "transfer.yaml")


async def play(service: Any, messages: list[str], slots: dict[str, Any] | None = None
               ) -> tuple[dict[str, Any], str, list[dict[str, Any]]]:
    """The last snapshot and reply, and the tasks the conversation finished."""
    played = await played_in(service, messages, slots=slots)
    return played.snapshot, played.message, played.finished


@pytest.mark.parametrize("opening", [
    "replace my card please, someone stole it at the gym",
    "my card has gone missing, i need a replacement",
    "can you send me a new card? mine was misplaced on holiday",
])
async def test_a_loss_said_with_a_replacement_orders_one_card(opening: str) -> None:
    snapshot, message, finished = await play(
        CARDS, [opening, "010-3030-4040", "yes"], slots={"user_id": "u77"})
    orders = [task for task in finished if task.get("flow") == "replace"]
    assert [task.get("outcome") for task in orders] == ["ORDERED"]
    assert snapshot["stage"] == "ORDERED" and message == "Your new card is ordered."


async def test_two_requests_of_different_tasks_still_run_both() -> None:
    snapshot, message, _ = await play(
        CARDS, ["whats my balance and replace my card"], slots={"user_id": "u77"})
    assert message == "The balance of u77 is 1,250.00. Was the card lost or damaged?"
    assert (snapshot["flow"], snapshot["stage"]) == ("replace", "FILLING")


@pytest.mark.parametrize(("answer", "amount"), [("금액은 4만원이고", 40000),
                                                ("7만원이구", 70000)])
async def test_an_amount_said_with_igo_is_the_amount(answer: str, amount: int) -> None:
    snapshot, _, _ = await play(TRANSFER, ["송금하려고요", answer])
    assert (snapshot["stage"], snapshot["slots"]["amount"]) == ("FILLING", amount)


@pytest.mark.parametrize("reply", ["다음 달에 또 보낼 수도 있어", "모레 다시 송금할지도 몰라",
                                   "might send him another one next week"])
async def test_a_time_of_another_sending_is_no_date(reply: str) -> None:
    snapshot, _, finished = await play(TRANSFER, ["삼촌한테 5만원 보내줘", reply])
    assert (snapshot["stage"], snapshot["slots"]["when"], finished) == ("READY", None, [])


@pytest.mark.parametrize("reply", ["일단 이거 송금해줘", "그냥 여기서 이체해 주세요",
                                   "아 별거 아니야 보내줘", "응 확실해요, 이체해줘",
                                   "네 보내주세요 항상 고마워요"])
async def test_words_around_a_yes_that_add_nothing(reply: str) -> None:
    snapshot, _, finished = await play(TRANSFER, ["삼촌한테 5만원 보내줘", reply])
    assert (snapshot["stage"], len(finished)) == ("EXECUTED", 1)


@pytest.mark.parametrize("reply", ["일단 보류", "별거 아니야", "여기서요?"])
async def test_those_words_alone_decide_nothing(reply: str) -> None:
    snapshot, _, finished = await play(TRANSFER, ["삼촌한테 5만원 보내줘", reply])
    assert (snapshot["stage"], finished) == ("READY", [])


COMMERCE = compile_file(ROOT / "flows" / "commerce.yaml")
SHOPPER = {"is_logged_in": True, "user_id": "u-1", "user_type": "consumer"}


async def cart(message: str) -> dict[str, Any]:
    return (await played_in(COMMERCE, [message], context=SHOPPER)).snapshot


@pytest.mark.parametrize("message", [
    "소니 WF-1000XM5하고 갤럭시 버즈3 장바구니에 넣어줘",
    "갤럭시 버즈3이랑 로지텍 MX Keys Mini 담아줘",
])
async def test_two_names_said_apart_name_no_product(message: str) -> None:
    snapshot = await cart(message)
    assert (snapshot["flow"], snapshot["slots"]["product"]) == ("order", None)
    assert snapshot["slots"]["quantity"] is None  # "버즈3" counts nothing


@pytest.mark.parametrize(("message", "quantity"), [
    ("갤럭시 버즈3 장바구니에 넣어줘", None), ("갤럭시 버즈3랑 충전기 담아줘", None),
    ("갤럭시 버즈3 3개만요 담아줘", 3), ("갤럭시 버즈3 담아줘", None)])
async def test_a_number_typed_onto_a_name_is_no_count(message: str,
                                                      quantity: int | None) -> None:
    snapshot = await cart(message)
    assert snapshot["slots"]["quantity"] == quantity


@pytest.mark.parametrize(("message", "first", "second", "amount"), [
    ("이모랑 삼촌 두 분께 각각 2만원 보내드려", "이모", "삼촌", 20000),
    ("형하고 누나 2명한테 3만원씩 보내줘", "형", "누나", 30000),
    ("할머니랑 할아버지 모두에게 5만원씩", "할머니", "할아버지", 50000)])
async def test_a_head_count_after_the_people_still_splits_each(
        message: str, first: str, second: str, amount: int) -> None:
    snapshot, reply, _ = await play(TRANSFER, [message])
    assert snapshot["stage"] == "READY" and "(1/2)" in reply
    assert (snapshot["slots"]["target"], snapshot["slots"]["amount"]) == (first, amount)
    assert [(task["target"], task["amount"]) for task in snapshot["task_queue"]] == \
        [(second, amount)]


@pytest.mark.parametrize("reply", ["다음에 올게요", "나중에 다시 올게요"])
async def test_coming_back_later_cancels(reply: str) -> None:
    snapshot, _, finished = await play(TRANSFER, ["삼촌한테 5만원 보내줘", reply])
    assert (snapshot["stage"], len(finished)) == ("CANCELLED", 1)
