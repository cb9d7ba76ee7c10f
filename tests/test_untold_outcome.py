"""An outcome is told until its reply is known to have arrived, and a repeat is asked about.

In process, with the shipped transfer flow and its sandbox bank: a turn run as a transport
runs it (``reporting_delivery``) whose DONE is never reported delivered stands for a lost
reply. The next message — whatever it is — begins with the outcome. The end-to-end versions
over real servers and every store are in tests/store/test_lost_reply.py.
"""

from __future__ import annotations

import contextvars
import datetime as dt

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.conversation.outcomes import REPEAT_WINDOW, reporting_delivery
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done
from engine.store import MemoryStore
from tests.conftest import TODAY

TOLD_AGAIN = "다시 알려드려요"
REPEATED = "방금 같은 요청을 처리했어요"


class Clock:
    def __init__(self) -> None:
        self.now = TODAY

    def __call__(self) -> dt.datetime:
        return self.now


async def as_a_transport(engine: Engine, session: str, message: str) -> Done:
    """A turn run the way the HTTP transport runs it; its delivery is never reported."""
    context = contextvars.copy_context()
    context.run(reporting_delivery.set, True)

    async def turn() -> Done:
        return await engine.reply(session, message)

    import asyncio

    return await asyncio.create_task(turn(), context=context)


def engine_for(transfer: CompiledService, clock: Clock | None = None) -> Engine:
    return Engine(transfer, store=MemoryStore(), clock=clock or (lambda: TODAY))


# any next message, of any kind: the outcome comes first
NEXT = ["됐어?", "네", "취소", "아빠한테 1만원 보내줘", "잔액이 얼마야", "ㅇㅇ", "hello",
        "엄마한테 5만원 보내줘"]


@pytest.mark.parametrize("next_message", NEXT)
async def test_an_outcome_whose_reply_may_be_lost_is_told_first_by_any_next_message(
        transfer: CompiledService, next_message: str) -> None:
    engine = engine_for(transfer)
    await engine.reply("s", "엄마한테 5만원 보내줘")
    paid = await as_a_transport(engine, "s", "확인")
    assert paid.state_snapshot["stage"] == "EXECUTED" and paid.delivered is not None
    told = await engine.reply("s", next_message)
    assert told.message.startswith("지난 요청의 결과") and paid.message in told.message
    assert TOLD_AGAIN not in (await engine.reply("s", "고마워")).message


async def test_a_reported_delivery_is_not_told_again(transfer: CompiledService) -> None:
    engine = engine_for(transfer)
    await engine.reply("s", "엄마한테 5만원 보내줘")
    paid = await as_a_transport(engine, "s", "확인")
    assert paid.delivered is not None
    await paid.delivered()
    assert TOLD_AGAIN not in (await engine.reply("s", "됐어?")).message


async def test_turns_that_settle_nothing_keep_nothing_to_tell(
        transfer: CompiledService) -> None:
    engine = engine_for(transfer)
    for message in ("엄마한테 5만원 보내줘", "잠깐, 수수료는?", "취소"):
        assert (await as_a_transport(engine, "s", message)).delivered is None
    assert TOLD_AGAIN not in (await engine.reply("s", "안녕")).message


async def test_in_process_callers_are_told_once(transfer: CompiledService) -> None:
    """``flowctl test`` and ``flowctl chat`` show every DONE: nothing is told twice."""
    engine = engine_for(transfer)
    await engine.reply("s", "엄마한테 5만원 보내줘")
    assert (await engine.reply("s", "확인")).delivered is None
    assert TOLD_AGAIN not in (await engine.reply("s", "됐어?")).message


@pytest.mark.parametrize("again", ["엄마한테 5만원 보내줘", "엄마에게 50000원 이체해줘",
                                   "5만원 엄마한테 한 번 더 보내 줘"])
async def test_the_same_request_right_after_it_ran_is_asked_about(
        transfer: CompiledService, again: str) -> None:
    engine = engine_for(transfer)
    await engine.reply("s", "엄마한테 5만원 보내줘")
    await engine.reply("s", "확인")
    asked = await engine.reply("s", again)
    assert asked.next_action == "CONFIRM" and asked.message.startswith(REPEATED), asked.message
    assert (await engine.reply("s", "확인")).state_snapshot["stage"] == "EXECUTED"


@pytest.mark.parametrize("other", ["엄마한테 3만원 보내줘", "아빠한테 5만원 보내줘"])
async def test_another_request_is_not_a_repeat(transfer: CompiledService, other: str) -> None:
    engine = engine_for(transfer)
    await engine.reply("s", "엄마한테 5만원 보내줘")
    await engine.reply("s", "확인")
    assert REPEATED not in (await engine.reply("s", other)).message


async def test_a_cancelled_or_old_request_is_not_a_repeat(transfer: CompiledService) -> None:
    clock = Clock()
    engine = engine_for(transfer, clock)
    await engine.reply("s", "엄마한테 5만원 보내줘")
    await engine.reply("s", "취소")  # nothing ran
    assert REPEATED not in (await engine.reply("s", "엄마한테 5만원 보내줘")).message
    await engine.reply("s", "확인")
    clock.now = TODAY + REPEAT_WINDOW + dt.timedelta(seconds=1)
    assert REPEATED not in (await engine.reply("s", "엄마한테 5만원 보내줘")).message
