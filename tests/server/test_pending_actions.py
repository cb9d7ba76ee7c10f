"""Actions whose outcome is unknown are asked again in the background and shown to the
operator: the reconciler, ``GET /v1/admin/pending`` and the ``flowctl_actions_pending`` gauge.

The bank is the counting loopback bank (tests/fakes/bank.py) answering 503 — it may or may
not have acted — until it is told to answer again.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import SqliteStore
from engine.transports.http import create_app
from engine.transports.http.pending import Reconciler, pending_actions
from tests.conftest import TODAY
from tests.fakes.bank import Bank
from tests.server.conftest import ServerThread
from tests.test_money_safety import bank_flow

ADMIN_KEY = "operator-key-0123456789abcdef-0123456789"


def engine_for(tmp_path: Path, bank: Bank, **env: str) -> Engine:
    settings = load_settings({"BANK_URL": bank.url, **env})
    return Engine(bank_flow(tmp_path), store=SqliteStore(tmp_path / "s.db"), clock=lambda: TODAY,
                  settings=settings)


async def leave_pending(engine: Engine, bank: Bank, session: str) -> None:
    await engine.reply(session, "엄마한테 1만원 보내줘")
    bank.status = 503
    done = await engine.reply(session, "확인")
    assert done.state_snapshot["stage"] == "CONFIRMED"


async def test_the_reconciler_settles_a_pending_action_and_the_next_turn_tells_it(
        tmp_path: Path, bank: Bank) -> None:
    engine = engine_for(tmp_path, bank)
    await leave_pending(engine, bank, "s")
    reconciler = Reconciler(engine)
    assert not await reconciler.once() and reconciler.count == 1  # still 503: still unknown
    assert await engine.store.completed("s") == []
    bank.status = 200
    assert await reconciler.once() and reconciler.count == 0
    assert [c["outcome"] for c in await engine.store.completed("s")] == ["EXECUTED"]
    assert len(bank.executions) == 1 and len({k for k, _ in bank.requests}) == 1
    told = await engine.reply("s", "안녕하세요")
    assert "이체가 완료됐어요" in told.message
    assert "확인하지 못했어요" not in told.message  # the unsettled rounds left no notice


async def test_nothing_pending_is_a_quiet_round(tmp_path: Path, bank: Bank) -> None:
    reconciler = Reconciler(engine_for(tmp_path, bank))
    assert await reconciler.once() and reconciler.count == 0
    assert bank.requests == []


async def test_the_operator_lists_pending_actions_with_the_operator_key(
        tmp_path: Path, bank: Bank) -> None:
    engine = engine_for(tmp_path, bank, FLOWCTL_ADMIN_KEY=ADMIN_KEY)
    await leave_pending(engine, bank, "s1")
    assert [(p["session_id"], p["action"], p["stage"]) for p in await pending_actions(engine)] \
        == [("s1", "send_money", "CONFIRMED")]
    thread = ServerThread(create_app(engine, settings=engine.settings)).start()
    try:
        async with httpx.AsyncClient(base_url=thread.url, timeout=20) as client:
            for headers in ({}, {"Authorization": "Bearer nope"},
                            {"Authorization": f"Bearer {ADMIN_KEY}x"}):
                response = await client.get("/v1/admin/pending", headers=headers)
                assert response.status_code == 401, headers
                assert "s1" not in response.text
            response = await client.get("/v1/admin/pending",
                                        headers={"Authorization": f"Bearer {ADMIN_KEY}"})
            assert response.status_code == 200
            listed = response.json()["pending"]
            assert [(p["session_id"], p["flow"], p["action"]) for p in listed] == [
                ("s1", "transfer", "send_money")]
            assert listed[0]["idempotency_key"].endswith(":send_money")
            metrics = (await client.get("/metrics")).text
            assert 'flowctl_actions_pending{service="transfer"}' in metrics
    finally:
        thread.stop()


async def test_without_an_operator_key_there_is_no_admin_route(
        tmp_path: Path, bank: Bank) -> None:
    engine = engine_for(tmp_path, bank)
    thread = ServerThread(create_app(engine, settings=engine.settings)).start()
    try:
        async with httpx.AsyncClient(base_url=thread.url, timeout=20) as client:
            assert (await client.get("/v1/admin/pending")).status_code == 404
    finally:
        thread.stop()


def test_a_short_operator_key_is_refused() -> None:
    from engine.config import SettingsError

    with pytest.raises(SettingsError, match="FLOWCTL_ADMIN_KEY"):
        load_settings({"FLOWCTL_ADMIN_KEY": "short"})
