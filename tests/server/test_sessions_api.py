"""A session's end of life over HTTP: DELETE by its owner only, retention, and the actions a
dead process left pending finished when the server starts."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.config import Settings, load_settings
from engine.runtime.engine import Engine
from engine.runtime.values.session import owned_key
from engine.store import MemoryStore
from engine.transports.http.auth import principal_of_key
from tests.conftest import TODAY
from tests.fakes.bank import Bank
from tests.server.conftest import MakeServer
from tests.test_money_safety import DyingStore, bank_flow

KEY_A = "key-a-0123456789abcdef-AAAA"
KEY_B = "key-b-0123456789abcdef-BBBB"
SECRET = "cookie-secret-" + "c" * 32
CHAT = "/v1/agent/chat"


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def bank() -> Iterator[Bank]:
    running = Bank().start()
    yield running
    running.stop()


async def test_only_the_owner_deletes_a_session(make_server: MakeServer) -> None:
    server = make_server(settings=Settings(dev_mode=True, api_keys=(KEY_A, KEY_B),
                                           cookie_secret=SECRET))
    async with server.client(headers=bearer(KEY_A)) as a, \
            server.client(headers=bearer(KEY_B)) as b, server.client() as nobody:
        body = {"session_id": "s", "message": "엄마한테 1만원 보내줘"}
        assert (await a.post(CHAT, json=body)).status_code == 200
        assert (await nobody.delete("/v1/agent/sessions/s")).status_code == 401
        assert (await b.delete("/v1/agent/sessions/s")).status_code == 404
        cross = await a.delete("/v1/agent/sessions/s", headers={"Sec-Fetch-Site": "cross-site"})
        assert cross.status_code == 403
        mine = owned_key("s", principal_of_key(KEY_A))
        assert (await server.store.load(mine)) is not None
        assert (await a.delete("/v1/agent/sessions/s")).status_code == 204
        assert (await server.store.load(mine)) is None
        assert (await a.delete("/v1/agent/sessions/s")).status_code == 404
    assert principal_of_key(KEY_A) != principal_of_key(KEY_B)


async def test_retention_deletes_what_is_older_than_its_days(make_server: MakeServer) -> None:
    store = MemoryStore()
    await store.commit("old", {"stage": "X"}, expected_version=0, completed=[{"outcome": "E"}])
    await asyncio.sleep(0.2)
    server = make_server(store=store, settings=Settings(dev_mode=True, retention_days=1e-6))
    async with server.client() as client:  # the server has started: retention ran once
        assert (await client.get("/healthz")).status_code == 200
    assert await store.load("old") is None and await store.completed("old") == []


async def test_a_bad_retention_setting_is_one_line() -> None:
    from engine.config import SettingsError

    with pytest.raises(SettingsError, match="FLOWCTL_RETENTION_DAYS='soon'"):
        load_settings({"FLOWCTL_RETENTION_DAYS": "soon"})
    assert load_settings({"FLOWCTL_RETENTION_DAYS": "30"}).retention_days == 30.0


async def test_the_server_finishes_pending_actions_when_it_starts(
        make_server: MakeServer, tmp_path: Path, bank: Bank) -> None:
    store = DyingStore()
    service = bank_flow(tmp_path)
    settings = load_settings({"BANK_URL": bank.url, "FLOWCTL_DEV_MODE": "true"})
    before = Engine(service, store=store, settings=settings, clock=lambda: TODAY)
    await before.reply("s", "엄마한테 1만원 보내줘")
    store.die_at = 2  # the process "dies" after the bank call, before the turn's commit
    await before.reply("s", "확인")
    assert await store.pending_sessions() == ["s"] and await store.completed("s") == []

    engine = Engine(service, store=store, settings=settings, clock=lambda: TODAY)
    server = make_server(engine=engine, settings=settings)
    async with server.client() as client:
        done = (await client.get("/v1/agent/completed", params={"session_id": "s"})).json()
    assert [c["outcome"] for c in done["completed"]] == ["EXECUTED"]
    assert await store.pending_sessions() == [] and len(bank.executions) == 1


async def test_the_debug_api_masks_sensitive_slots(make_server: MakeServer, tmp_path: Path,
                                                   bank: Bank) -> None:
    service = bank_flow(tmp_path, sensitive=True)
    settings = load_settings({"BANK_URL": bank.url, "FLOWCTL_DEV_MODE": "true"})
    engine = Engine(service, store=MemoryStore(), settings=settings, clock=lambda: TODAY)
    server = make_server(engine=engine, settings=settings)
    async with server.client() as client:
        body = {"session_id": "s", "message": "김철수123456한테 1만원 보내줘"}
        reply = (await client.post(CHAT, json=body)).json()
        assert reply["interaction"]["state_snapshot"]["slots"]["target"] == "•••3456"
        debug = (await client.get("/v1/agent/debug/s")).text
    assert "김철수123456" not in debug and "•••" in debug
