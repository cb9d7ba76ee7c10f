"""A paid transfer is always reported, also when its reply never reached the user.

A real server on loopback over each store (memory, SQLite, PostgreSQL), the counting bank
answering slower than the client waits: the client gives up on "확인", the bank executes,
the turn commits with nobody listening. Whatever the user sends next is answered with the
outcome first; a reply that did arrive is never told twice; and asking for the same transfer
again right after is asked about, never run without a new yes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store.base import SessionStore
from engine.transports.http import create_app
from tests.conftest import TODAY
from tests.fakes.bank import Bank
from tests.server.conftest import ServerThread
from tests.test_money_safety import bank_flow

TOLD_AGAIN = "다시 알려드려요"
PAID = "엄마에게 5만원 이체가 완료됐어요"
REPEATED = "방금 같은 요청을 처리했어요"


@pytest.fixture
async def url(store: SessionStore, bank: Bank, tmp_path: Path) -> AsyncIterator[str]:
    settings = load_settings({"BANK_URL": bank.url, "FLOWCTL_DEV_MODE": "1"})
    engine = Engine(bank_flow(tmp_path), store=store, settings=settings, clock=lambda: TODAY)
    thread = ServerThread(create_app(engine, settings=settings)).start()
    yield thread.url
    thread.stop()


async def say(url: str, session: str, message: str, *, timeout: float = 20) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=timeout) as client:
        response = await client.post("/v1/agent/chat",
                                     json={"session_id": session, "message": message})
        assert response.status_code == 200, response.text
        return str(response.json()["interaction"]["message"])


async def lose_the_reply(url: str, bank: Bank, how: str) -> None:
    """"확인" to a READY transfer, the client gone before the bank answers."""
    bank.delay = 1.0
    async with httpx.AsyncClient(base_url=url, timeout=0.3) as client:
        with pytest.raises(httpx.TimeoutException):
            body = {"session_id": "s", "message": "확인"}
            if how == "json":
                await client.post("/v1/agent/chat", json=body)
            else:
                async with client.stream("POST", "/v1/agent/chat/stream", json=body) as r:
                    async for _ in r.aiter_lines():
                        pass
    for _ in range(100):  # the turn goes on without the client: the bank executes, it commits
        if bank.executions:
            break
        await asyncio.sleep(0.05)
    bank.delay = 0.0
    await asyncio.sleep(0.8)  # the bank's answer, then the commit


@pytest.mark.parametrize(("how", "next_message"), [("json", "어떻게 됐어?"), ("sse", "확인")])
async def test_a_paid_transfer_whose_reply_was_lost_is_told_by_the_next_turn(
        url: str, bank: Bank, how: str, next_message: str) -> None:
    await say(url, "s", "엄마한테 5만원 보내줘")
    await lose_the_reply(url, bank, how)
    told = await say(url, "s", next_message)
    assert TOLD_AGAIN in told and PAID in told, told
    assert len(bank.executions) == 1
    assert TOLD_AGAIN not in await say(url, "s", "고마워")  # told once


async def test_a_reply_that_arrived_is_not_told_again(url: str, bank: Bank) -> None:
    await say(url, "s", "엄마한테 5만원 보내줘")
    assert PAID in await say(url, "s", "확인")
    assert TOLD_AGAIN not in await say(url, "s", "안녕하세요")
    await say(url, "t", "아빠한테 3만원 보내줘")
    async with httpx.AsyncClient(base_url=url, timeout=20) as client:
        async with client.stream("POST", "/v1/agent/chat/stream",
                                 json={"session_id": "t", "message": "확인"}) as response:
            lines = [line async for line in response.aiter_lines()]
    done = json.loads(next(line for line in reversed(lines) if line.startswith("data:"))[5:])
    assert "이체가 완료됐어요" in done["message"]
    assert TOLD_AGAIN not in await say(url, "t", "안녕하세요")


async def test_the_same_transfer_again_right_after_is_asked_about(url: str, bank: Bank) -> None:
    await say(url, "s", "엄마한테 5만원 보내줘")
    await lose_the_reply(url, bank, "json")
    reply = await say(url, "s", "엄마에게 50000원 이체해줘")
    assert REPEATED in reply and TOLD_AGAIN in reply
    assert len(bank.executions) == 1  # asked, not run
    assert REPEATED not in await say(url, "s", "아빠한테 5만원 보내줘")  # another request
