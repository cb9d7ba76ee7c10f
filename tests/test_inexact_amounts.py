"""An amount to move must be exact: said roughly, as a bound or inside a sum it is no amount
(the model reads it, or offline the amount is asked again), while an exact amount said any
usual way is read, a budget (``extract.exact: false``) takes its bound, and a range is never
two tasks."""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT

ASK_AMOUNT = "이모한테 송금할래"


async def after(service: CompiledService, first: str, message: str) -> dict[str, object]:
    engine = Engine(service, store=MemoryStore())
    await engine.reply("s", first)
    done = await engine.reply("s", message)
    assert "error" not in done.trace
    return dict(done.state_snapshot)


@pytest.mark.parametrize("message", [
    "3만원 남짓", "대략 6만원", "4만원 가량", "거의 9만원", "한 2만원",  # roughly
    "적어도 2만원은", "많아야 10만원", "5만원 미만으로", "7만원 넘게", "2만원 이내로",  # bounds
    "8만원까지", "최대 15만원", "at least 20000", "up to 50000 won", "40000 or so",
])
async def test_an_amount_said_roughly_or_as_a_bound_is_no_amount_to_send(
        transfer: CompiledService, message: str) -> None:
    snapshot = await after(transfer, ASK_AMOUNT, message)
    assert snapshot["slots"]["amount"] is None
    assert snapshot["stage"] == "FILLING"


@pytest.mark.parametrize("message", [
    "3만원 곱하기 2", "5만원 빼기 3천원", "6만원을 둘이 나눠서", "만원짜리 다섯 장",
    "1만원 + 1만원", "2만원씩 세 번", "15000 plus 5000",
    "오만원권 세 장", "천원권 여덟 장이요", "5만원권 2장으로",  # notes counted: "권" as "짜리"
    "만원짜리 세 장", "오만원권 두 장",  # docs/dsl.md, extract.exact
])
async def test_an_amount_inside_a_sum_is_no_amount_to_send(transfer: CompiledService,
                                                          message: str) -> None:
    assert (await after(transfer, ASK_AMOUNT, message))["slots"]["amount"] is None


@pytest.mark.parametrize(("message", "amount"), [
    ("5만원만 보내줘", 50000), ("6만 원이요", 60000), ("25000원", 25000),
    ("18만원 보내 주세요", 180000), ("칠천원", 7000),
    ("4만 오천이요", 45000), ("2만 칠천", 27000),  # digits and Hangul words in one amount
])
async def test_an_exact_amount_is_still_read(transfer: CompiledService, message: str,
                                             amount: int) -> None:
    assert (await after(transfer, ASK_AMOUNT, message))["slots"]["amount"] == amount


async def test_a_first_message_keeps_its_recipient_and_asks_a_rough_amount(
        transfer: CompiledService) -> None:
    done = await Engine(transfer, store=MemoryStore()).reply("s", "삼촌한테 5만원쯤 보내줘")
    assert done.state_snapshot["slots"]["target"] == "삼촌"
    assert done.state_snapshot["slots"]["amount"] is None


@pytest.mark.parametrize("message", ["2만원에서 3만원 사이", "만원에서 2만원 사이로"])
async def test_a_range_is_no_batch_of_two_transfers(transfer: CompiledService,
                                                    message: str) -> None:
    snapshot = await after(transfer, ASK_AMOUNT, message)
    assert snapshot["slots"]["amount"] is None and not snapshot.get("task_queue")


@pytest.mark.parametrize(("message", "said"), [("30만원 이하", "30만원"),
                                               ("5만원 정도요", "5만원")])
async def test_a_budget_takes_its_bound(message: str, said: str) -> None:
    commerce = compile_file(ROOT / "flows" / "commerce.yaml")
    context = {"is_logged_in": True, "user_id": "u-1", "user_type": "consumer"}
    engine = Engine(commerce, store=MemoryStore())
    await engine.reply("s", "키보드 추천해 주세요", context=context)
    done = await engine.reply("s", message, context=context)
    assert done.state_snapshot["stage"] == "ANSWER" and f"예산 {said}" in done.message


@pytest.mark.parametrize("message", ["4만원 더한 거", "인당 8천원", "5천원의 세 배",
                                     "10만원 절반", "3만원 조금 덜", "5만원 안 되게",
                                     "잔액이 50만원 넘으면 20만원"])
async def test_more_sums_bounds_and_conditions_are_no_amount_and_no_batch(
        transfer: CompiledService, message: str) -> None:
    snapshot = await after(transfer, ASK_AMOUNT, message)
    assert snapshot["slots"]["amount"] is None and not snapshot.get("task_queue")


@pytest.mark.parametrize(("message", "amount"), [
    ("250", None), ("500", None), ("999", None),  # 500원? 500만원? asked, never taken
    ("1000", 1000), ("7500", 7500), ("천원", 1000), ("300원", 300),  # a unit says it
])
async def test_digits_alone_under_a_thousand_won_are_no_amount(
        transfer: CompiledService, message: str, amount: int | None) -> None:
    snapshot = await after(transfer, ASK_AMOUNT, message)
    assert snapshot["slots"]["amount"] == amount
