"""What a message turns down, passes on or only weighs is no request: a keyword set aside
for another ("X 말고 Y", "X 대신", "not X"), a request in someone else's mouth ("하래",
"하라던데"), a choice not made ("할지 모르겠어"), an amount naming a band of prices
("10만원대"). And a value a step set from an action's result is no reading of the message.

Every sentence here is new: none is in an eval set or a flow's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from engine.testing.evaluate import run_eval

FLOWS = Path(__file__).resolve().parents[1] / "flows"
SHOPPER = {"is_logged_in": True, "user_type": "consumer", "user_id": "u-77"}


async def first(flow: str, message: str) -> tuple[dict[str, Any], str | None, str | None]:
    """(the reading, the flow, the stage) of ``message`` as a conversation's first."""
    engine = Engine(compile_file(FLOWS / flow), store=MemoryStore(), settings=load_settings({}))
    try:
        context = SHOPPER if flow == "commerce.yaml" else None
        done = await engine.reply("s", message, context=context)
    finally:
        await engine.aclose()
    reading = done.trace.get("reading") or {}
    return dict(reading), done.state_snapshot.get("flow"), done.state_snapshot.get("stage")


@pytest.mark.parametrize(("flow", "message", "intent"), [
    ("transfer.yaml", "송금 말고 남은 돈이 얼마인지 보여줘", "balance"),
    ("transfer.yaml", "잔액 아니고 이체 내역 좀", "history"),
    ("commerce.yaml", "환불이 아니라 교환이요", "exchange"),
    ("commerce.yaml", "교환 대신 반품 처리해 주세요", "refund_request"),
    ("commerce.yaml", "rather than a refund, I'd like an exchange", "exchange"),
    ("commerce.yaml", "I don't need a refund, swap it please", "exchange"),
    ("commerce.yaml", "반품은 원하지 않고 교환 원해요", "exchange"),
])
async def test_a_keyword_set_aside_for_another_names_the_other(flow: str, message: str,
                                                                intent: str) -> None:
    reading, _, _ = await first(flow, message)
    assert reading["intent"] == intent


async def reply_to_first(message: str) -> tuple[dict[str, Any], str, str]:
    """(the reading, the stage, the reply) of ``message`` as a transfer's first."""
    engine = Engine(compile_file(FLOWS / "transfer.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    try:
        done = await engine.reply("t", message)
    finally:
        await engine.aclose()
    return dict(done.trace.get("reading") or {}), str(done.state_snapshot.get("stage")), \
        done.message


@pytest.mark.parametrize(("message", "instead"), [
    ("아빠한테 2만원 보내지 말고 엄마한테 보내", "엄마"),
    ("엄마한테 만원 보내지 말고 아빠한테 보내줘", "아빠"),
    ("동생한테 3만원 이체하지 말고 형한테 이체해", "형"),
    ("이모한테 5만원 송금하지 말고 고모한테 송금해줘", "고모"),
])
async def test_a_recipient_turned_down_with_an_amount_is_no_task_of_its_own(
        message: str, instead: str) -> None:
    # one transfer, not a batch of two, to the one said instead, never the one turned
    # down; the amount said with the one turned down is asked again
    reading, stage, reply = await reply_to_first(message)
    assert reading["intent"] == "transfer" and reading["slots"] == {"target": instead}
    assert stage == "FILLING" and "(1/2)" not in reply


@pytest.mark.parametrize(("flow", "message"), [
    ("transfer.yaml", "누나가 동생한테 3만원 보내래"),
    ("transfer.yaml", "사장님이 거래처에 50만원 보내라던데요"),
    ("commerce.yaml", "남편이 결제 취소하라던데요"),
    ("commerce.yaml", "언니가 반품하래서요"),
])
async def test_a_request_in_someone_elses_mouth_gives_no_values(flow: str, message: str) -> None:
    reading, _, stage = await first(flow, message)
    assert reading["slots"] == {} and stage != "READY"


@pytest.mark.parametrize(("flow", "message", "slots"), [
    ("transfer.yaml", "동생한테 3만원 보낼래", {"target": "동생", "amount": 30000}),
    ("commerce.yaml", "반품할래요", {"kind": "refund"}),
])
async def test_ones_own_wish_still_gives_them(flow: str, message: str,
                                              slots: dict[str, Any]) -> None:
    reading, _, _ = await first(flow, message)
    assert reading["slots"] == slots


@pytest.mark.parametrize(("flow", "message"), [
    ("transfer.yaml", "지수한테 2만원 보내야 할지 모르겠네"),
    ("commerce.yaml", "반품할지 교환할지 고민돼요"),
    ("commerce.yaml", "취소하는 게 맞는지 모르겠어요"),
])
async def test_a_choice_not_made_gives_no_values(flow: str, message: str) -> None:
    reading, _, _ = await first(flow, message)
    assert reading["slots"] == {}


@pytest.mark.parametrize(("flow", "message", "slot"), [
    ("commerce.yaml", "5만원대 이어폰 추천해 주세요", "budget"),
    ("commerce.yaml", "20만원대로 쓸 만한 모니터 골라줘", "budget"),
    ("transfer.yaml", "엄마한테 3만원대로 보내줘", "amount"),
])
async def test_an_amount_naming_a_band_is_no_amount(flow: str, message: str, slot: str) -> None:
    reading, _, _ = await first(flow, message)
    assert slot not in reading["slots"]


async def test_values_an_action_set_are_no_reading_of_the_message(tmp_path: Path) -> None:
    evals = tmp_path / "after_sales.eval.yaml"
    evals.write_text(f"""
flow: {FLOWS / "commerce.yaml"}
context: {{is_logged_in: true, user_type: consumer, user_id: u-9}}
stubs:
  get_order: {{result: {{order_id: ORD-70707, status: DELIVERED, amount: 52000}}}}
cases:
  - message: "ORD-70707 반품 신청합니다"
    expect: {{intent: refund_request, slots: {{order_id: ORD-70707, kind: refund}}}}
""", encoding="utf-8")
    report = await run_eval(evals)
    (result,) = report.results
    assert result.reading["slots"] == {"order_id": "ORD-70707", "kind": "refund"}
    assert result.right


@pytest.mark.parametrize(("flow", "message", "intent", "slots"), [
    ("transfer.yaml", "이체 말고 잔액 알려줘", "balance", {}),
    ("commerce.yaml", "반품 말고 교환으로 할게요", "exchange", {"kind": "exchange"}),
    ("commerce.yaml", "I don't want a refund, just exchange it", "exchange",
     {"kind": "exchange"}),
    ("transfer.yaml", "형이 보내래", "transfer", {}),
    ("commerce.yaml", "사장님이 결제 취소하라던데요", "cancel_order", {}),
    ("transfer.yaml", "엄마한테 보내는 게 나을지 모르겠어", "transfer", {}),
    ("commerce.yaml", "반품할지 고민돼요", "refund_request", {}),
    ("commerce.yaml", "10만원대 키보드 추천해줘", "get_recommendation", {"category": "keyboard"}),
])
async def test_the_examples_docs_understanding_gives(flow: str, message: str, intent: str,
                                                     slots: dict[str, Any]) -> None:
    reading, _, _ = await first(flow, message)
    assert (reading["intent"], reading["slots"]) == (intent, slots)


@pytest.mark.parametrize(("message", "slots"), [
    ("이모한테 7만원 말고 고모한테 4만원 보내줘", {"target": "고모", "amount": 40000}),
    ("삼촌한테 2만원 아니고 숙모한테 3만원 이체해줘", {"target": "숙모", "amount": 30000}),
    # only what the next part says again is replaced: the recipient stays
    ("할머니한테 5만원 말고 6만원 보내드려", {"target": "할머니", "amount": 60000}),
])
async def test_a_recipient_and_amount_turned_down_together_are_no_task(
        message: str, slots: dict[str, Any]) -> None:
    reading, _, stage = await first("transfer.yaml", message)
    assert reading["slots"] == slots and stage == "READY"


async def at_confirmation(first_message: str, message: str) -> tuple[dict[str, Any], str]:
    """(the reading, the stage) of ``message`` answering the transfer's confirmation."""
    engine = Engine(compile_file(FLOWS / "transfer.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    try:
        await engine.reply("c", first_message)
        done = await engine.reply("c", message)
    finally:
        await engine.aclose()
    return dict(done.trace.get("reading") or {}), str(done.state_snapshot.get("stage"))


@pytest.mark.parametrize(("message", "slots"), [
    ("이모 말고 고모께 빨리 보내드려요", {"target": "고모"}),
    ("이모 아니고 큰삼촌한테로 이체해", {"target": "큰삼촌"}),
    ("이모 말고 고모", {"target": "고모"}),
    # no one put in its place: an amount, or a recipient turned down too
    ("이모 말고 4만원", {}),
    ("이모 말고 고모한테 보내지 마", {}),
])
async def test_a_recipient_put_in_place_at_the_confirmation_is_the_name_alone(
        message: str, slots: dict[str, Any]) -> None:
    reading, stage = await at_confirmation("이모께 6만원 보내줘", message)
    assert reading["slots"] == slots and reading["decision"] is None and stage == "READY"
