"""From a third blind card-desk set and a fourth blind online-shop set (2026-11-29), each
fixed as a class:

- a no followed only by why it is not needed ("아뇨 한번이면 돼요", "no thanks, found it") is
  a no; a yes said whole ("that's all correct");
- an answer after asking why it is needed ("do u really need it? ok fine its 8642") or after
  a memory's hedge ("0912 if I remember right") is the answer;
- a request put as a question, with what happened ("my card is bent, can I get a new one?"),
  is that request, not "which one?";
- the asked value after finding it ("아 찾았어요 ORD-1002요");
- a request said after what has not happened yet ("아직 안 받았는데 환불해 주세요") and a
  purpose after it ("나눠줄라고") keep its values: neither is someone else's words;
- a change with a request's ending as the regions say it ("환불로 해 주이소"), a native
  numeral with 로 ("네 개로"), a slip and an exclamation before a decision ("앗 잘못 쳤어요
  네 …", "아이고 됐심더").

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.nlu.reasons import answer_of
from engine.nlu.words import default_words
from engine.runtime.understanding.understand import understand
from tests.test_card_desk_blind import READY, desk
from tests.test_changes_at_confirmation import SINGLE, confirming

SHOP = compile_file(Path(__file__).parents[1] / "flows" / "commerce.yaml")
TODAY = dt.date(2026, 11, 24)


def shop(text: str, flow: str, stage: str, *, asked: str | None = None,
         values: dict[str, object] | None = None) -> dict[str, object]:
    """The slot values the shop's rules read in ``text``."""
    read = understand(text, SHOP, SHOP.flows[flow], stage, asked=asked, batching=False,
                      today=TODAY, values=values, started=stage == "INIT")
    return {op.slot: op.value for op in read.ops if op.op == "set"}


@pytest.mark.parametrize("reply", ["nah, we found it", "no thank you, i dont need one anymore"])
async def test_a_no_and_why_it_is_not_needed_cancels_at_the_desk(reply: str) -> None:
    *_, (reading, state, said) = await desk(*READY, reply)
    assert state["stage"] == "CANCELLED" and said == "Cancelled."


@pytest.mark.parametrize("reply", ["yes thats all correct", "its all correct, thanks"])
async def test_a_yes_said_whole_orders_the_card(reply: str) -> None:
    *_, (reading, state, _) = await desk(*READY, reply)
    assert reading["decision"] == "confirm" and state["stage"] == "ORDERED"


@pytest.mark.parametrize("answer", ["why do you need that?? fine, 3141",
                                    "is that necessary? ugh ok 3141",
                                    "3141 if I recall correctly", "3141, if my memory serves"])
async def test_a_pin_after_asking_why_or_with_a_memorys_hedge_verifies(answer: str) -> None:
    *_, (_, state, said) = await desk("verify me", "u58", answer)
    assert state["stage"] == "VERIFIED" and "u58" in said


async def test_a_request_put_as_a_question_with_what_happened_starts_it() -> None:
    (_, state, said), = await desk("my card snapped in half, could you send me a new one?")
    assert state["flow"] == "verify" and "customer id" in said


@pytest.mark.parametrize("answer", ["아 여기요 ORD-2024", "찾았습니다 ORD-2024입니다"])
def test_the_asked_value_after_finding_it_is_read(answer: str) -> None:
    assert shop(answer, "after_sales", "FILLING", asked="order_id") == {"order_id": "ORD-2024"}


@pytest.mark.parametrize(("message", "kind"), [
    ("이어폰 아직 못 받았는데 주문 취소해 주세요 ORD-2024", "cancel"),
    ("ORD-2024 반품할라고요 색이 사진이랑 달라서", "refund"),
])
def test_a_request_after_what_has_not_happened_keeps_its_values(message: str,
                                                                kind: str) -> None:
    read = shop(message, "after_sales", "INIT")
    assert read.get("order_id") == "ORD-2024" and read.get("kind") == kind


def test_a_purpose_after_a_cart_request_keeps_its_values() -> None:
    assert shop("P-105 3개 담아줘 선물할라고", "order", "INIT") == {"product": "P-105",
                                                                  "quantity": 3}


@pytest.mark.parametrize(("reply", "kind"), [("환불 말고 교환으로 해 주이소", "exchange"),
                                             ("참 교환 말고 환불로 해줘유", "refund")])
def test_a_change_with_a_regional_request_ending_is_read(reply: str, kind: str) -> None:
    values = {"order_id": "ORD-2024", "kind": "refund" if kind == "exchange" else "exchange"}
    assert shop(reply, "after_sales", "READY", values=values) == {"kind": kind}


@pytest.mark.parametrize(("reply", "quantity"), [("네 개로 바꿔줘", 4), ("다섯 개로요", 5)])
def test_a_native_numeral_with_ro_changes_the_quantity(reply: str, quantity: int) -> None:
    assert shop(reply, "order", "READY", values={"product": "P-105", "quantity": 2}) == \
        {"quantity": quantity}


async def test_a_slip_said_before_a_yes_is_still_the_yes() -> None:
    reading, stage, _ = await confirming(SINGLE, "앗 잘못 쳤어요 네 이체해 주세요")
    assert reading["decision"] == "confirm" and stage == "EXECUTED"


@pytest.mark.parametrize("reply", ["네 앗 잘못 눌렀어요", "응 헉", "ok oops wrong chat"])
async def test_a_slip_said_after_a_yes_takes_it_back(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["decision"] != "confirm" and stage != "EXECUTED"


def test_what_one_already_has_is_no_answer() -> None:
    assert shop("키보드는 이미 있어요", "recommend", "FILLING", asked="category") == {}


@pytest.mark.parametrize("reply", ["아이고 됐심더", "아이고 마 됐다"])
async def test_an_exclamation_before_a_regional_cancel_cancels(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["decision"] == "cancel" and stage == "CANCELLED"


def test_a_no_with_enough_said_is_a_no() -> None:
    assert answer_of("아니요 이걸로 충분해요", default_words("ko")) == "deny"


@pytest.mark.parametrize("text", ["ㅋ" * 20000, "ㅋㅋ " * 7000, "sorry " * 5000])
def test_a_long_run_before_no_slip_is_read_in_one_pass(text: str) -> None:
    """A slip is looked for at the start of every decision: a long laugh with none after
    it is no slip, found without trying each way of splitting the laugh (which never
    ended)."""
    assert answer_of(text, default_words("ko")) is None
