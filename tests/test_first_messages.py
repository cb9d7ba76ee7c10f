"""First messages the blind set showed misread, each as its class: an amount with a space
before its unit ("3 만원" was 10000) or between its thousands ("10 000원" was 0), "to"
before a verb ("I'd like to make a transfer" named "make"), money already sent or received
said in the past ("이체했음", "받았어"), someone else's wish ("보내달라시네", "wants me to")
and a request only weighed ("maybe I should…", "보내야 하나") — none of them a request to act
on; nor is sending something that is not money ("엄마한테 문자 보내줘": the transfer
intent's ``unless`` words)."""

from __future__ import annotations

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore


async def first(transfer: CompiledService, message: str) -> dict[str, object]:
    done = await Engine(transfer, store=MemoryStore()).reply("s", message)
    return {"stage": done.state_snapshot["stage"], **(done.state_snapshot.get("slots") or {})}


@pytest.mark.parametrize(("message", "amount"), [
    ("누나 한테 7 만원 보내 줘", 70000), ("아빠에게 2 만 5 천원 이체", 25000),
    ("동생한테 8 천원 송금해줘", 8000), ("삼촌께 3 천 원 보내드려", 3000),
])
async def test_an_amount_with_a_space_before_its_unit_is_the_whole_amount(
        transfer: CompiledService, message: str, amount: int) -> None:
    assert (await first(transfer, message))["amount"] == amount


@pytest.mark.parametrize(("message", "amount"), [
    ("동생한테 25 000원 보내줘", 25000), ("send 1 500 000 won to Jisu", 1500000),
    ("집주인한테 650 000원 이체해 주세요", 650000), ("pay Minho 40 000 won", 40000),
])
async def test_thousands_set_apart_by_spaces_are_one_amount(
        transfer: CompiledService, message: str, amount: int) -> None:
    assert (await first(transfer, message))["amount"] == amount


def test_digits_set_apart_without_a_unit_or_in_uneven_groups_are_no_grouped_amount() -> None:
    from engine.nlu import find_money

    assert find_money("3 500") == []
    assert [m.value for m in find_money("1 2000원")] == [2000]
    assert [m.value for m in find_money("버스 2번 타고 3 000원")] == [3000]


@pytest.mark.parametrize(("answer", "amount"), [("4 만이요", 40000), ("6 천", 6000),
                                                 ("3 만약에", None)])
async def test_a_spaced_bare_amount_answers_with_the_whole_amount(
        transfer: CompiledService, answer: str, amount: int | None) -> None:
    engine = Engine(transfer, store=MemoryStore())
    await engine.reply("s", "엄마한테 보내줘")
    done = await engine.reply("s", answer)
    assert done.state_snapshot["slots"]["amount"] == amount


@pytest.mark.parametrize("message", ["I would like to make a transfer",
                                     "I want to do a transfer", "I'm trying to pay someone"])
async def test_to_before_a_verb_names_nobody(transfer: CompiledService, message: str) -> None:
    assert (await first(transfer, message))["target"] is None


@pytest.mark.parametrize("message", [
    "그저께 동생한테 5만원 송금했음", "삼촌이 10만원 보내줬어", "할머니한테서 용돈 5만원 받았어요",
    "이모가 2만원만 보내달라시네", "my brother wants me to send him 30k",
    "maybe I should send mom 50k", "I'm thinking of transferring 20k to Lee",
    "형한테 돈 보내야 하나", "누나한테 5만원 보낼까 말까",
    "아까 10만원 입금됐던데", "아빠가 3만원 보내 주셨네", "할머니께 5만원 보내드렸어요",
    "형한테 3만원 보내야 될 것 같아요", "누나한테 돈 보낼까 고민 중",
    "이모한테 5만원 보낼까 싶기도 하고",
    "not sure if I should send Tom 20k", "삼촌한테 10만원... 아닌가",
])
async def test_money_already_moved_someone_elses_wish_or_a_weighed_request_is_no_request(
        transfer: CompiledService, message: str) -> None:
    read = await first(transfer, message)
    assert read["stage"] != "READY" and read.get("amount") is None


@pytest.mark.parametrize("message", ["아빠한테 메시지 보내줘", "send my sister a photo",
                                     "동생한테 파일 좀 보내줄래", "삼촌께 편지를 부쳤어요?"])
async def test_sending_something_that_is_not_money_starts_no_transfer(
        transfer: CompiledService, message: str) -> None:
    done = await Engine(transfer, store=MemoryStore()).reply("s", message)
    assert done.state_snapshot["flow"] != "transfer"


@pytest.mark.parametrize(("message", "amount"), [("택배비 3만원 민수한테 보내줘", 30000),
                                                 ("카톡으로 엄마한테 3만원 보내줘", 30000)])
async def test_a_longer_word_or_a_way_to_send_money_is_still_a_transfer(
        transfer: CompiledService, message: str, amount: int) -> None:
    assert (await first(transfer, message))["amount"] == amount


@pytest.mark.parametrize("message", [
    "보너스 나오면 아빠한테 20만원 보내줘", "if rent comes in, send Jisu 40k",
    "돈 들어오는 대로 형한테 10만원 이체해줘", "unless I say otherwise, pay Tom 30k",
    "시험 끝나거든 동생한테 5만원 보내줘", "once my salary lands, wire 100k to Mina",
])
async def test_a_request_on_a_condition_not_met_yet_moves_toward_no_confirmation(
        transfer: CompiledService, message: str) -> None:
    read = await first(transfer, message)
    assert read["stage"] != "READY"
    assert read.get("amount") is None and read.get("target") is None


@pytest.mark.parametrize(("message", "amount"), [
    ("가능하면 오늘 누나한테 3만원 보내줘", 30000), ("send mom 20k if you can", 20000),
    ("I was wondering if you could send Jisu 15k", 15000),
    ("괜찮으면 민수한테 2만원 보내줘", 20000)])
async def test_a_polite_if_is_no_condition(transfer: CompiledService, message: str,
                                           amount: int) -> None:
    assert (await first(transfer, message))["amount"] == amount


@pytest.mark.parametrize("message", ["last time I ordered a small with extra cheese",
                                     "last time we got a large one"])
async def test_what_was_ordered_last_time_is_no_order_of_its_values(message: str) -> None:
    from engine.compiler import compile_file
    from tests.conftest import ROOT

    engine = Engine(compile_file(ROOT / "flows" / "pizza.yaml"), store=MemoryStore())
    slots = (await engine.reply("s", message)).state_snapshot.get("slots") or {}
    assert slots.get("size") is None and slots.get("cheese") is None


@pytest.mark.parametrize(("message", "amount"), [
    ("누나한테오만원보내줘", 50000), ("할아버지께십만원 송금", 100000),
    ("삼촌한테 7만 보내줘", 70000), ("형한테 2만 5천 이체해줘", 25000),
    ("조카에게 3만 보내 줘", 30000),
])
async def test_an_amount_stuck_to_its_recipient_or_said_without_won_is_read(
        transfer: CompiledService, message: str, amount: int) -> None:
    assert (await first(transfer, message))["amount"] == amount


def test_ten_thousands_of_something_else_are_no_money() -> None:
    from engine.nlu import find_money

    for text in ("관중이 5만 명이야", "10만 포인트 있어?", "1억", "엄마한테만원"):
        assert find_money(text) == [], text


@pytest.mark.parametrize(("message", "amount"), [
    ("동생한테 4만원 입금해 줘", 40000), ("민수한테 2만원만 쏴 줄래", 20000),
    ("집주인한테 월세 50만원 입금 부탁해요", 500000)])
async def test_a_deposit_or_slang_for_sending_is_a_transfer(
        transfer: CompiledService, message: str, amount: int) -> None:
    read = await first(transfer, message)
    assert (read["stage"], read["amount"]) == ("READY", amount)  # recipient and amount said
