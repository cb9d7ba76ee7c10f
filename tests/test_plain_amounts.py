"""A plain number is the transfer's amount when it is said as one: with the flow's own verb
("누나한테 25000 이체해 주세요", "wire 70000 to grandpa"), after whom it goes to in a batch that
says its verb once, or as what the amount is to be at the confirmation ("60000으로 바꿔 주세요",
"make that 35000"); "N thousand" is an amount as "Nk" is. Never a phone or account number,
a count, a number under the least plain amount, one said roughly, or one in a question.

And what came up with them, found by conversations written blind: a new request answering
"did you mean a transfer?" is read for its own values, not the first message's; "don't send
it yet" waits instead of cancelling; a cancel said in English with a Korean verb ("cancel
해주세요") cancels; "can u …" is a request; "do it on monday" is told, not asked; English
day words take Korean particles ("saturday로"); "send 누나 3만원" names 누나.

Every sentence here is new: none is in an eval set, a flow's tests or another test."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.test_changes_at_confirmation import BATCH, FLOWS, SINGLE, SINGLE_EN, confirming
from tests.test_turned_down_words import reply_to_first

_MONDAY = dt.datetime(2026, 1, 5, 9, 0)


async def conversation(*messages: str, flow: str = "transfer.yaml"
                       ) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
    """(the reading, the state snapshot, the reply) of each message, one session of
    ``flow`` (the transfer service unless named)."""
    engine = Engine(compile_file(FLOWS / flow), store=MemoryStore(),
                    settings=load_settings({}))
    said = []
    try:
        for message in messages:
            done = await engine.reply("t", message)
            said.append((dict(done.trace.get("reading") or {}), done.state_snapshot,
                         done.message))
    finally:
        await engine.aclose()
    return said


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("누나한테 25000 이체해 주세요", "누나", 25000),
    ("45,000 동생한테 송금해줘", "동생", 45000),
    ("삼촌한테 120000 좀 부쳐줘", "삼촌", 120000),
    ("wire 70000 to grandpa", "grandpa", 70000),
    ("pay jimin 18000 pls", "jimin", 18000),
    ("could u transfer 40000 to dad", "dad", 40000),
    ("send 할아버지 60000", "할아버지", 60000),
    ("send 누나 3만원", "누나", 30000),
    ("send grandma 70 thousand", "grandma", 70000),
    ("send uncle fifty thousand please", "uncle", 50000),
])
async def test_a_plain_number_said_with_the_flows_verb_is_the_amount(
        message: str, target: str, amount: int) -> None:
    reading, stage, _ = await reply_to_first(message)
    assert reading["intent"] == "transfer"
    assert reading["slots"] == {"target": target, "amount": amount}
    assert stage == "READY"


@pytest.mark.parametrize("message", [
    "엄마한테 010-9876-5432 보내줘",  # a phone number
    "엄마한테 010 9876 5432 보내줘",
    "send 0104567 to mom",  # starts with 0: no amount
    "2000명한테 보내줘",  # a count
    "엄마한테 500 보내줘",  # 500원? 500만원?
    "send about 30000 to mom",  # said roughly
    "send mom roughly 45000",
])
async def test_a_number_not_said_as_the_amount_is_none(message: str) -> None:
    reading, _, _ = await reply_to_first(message)
    assert "amount" not in reading.get("slots", {})


async def test_a_batch_that_says_its_verb_once_sends_every_amount() -> None:
    said = await conversation("누나한테 12000, 형한테 8000 보내줘", "네")
    assert said[0][1]["slots"]["target"] == "누나" and said[0][1]["slots"]["amount"] == 12000
    assert said[1][1]["stage"] == "READY"
    assert said[1][1]["slots"]["target"] == "형" and said[1][1]["slots"]["amount"] == 8000


@pytest.mark.parametrize(("message", "second"), [
    ("transfer 20000 to dad and 5000 to jisoo", {"target": "jisoo", "amount": 5000}),
    ("send grandma 40k and uncle 15k", {"target": "uncle", "amount": 15000}),
])
async def test_an_english_batch_with_one_verb_gives_each_part_its_values(
        message: str, second: dict[str, Any]) -> None:
    said = await conversation(message, "yes")
    assert said[1][1]["stage"] == "READY"
    assert {k: said[1][1]["slots"][k] for k in second} == second


async def test_a_part_turned_down_borrows_no_verb() -> None:
    reading, stage, _ = await reply_to_first("not 40k, send 25k to Jimin")
    assert reading["slots"] == {"target": "Jimin", "amount": 25000} and stage == "READY"


@pytest.mark.parametrize("before", [SINGLE, BATCH, SINGLE_EN], ids=["single", "batch", "en"])
@pytest.mark.parametrize(("reply", "amount"), [
    ("75000으로 바꿔 주세요", 75000),
    ("아 55000으로", 55000),
    ("make that 35000", 35000),
    ("18000 instead", 18000),
    ("set it to 22,000", 22000),
])
async def test_a_plain_number_said_as_the_new_amount_changes_it(
        before: list[str], reply: str, amount: int) -> None:
    reading, stage, said = await confirming(before, reply)
    assert reading["decision"] is None and reading["slots"] == {"amount": amount}
    assert stage == "READY" and (f"{amount:,}" in said or f"{amount // 10000}만" in said)


@pytest.mark.parametrize("reply", [
    "75000으로 할까?",  # a question
    "make it 75000?",
    "3번으로 해줘",  # a count of something else
    "400으로",  # 400원? 400만원?
])
async def test_a_number_not_said_as_the_new_amount_changes_nothing(reply: str) -> None:
    reading, stage, said = await confirming(SINGLE, reply)
    assert not reading.get("slots") and reading.get("decision") is None
    assert stage == "READY" and "6만원" in said


@pytest.mark.parametrize(("message", "amount"), [("70 thousand", 70000),
                                                ("85 thousand won", 85000)])
async def test_thousands_in_digits_and_a_word_answer_how_much(message: str, amount: int) -> None:
    said = await conversation("send it to grandma", message)
    assert said[1][1]["slots"]["amount"] == amount and said[1][1]["stage"] == "READY"


async def test_thousands_of_something_else_are_no_amount() -> None:
    said = await conversation("send it to grandma", "70 thousand people saw it")
    assert said[1][1]["slots"]["amount"] is None


async def test_a_new_request_answering_did_you_mean_is_read_for_its_own_values() -> None:
    said = await conversation("dad sent me 50k last week haha", "send 20k to grandma")
    assert "말씀이신가요" in said[0][2]  # did you mean a transfer?
    assert said[1][1]["stage"] == "READY"
    assert said[1][1]["slots"] == {"target": "grandma", "amount": 20000, "when": None}


async def test_a_yes_to_did_you_mean_takes_the_first_messages_values() -> None:
    said = await conversation("4만원 좀", "응")
    assert "말씀이신가요" in said[0][2]  # one value alone: did you mean a transfer?
    assert (said[-1][1]["stage"], said[-1][1]["slots"]["amount"]) == ("FILLING", 40000)


@pytest.mark.parametrize("reply", ["don't transfer it yet", "do not send yet",
                                   "please don't send it just yet"])
async def test_not_yet_waits(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading.get("decision") is None and stage == "READY"


@pytest.mark.parametrize("reply", ["don't send it", "don't send it, I changed my mind"])
async def test_a_negated_send_still_cancels(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["decision"] == "cancel" and stage == "CANCELLED"


@pytest.mark.parametrize("reply", ["cancel 해주세요", "stop할게요", "abort 하자"])
async def test_an_english_cancel_with_a_korean_verb_cancels(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["decision"] == "cancel" and stage == "CANCELLED"


@pytest.mark.parametrize("reply", ["cancel 안 해", "cancel 하지 마", "취소 안 할게요"])
async def test_a_cancel_noun_negated_cancels_nothing(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading.get("decision") is None and stage == "READY"


@pytest.mark.parametrize(("reply", "date"), [
    ("do it on monday", "2026-01-05"),
    ("let's do saturday", "2026-01-10"),
    ("sorry I meant tuesday", "2026-01-06"),
    ("saturday로 해줘", "2026-01-10"),
    ("tomorrow에 보내줘", "2026-01-06"),
])
async def test_a_date_told_at_the_confirmation_changes_it(reply: str, date: str) -> None:
    engine = Engine(compile_file(FLOWS / "transfer.yaml"), store=MemoryStore(),
                    settings=load_settings({}), clock=lambda: _MONDAY)
    try:
        await engine.reply("t", "이모한테 3만원 보내줘")
        done = await engine.reply("t", reply)
    finally:
        await engine.aclose()
    assert done.state_snapshot["stage"] == "READY"
    assert done.state_snapshot["slots"]["when"] == date


async def test_a_question_opening_with_do_changes_no_date() -> None:
    reading, stage, _ = await confirming(SINGLE, "do you send on saturday")
    assert not reading.get("slots") and stage == "READY"



@pytest.mark.parametrize(("message", "amount"), [
    ("엄마한테 50000 보내줘", 50000), ("send mom 50000", 50000), ("transfer 40000 to dad", 40000),
    ("엄마한테 10000, 아빠한테 20000 보내줘", 10000), ("엄마한테 010-1234-5678 보내줘", None),
    ("3000명한테 보내줘", None), ("send about 50000 to mom", None),
])
async def test_the_docs_examples_of_a_first_message(message: str, amount: int | None) -> None:
    """docs/dsl.md, "A plain number as the amount"."""
    reading, _, _ = await reply_to_first(message)
    assert reading.get("slots", {}).get("amount") == amount


@pytest.mark.parametrize(("reply", "amount"), [
    ("40000으로 바꿔줘", 40000), ("make it 50000", 50000), ("25000 instead", 25000),
    ("make it 50000?", None),
])
async def test_the_docs_examples_at_the_confirmation(reply: str, amount: int | None) -> None:
    reading, _, _ = await confirming(SINGLE, reply)
    assert reading.get("slots", {}).get("amount") == amount


async def test_the_docs_example_of_a_batch_with_one_verb() -> None:
    said = await conversation("send 30000 to jisoo and 15000 to minsu", "yes")
    assert said[1][1]["slots"]["target"] == "minsu" and said[1][1]["slots"]["amount"] == 15000


async def test_a_verb_joined_by_go_ends_a_task_and_its_date_goes_with_it() -> None:
    engine = Engine(compile_file(FLOWS / "transfer.yaml"), store=MemoryStore(),
                    settings=load_settings({}), clock=lambda: _MONDAY)
    try:
        first = await engine.reply("t", "모레 누나한테 2만원 이체하고 토요일에 형한테 5만원 "
                                        "이체해줘")
        second = await engine.reply("t", "네")
    finally:
        await engine.aclose()
    assert first.state_snapshot["slots"] == {"target": "누나", "amount": 20000,
                                             "when": "2026-01-07"}
    assert second.state_snapshot["slots"] == {"target": "형", "amount": 50000,
                                              "when": "2026-01-10"}


@pytest.mark.parametrize("message", ["동생한테 만원 보내고 싶어", "형한테 3만원 보내고 있어"])
async def test_a_verb_with_go_that_ends_no_task_splits_nothing(message: str) -> None:
    said = await conversation(message)
    assert said[0][1]["task_queue"] == [] and "건이 요청" not in said[0][2]
    assert said[0][1]["stage"] == "READY"


@pytest.mark.parametrize("reply", ["아 그냥 없던 일로 해", "없던 일로 해주세요"])
async def test_as_if_it_never_happened_cancels(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["decision"] == "cancel" and stage == "CANCELLED"


async def test_a_batch_with_an_english_verb_last_keeps_each_korean_name() -> None:
    said = await conversation("이모한테 2만원, 삼촌한테 30000 send", "ok")
    assert said[0][1]["slots"]["target"] == "이모" and said[0][1]["slots"]["amount"] == 20000
    assert said[1][1]["slots"]["target"] == "삼촌" and said[1][1]["slots"]["amount"] == 30000


@pytest.mark.parametrize(("reply", "stage"), [
    ("why not", "EXECUTED"), ("sure, why not", "EXECUTED"), ("why not?", "READY"),
])
async def test_why_not_said_is_a_yes_asked_is_none(reply: str, stage: str) -> None:
    _, now, _ = await confirming(SINGLE, reply)
    assert now == stage


@pytest.mark.parametrize(("reply", "target"), [("최유진으로 바꿔 주세요", "최유진"),
                                               ("정하늘씨로 변경해줘", "정하늘")])
async def test_a_full_name_said_as_the_new_recipient_changes_it(reply: str, target: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == {"target": target} and stage == "READY"


@pytest.mark.parametrize("reply", ["통장으로 바꿔줘", "어머님으로 바꿔줘 하셨어"])
async def test_a_word_said_as_the_new_recipient_is_no_name(reply: str) -> None:
    reading, _, _ = await confirming(SINGLE, reply)
    assert not reading.get("slots")
