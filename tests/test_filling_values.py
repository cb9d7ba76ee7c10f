"""While a flow collects its values, a name or an amount in a sentence about something else —
another verb's clause, a condition, a comparison, a quote — is no value the user gave: the
rules leave it (to the model, or offline the question is asked again). An answer said any
usual way is still read."""

from __future__ import annotations

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore

ASK_TARGET, ASK_AMOUNT = "송금 좀 하려고요", "조카한테 보내줘"


async def slots_after(transfer: CompiledService, first: str, message: str) -> dict[str, object]:
    engine = Engine(transfer, store=MemoryStore())
    await engine.reply("s", first)
    done = await engine.reply("s", message)
    assert "error" not in done.trace
    return dict(done.state_snapshot["slots"])


@pytest.mark.parametrize("message", [
    "누나한테 전화 먼저 해볼게",  # another verb's clause
    "아빠한테 혼날 것 같아",
    "삼촌한테 들었는데 수수료 없대",
    "엄마가 '이모한테 보내'라고 했어",  # a quote
    "형이 허락하면 형한테",  # a condition
])
async def test_a_name_in_a_sentence_about_something_else_is_no_recipient(
        transfer: CompiledService, message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize("message", [
    "월급 들어오면 30만원",  # a condition
    "저번보다 2만원 더",  # a comparison
    "동생은 5만원 받았대",  # someone else's sentence
    "사촌이 '10만원이면 된다'고 했어",  # a quote
    "용돈 7만원 받았다",
])
async def test_an_amount_in_a_sentence_about_something_else_is_no_amount(
        transfer: CompiledService, message: str) -> None:
    assert (await slots_after(transfer, ASK_AMOUNT, message))["amount"] is None


@pytest.mark.parametrize(("first", "message", "slot", "value"), [
    (ASK_TARGET, "할머니요", "target", "할머니"),
    (ASK_TARGET, "할머니한테 보내 주세요", "target", "할머니"),
    (ASK_TARGET, "외삼촌한테 송금해줘", "target", "외삼촌"),
    (ASK_AMOUNT, "4만원이요", "amount", 40000),
    (ASK_AMOUNT, "칠만 원 보내줘", "amount", 70000),
    (ASK_AMOUNT, "12만원 이체해 주세요", "amount", 120000),
    (ASK_AMOUNT, "3만원 보내고 싶어요", "amount", 30000),
])
async def test_an_answer_said_any_usual_way_is_read(
        transfer: CompiledService, first: str, message: str, slot: str, value: object) -> None:
    assert (await slots_after(transfer, first, message))[slot] == value


@pytest.mark.parametrize("message", ["모르겠어요", "아무한테나", "쟤한테", "someone", "나요",
                                     "글쎄", "그 사람"])
async def test_a_word_that_names_nobody_is_no_recipient(transfer: CompiledService,
                                                        message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize(("first", "message", "slot"), [
    (ASK_AMOUNT, "6만원은 안 돼요", "amount"),
    (ASK_AMOUNT, "4만원은 보내지 말아줘", "amount"),
    (ASK_TARGET, "삼촌한테는 말고", "target"),
    (ASK_TARGET, "지수 말고", "target"),
    (ASK_TARGET, "이모는 아니에요", "target"),
])
async def test_a_value_said_away_with_nothing_in_its_place_is_none(
        transfer: CompiledService, first: str, message: str, slot: str) -> None:
    assert (await slots_after(transfer, first, message))[slot] is None


@pytest.mark.parametrize("message", ["이모한테서 받은 돈", "삼촌에게서 연락 왔어",
                                     "큰아버지께서 주신 거"])
async def test_someone_money_comes_from_is_no_recipient(transfer: CompiledService,
                                                         message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None
