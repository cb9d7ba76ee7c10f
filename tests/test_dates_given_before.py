"""A date said of money given before is when it was given, not when to send this transfer:
"지난주에 보낸 5만원 한 번 더 보내줘" has no date, while "모레 보내줘" has one. Before, the
past date became the transfer's date (yesterday's, in the past).

Every sentence here is new: none is in an eval set or a flow's tests."""

from __future__ import annotations

import datetime as dt

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore

TODAY = dt.datetime(2026, 11, 29, 10, 0).astimezone()


async def first(transfer: CompiledService, message: str) -> dict[str, object]:
    engine = Engine(transfer, store=MemoryStore(), clock=lambda: TODAY)
    done = await engine.reply("d", message)
    return dict(done.state_snapshot.get("slots") or {})


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("동생한테 지난주에 보낸 5만원 한 번 더 보내줘", "동생", 50000),
    ("그저께 못 부친 돈 아빠한테 2만원 보내줘", "아빠", 20000),
    ("pay Jisu 40k, same as last friday", "Jisu", 40000),
    ("send grandma 25k again, the 25k I sent her yesterday didn't arrive", "grandma", 25000),
])
async def test_a_date_money_was_given_on_is_not_the_transfers_date(
        transfer: CompiledService, message: str, target: str, amount: int) -> None:
    slots = await first(transfer, message)
    assert (slots["target"], slots["amount"], slots.get("when")) == (target, amount, None)


@pytest.mark.parametrize(("message", "days"), [
    ("모레 삼촌한테 3만원 보내줘", 2), ("send dad 20k the day after tomorrow", 2),
    ("어제 못 보낸 거 내일 이모한테 4만원 보내줘", 1),  # the date to send, after the one given
    ("내일 준비물 살 돈 3만원 동생한테 보내줘", 1),  # 준비물: no 준 (given)
])
async def test_a_date_to_send_on_is_still_the_transfers_date(
        transfer: CompiledService, message: str, days: int) -> None:
    slots = await first(transfer, message)
    assert slots["when"] == (TODAY.date() + dt.timedelta(days=days)).isoformat()


@pytest.mark.parametrize("message", ["그저께 외삼촌한테 보낸 만큼 또 보내줘",
                                     "엊그저께 외삼촌한테 못 보낸 거 보내줘"])
async def test_the_day_before_yesterday_is_no_one_before_its_ke(transfer: CompiledService,
                                                              message: str) -> None:
    """"그저께" ends in 께 as "할머니께" does: no recipient "그저", and one task, not two."""
    engine = Engine(transfer, store=MemoryStore(), clock=lambda: TODAY)
    done = await engine.reply("k", message)
    slots = done.state_snapshot.get("slots") or {}
    assert (slots.get("target"), slots.get("when")) == ("외삼촌", None)
    assert not done.state_snapshot.get("task_queue")


@pytest.mark.parametrize(("message", "when"), [  # docs/understanding.md's examples
    ("동생한테 지난주에 보낸 5만원 한 번 더 보내줘", None),
    ("엄마한테 어제 못 보낸 거 내일 보내줘", "2026-11-30"),
    ("send mom the 30k I sent mom yesterday", None),
])
async def test_the_documented_dates_given_before(transfer: CompiledService, message: str,
                                                 when: str | None) -> None:
    assert (await first(transfer, message)).get("when") == when
