"""engine/runtime/turn/drive.py: a turn's coroutines emit into a list; drive streams it out."""

from __future__ import annotations

import asyncio

import pytest

from engine.runtime.turn.drive import drive
from engine.runtime.values.events import AgentStart, Event, LlmToken


async def test_a_turn_that_never_waits_sends_its_events_in_order_at_its_end() -> None:
    outbox: list[Event] = []

    async def work() -> None:
        for name in "abc":
            outbox.append(AgentStart(name, name))

    assert [e async for e in drive(work(), outbox)] == [AgentStart(n, n) for n in "abc"]


async def test_what_was_emitted_before_a_wait_reaches_the_reader_before_the_wait_ends() -> None:
    outbox: list[Event] = []
    gate = asyncio.Event()

    async def work() -> None:
        outbox.append(LlmToken("first"))
        await gate.wait()  # the provider's next chunk
        outbox.append(LlmToken("second"))

    events = drive(work(), outbox)
    assert await anext(events) == LlmToken("first")  # the gate is still closed
    gate.set()
    assert [e async for e in events] == [LlmToken("second")]


async def test_the_works_failure_comes_after_the_events_it_emitted_before_it() -> None:
    outbox: list[Event] = []

    async def work() -> None:
        outbox.append(LlmToken("said"))
        await asyncio.sleep(0)
        outbox.append(LlmToken("also said"))
        raise RuntimeError("store down")

    seen: list[Event] = []
    with pytest.raises(RuntimeError, match="store down"):
        async for event in drive(work(), outbox):
            seen.append(event)
    assert seen == [LlmToken("said"), LlmToken("also said")]


async def test_a_cancellation_while_the_work_waits_is_raised_inside_the_work() -> None:
    outbox: list[Event] = []
    cleaned: list[str] = []

    async def work() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cleaned.append("the work saw it")
            raise

    async def read() -> None:
        async for _ in drive(work(), outbox):
            pass

    task = asyncio.create_task(read())
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == ["the work saw it"]


async def test_a_reader_that_stops_early_closes_the_work() -> None:
    outbox: list[Event] = []
    closed: list[bool] = []

    async def work() -> None:
        try:
            outbox.append(LlmToken("a"))
            await asyncio.sleep(30)
        finally:
            closed.append(True)

    events = drive(work(), outbox)
    assert await anext(events) == LlmToken("a")
    await events.aclose()
    assert closed == [True]


async def test_values_and_exceptions_of_awaited_futures_reach_the_work() -> None:
    outbox: list[Event] = []

    async def work() -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        loop.call_soon(done.set_result, 7)
        outbox.append(LlmToken(str(await done)))
        failed = loop.create_future()
        loop.call_soon(failed.set_exception, ValueError("bad chunk"))
        try:
            await failed
        except ValueError as err:
            outbox.append(LlmToken(str(err)))

    assert [e async for e in drive(work(), outbox)] == [LlmToken("7"), LlmToken("bad chunk")]
