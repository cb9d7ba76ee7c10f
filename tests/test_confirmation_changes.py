"""At a confirmation, a new value changes the task only when the message is about that
change: a sentence about something else that happens to hold a name or an amount ("I'll
ask mom first", "add 5,000 more", "send the same to dad too") leaves the values as they were
(the rules are not sure: a model, if configured, reads it; offline the question is asked
again), while a correction said any usual way is applied and asked about again."""

from __future__ import annotations

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore

START = "동생한테 8만원 보내줘"  # READY: 동생, 80,000 won
AS_ASKED = {"target": "동생", "amount": 80000}


async def at_ready(transfer: CompiledService, message: str) -> dict[str, object]:
    engine = Engine(transfer, store=MemoryStore())
    assert (await engine.reply("s", START)).state_snapshot["stage"] == "READY"
    done = await engine.reply("s", message)
    assert done.state_snapshot["stage"] == "READY" and "error" not in done.trace
    slots = done.state_snapshot["slots"]
    return {k: slots[k] for k in AS_ASKED}


@pytest.mark.parametrize("message", [
    "아빠한테 전화해 보고 다시 말할게요",  # another doing, a name in it
    "삼촌한테 먼저 여쭤볼게",
    "누나한테도 똑같이 보내줘",  # also: another transfer, not this one changed
    "고모한테도 5만원",
    "친구가 2만원이면 된다던데",  # reported
    "엄마가 만원만 보내라고 하던데요",
])
async def test_a_value_in_a_sentence_about_something_else_changes_nothing(
        transfer: CompiledService, message: str) -> None:
    assert await at_ready(transfer, message) == AS_ASKED


@pytest.mark.parametrize(("message", "amount"), [
    ("네 3천원 더 얹어서 보내줘", 83000),  # by an amount: the one asked about plus it
    ("만원 더 붙여줘", 90000),
    ("5천원 덜 보내주세요", 75000),
    ("2만원 깎아줘", 60000),
    ("금액 천원 올려줘", 81000),  # by 천원 (not to 천원: "7만으로 올려줘" is to 7만)
    ("make it 5k more", 85000),
])
async def test_an_amount_changed_by_so_much_is_the_one_asked_about_changed(
        transfer: CompiledService, message: str, amount: int) -> None:
    """Asked again with the new amount: nothing moves until the user's yes to it."""
    assert await at_ready(transfer, message) == {**AS_ASKED, "amount": amount}


@pytest.mark.parametrize("message", ["9만원 줄여줘", "8만원 빼줘", "5천원 더 보낼까?",
                                     "5천원 더 보내지 마",
                                     "이거 보내고 엄마한테 5만원 더 보내줘",  # another task
                                     "누나한테 만원 더 보내줘"])
async def test_a_change_by_an_amount_that_leaves_nothing_or_is_asked_changes_nothing(
        transfer: CompiledService, message: str) -> None:
    assert await at_ready(transfer, message) == AS_ASKED


@pytest.mark.parametrize(("message", "changed"), [
    ("아빠한테로 해줘", {"target": "아빠"}),
    ("받는 분 아빠한테로 변경해 주세요", {"target": "아빠"}),
    ("금액을 3만원으로 수정해줘", {"amount": 30000}),
    ("8만원 말고 6만원", {"amount": 60000}),
    ("육만원 아니고 육천원", {"amount": 6000}),
    ("아니 삼촌한테 2만원", {"target": "삼촌", "amount": 20000}),
    ("4만원만 보낼게요", {"amount": 40000}),
    ("그냥 아빠한테 보낼래", {"target": "아빠"}),
    ("make it 15000 won", {"amount": 15000}),
])
async def test_a_correction_said_any_usual_way_is_applied(
        transfer: CompiledService, message: str, changed: dict[str, object]) -> None:
    assert await at_ready(transfer, message) == {**AS_ASKED, **changed}
