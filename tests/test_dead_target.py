"""A target that is not running never traps a conversation.

A connection refused before any byte was sent proves nothing happened there: the action has
failed, definitely — the user is told, the task ends, and the next message is answered as
usual (a retry is a new task). Only when an earlier attempt may have reached the target does
the outcome stay unknown. The bank is the counting loopback bank of tests/fakes/bank.py; the
dead target is a loopback port nobody listens on.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import TODAY
from tests.fakes.bank import Bank
from tests.test_money_safety import bank_flow

PENDING = "요청하신 작업의 결과를 아직 확인하지 못했어요"


def closed_port() -> int:
    """A loopback port with nobody listening (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def engine_at(tmp_path: Path, url: str) -> Engine:
    return Engine(bank_flow(tmp_path), store=MemoryStore(), clock=lambda: TODAY,
                  settings=load_settings({"BANK_URL": url}))


@pytest.mark.parametrize("later", ["여보세요?", "취소", "안녕", "엄마한테 2만원 보내줘"])
async def test_a_refused_connection_is_a_told_failure_and_the_conversation_goes_on(
        tmp_path: Path, later: str) -> None:
    engine = engine_at(tmp_path, f"http://127.0.0.1:{closed_port()}")
    await engine.reply("s", "엄마한테 1만원 보내줘")
    done = await engine.reply("s", "확인")
    assert done.state_snapshot["stage"] == "FAILED"
    assert "실패" in done.message and PENDING not in done.message
    assert [c["outcome"] for c in await engine.store.completed("s")] == ["FAILED"]
    after = await engine.reply("s", later)
    assert PENDING not in after.message
    assert after.state_snapshot["stage"] != "CONFIRMED"


async def test_a_retry_after_the_target_comes_back_is_a_new_task_that_runs_once(
        tmp_path: Path, bank: Bank) -> None:
    engine = engine_at(tmp_path, f"http://127.0.0.1:{closed_port()}")
    await engine.reply("s", "엄마한테 1만원 보내줘")
    assert (await engine.reply("s", "확인")).state_snapshot["stage"] == "FAILED"
    engine.settings.env["BANK_URL"] = bank.url  # type: ignore[index]
    await engine.reply("s", "엄마한테 1만원 보내줘")
    assert (await engine.reply("s", "확인")).state_snapshot["stage"] == "EXECUTED"
    assert len(bank.executions) == 1


async def test_refused_after_an_attempt_that_may_have_arrived_stays_unknown(
        tmp_path: Path, bank: Bank) -> None:
    """5xx on every attempt (the bank may have acted), then the bank is gone: a refused
    connection now proves nothing, so the task stays pending, never FAILED — a FAILED task
    would invite a second transfer under a new key."""
    engine = engine_at(tmp_path, bank.url)
    await engine.reply("s", "엄마한테 1만원 보내줘")
    bank.status = 503
    assert (await engine.reply("s", "확인")).state_snapshot["stage"] == "CONFIRMED"
    engine.settings.env["BANK_URL"] = f"http://127.0.0.1:{closed_port()}"  # type: ignore[index]
    done = await engine.reply("s", "됐어?")
    assert done.state_snapshot["stage"] == "CONFIRMED" and PENDING in done.message
    assert await engine.store.completed("s") == []
    engine.settings.env["BANK_URL"] = bank.url  # type: ignore[index]
    bank.status = 200
    done = await engine.reply("s", "됐어?")
    assert done.state_snapshot["stage"] == "EXECUTED" and len(bank.executions) == 1


@pytest.mark.parametrize("cancel", ["취소", "취소해 주세요", "cancel"])
async def test_a_cancel_while_the_outcome_is_unknown_is_told_why_it_cannot_be(
        tmp_path: Path, bank: Bank, cancel: str) -> None:
    """The request may have reached the bank: it cannot be taken back, and the user hears so
    (the task goes on waiting for the bank's answer; nothing is marked cancelled)."""
    engine = engine_at(tmp_path, bank.url)
    await engine.reply("s", "엄마한테 1만원 보내줘")
    bank.status = 503
    await engine.reply("s", "확인")
    done = await engine.reply("s", cancel)
    assert "취소할 수는 없어요" in done.message and PENDING in done.message
    assert done.state_snapshot["stage"] == "CONFIRMED"
    bank.status = 200
    done = await engine.reply("s", "됐어?")
    assert done.state_snapshot["stage"] == "EXECUTED" and len(bank.executions) == 1
