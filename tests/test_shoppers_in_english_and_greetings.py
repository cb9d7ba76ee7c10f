"""From a blind set of 2026-11-29 on the online shop in English and code-switched English and
Korean, each fixed as a class:

- greetings said one after another, in two languages ("hello 안녕하세요!"), are small talk;
  a greeting with a request is not;
- a volitional keyword's negation cancels ("안 살래요", "안 살게요" of 살게 at a checkout), as
  a future negation does ("안 살 거예요", "안 보낼 거야");
- saying one does not have what is asked ("i dont have my order number", "번호가 없어요") is
  a failed try at the question, not small talk;
- a foreigner registration number is refused as a resident registration number is (the
  shop's guard);
- at a request's confirmation, an item the shop knows named as the topic of a change ("그
  키보드는 교환으로 할게요"), and the shop's objects beside a cancel ("그 요청 건은 취소할게요");
- the transfer's ``words.objects`` (돈, money): "돈 보내줘" confirms, "돈 보내지 마세요"
  cancels, "돈" alone or in a question decides nothing.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.nlu.phrases import is_social
from engine.runtime.engine import Engine
from engine.runtime.understanding.understand import understand
from engine.store import MemoryStore
from tests.test_plain_amounts import conversation

FLOWS = Path(__file__).resolve().parents[1] / "flows"
SHOPPER = {"is_logged_in": True, "user_id": "u-9", "user_type": "consumer"}


async def shopping(*messages: str) -> list[tuple[Any, int]]:
    """(the DONE, the session's filling turns) of each message, one logged-in shopper."""
    engine = Engine(compile_file(FLOWS / "commerce.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    said = []
    try:
        for message in messages:
            done = await engine.reply("t", message, context=SHOPPER)
            record = await engine.store.load("t")
            said.append((done, record.data.get("filling_turns", 0) if record else 0))
    finally:
        await engine.aclose()
    return said


@pytest.mark.parametrize("message", ["hello 안녕하세요!", "안녕하세요 good evening",
                                     "hey hey 반가워요", "감사합니다 thank you so much"])
def test_greetings_one_after_another_are_small_talk(message: str) -> None:
    assert is_social(message)


@pytest.mark.parametrize("message", ["안녕하세요 키보드 찾는데요", "hi i need a monitor for work"])
def test_a_greeting_with_a_request_is_no_small_talk(message: str) -> None:
    assert not is_social(message)


async def test_greetings_in_two_languages_get_the_shops_greeting() -> None:
    (done, _), = await shopping("hello 안녕하세요~")
    assert done.state_snapshot["flow"] == "chat" and "무엇을 도와드릴까요" in done.message


@pytest.mark.parametrize("reply", ["안 살게요", "그냥 안 살래요 thanks", "아 안 살 거예요"])
async def test_a_negated_buying_at_checkout_cancels(reply: str) -> None:
    said = await shopping("P-111 화이트 1개 구매할게요", reply)
    assert said[0][0].state_snapshot["stage"] == "READY"
    assert said[-1][0].state_snapshot["stage"] == "CANCELLED"


@pytest.mark.parametrize("answer", ["sorry i dont have my order number", "주문 번호가 없어요",
                                    "i don't have it with me"])
async def test_not_having_what_is_asked_is_a_failed_try(answer: str) -> None:
    said = await shopping("주문 조회 부탁해요", answer)
    (_, before), (done, after) = said
    assert done.state_snapshot["stage"] == "FILLING" and after == before + 1
    assert "무엇을 도와드릴까요" not in done.message


async def test_a_foreigner_registration_number_is_refused() -> None:
    (done, _), = await shopping("외국인 등록번호 971212-5123456 인데 주문 내역 봐주세요")
    assert "주민등록번호 같은 정보는 채팅으로 받을 수 없어요" in done.message
    assert done.state_snapshot["flow"] is None


@pytest.mark.parametrize(("reply", "stage"), [("돈 보내줘요", "EXECUTED"),
                                              ("네 그 돈 보내 주세요", "EXECUTED"),
                                              ("돈 보내지 마세요", "CANCELLED"),
                                              ("돈은요?", "READY"), ("돈", "READY")])
async def test_the_money_named_beside_a_decision_adds_nothing(reply: str, stage: str) -> None:
    said = await conversation("이모한테 4만원 보내줘", reply)
    assert said[-1][1]["stage"] == stage


@pytest.mark.parametrize(("reply", "stage"), [("안 보낼 거예요", "CANCELLED"),
                                              ("이건 안 할 거야", "CANCELLED"),
                                              ("안 보낼 거예요?", "READY")])
async def test_a_future_negation_cancels_and_asked_it_does_not(reply: str, stage: str) -> None:
    said = await conversation("이모한테 4만원 보내줘", reply)
    assert said[-1][1]["stage"] == stage


AT_A_CANCEL = {"order_id": "ORD-1003", "kind": "cancel", "order_status": "PAID",
               "order_amount": 139000}


@pytest.mark.parametrize(("message", "kind"), [("그 키보드는 교환으로 할게요", "exchange"),
                                               ("이어폰은 그냥 환불로 해 주세요", "refund")])
def test_a_thing_the_shop_knows_as_the_topic_of_a_change_is_no_other_subject(
        message: str, kind: str) -> None:
    """At a request's confirmation the item named as the topic ("그 키보드는") is what the
    change is about (a category the shop knows, not a slot of this flow); someone else is not
    ("엄마는 환불로 할게요" changes nothing)."""
    service = compile_file(FLOWS / "commerce.yaml")
    flow = service.flows["after_sales"]
    read = understand(message, service, flow, "READY", asked=None, batching=False,
                      today=dt.date(2026, 11, 24), values=AT_A_CANCEL)
    assert [(op.slot, op.value) for op in read.ops] == [("kind", kind)]
    other = understand("엄마는 환불로 할게요", service, flow, "READY", asked=None,
                       batching=False, today=dt.date(2026, 11, 24), values=AT_A_CANCEL)
    assert other.ops == []


def test_what_the_shop_names_as_its_objects_beside_a_cancel_cancels() -> None:
    service = compile_file(FLOWS / "commerce.yaml")
    read = understand("그 요청 건은 취소할게요", service, service.flows["after_sales"], "READY",
                      asked=None, batching=False, today=dt.date(2026, 11, 24),
                      values=AT_A_CANCEL)
    assert read.decision == "cancel" and read.ops == []


@pytest.mark.parametrize(("flow", "message", "none_of"), [
    ("shop.yaml", "추천은 됐습니다", "recommend"),
    ("shop.yaml", "매출은 안 봐도 될 것 같아요", "sales"),
    ("shop.yaml", "매출 보지 마세요", "sales"),
    ("transfer.yaml", "송금 내역 보지 마세요", "transfer"),
    ("transfer.yaml", "송금 내역 보지 마세요", "history"),
])
def test_a_request_turned_down_after_its_keyword_is_none(flow: str, message: str,
                                                         none_of: str) -> None:
    """A keyword turned down by what follows it ("보지 마", "안 봐도 돼요", "됐어요") is no hit,
    and a shorter keyword of another intent inside it is none either (송금 in "송금 내역")."""
    from engine.nlu.intents import classify

    keyworded = [s.name for s in classify(message, compile_file(FLOWS / flow).intents)
                 if s.reason.startswith("keyword")]
    assert none_of not in keyworded
