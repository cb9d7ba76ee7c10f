"""Turns of one session never interleave (also across two server processes on one SQLite
file); turns of different sessions run at the same time; sessions survive a restart."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

from engine.runtime.engine import Engine
from engine.runtime.values.events import Event
from engine.store import SqliteStore
from engine.transports.http import DEFAULT_STORE
from tests.server.conftest import (
    ALL_DONE,
    BATCH,
    MakeServer,
    ServerProcess,
    chat,
    sse,
)


class RecordingEngine(Engine):
    """Notes the order in which messages reach the engine (= the session lock)."""

    arrivals: list[str]

    def turn(self, session_id: str, message: str, *, owner: str | None = None,
             stream: str | None = None) -> AsyncIterator[Event]:
        self.__dict__.setdefault("arrivals", []).append(message)
        return super().turn(session_id, message, owner=owner, stream=stream)


async def send(client: httpx.AsyncClient, i: int, session_id: str, message: str) -> dict[str, Any]:
    """Even i: POST /v1/agent/chat; odd i: the GET stream. The DONE payload either way."""
    if i % 2 == 0:
        return await chat(client, session_id, message)
    events = await sse(client, "GET", "/v1/agent/chat/stream",
                       params={"session_id": session_id, "message": message})
    return events[-1][1]


def user_messages(debug: dict[str, Any]) -> list[str]:
    return [m["content"] for m in debug["memory"]["raw_history"] if m["role"] == "user"]


async def test_fifty_concurrent_messages_to_one_session_keep_arrival_order(
        make_server: MakeServer) -> None:
    server = make_server(engine_class=RecordingEngine)
    messages = [f"메시지 {i}" for i in range(50)]
    async with server.client() as client:
        dones = await asyncio.gather(*(send(client, i, "busy", m) for i, m in enumerate(messages)))
        debug = (await client.get("/v1/agent/debug/busy")).json()
    assert all("error" not in done["_trace"] for done in dones)
    assert (debug["version"], debug["state"]["turns"]) == (50, 50)
    assert sorted(user_messages(debug)) == sorted(messages)  # none lost, none twice
    assert user_messages(debug) == server.engine.arrivals  # in the order they arrived


class Overlap(SqliteStore):
    """Counts the commits in flight at once; a commit waits (up to ``wait`` seconds) until
    ``meet`` commits are in flight together, so overlap is seen however slow the machine."""

    def __init__(self, path: Path, meet: int, wait: float = 30.0) -> None:
        super().__init__(path)
        self.meet, self.wait, self.in_flight, self.most = meet, wait, 0, 0
        self.met = asyncio.Event()

    async def commit(self, *args: Any, **kw: Any) -> int:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        if self.in_flight >= self.meet:
            self.met.set()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.met.wait(), timeout=self.wait)
            return await super().commit(*args, **kw)
        finally:
            self.in_flight -= 1


async def test_different_sessions_run_concurrently(make_server: MakeServer,
                                                   tmp_path: Path) -> None:
    server = make_server(store=Overlap(tmp_path / "s.db", meet=10))
    async with server.client() as client:
        await asyncio.gather(*(chat(client, f"s{i}", "안녕") for i in range(10)))
    assert server.store.most == 10  # type: ignore[attr-defined]  # all ten at once


async def test_one_session_runs_one_turn_at_a_time(make_server: MakeServer,
                                                   tmp_path: Path) -> None:
    server = make_server(store=Overlap(tmp_path / "s.db", meet=2, wait=0.3))
    async with server.client() as client:
        answers = await asyncio.gather(*(chat(client, "one", "안녕") for _ in range(4)))
    assert len(answers) == 4
    assert server.store.most == 1  # type: ignore[attr-defined]  # never two of one session


async def test_many_sessions_run_the_batch_conversation_at_once(make_server: MakeServer) -> None:
    server = make_server()

    async def conversation(client: httpx.AsyncClient, i: int) -> str:
        for message in (BATCH, "확인", "확인"):
            done = await send(client, i, f"batch-{i}", message)
        return done["message"]

    async with server.client() as client:
        endings = await asyncio.gather(*(conversation(client, i) for i in range(30)))
        counts = [len((await client.get("/v1/agent/completed",
                                         params={"session_id": f"batch-{i}"})).json()
                      ["completed"]) for i in range(30)]
    assert endings == [ALL_DONE] * 30
    assert counts == [2] * 30


async def test_a_session_continues_after_a_restart(make_server: MakeServer,
                                                   tmp_path: Path) -> None:
    first = make_server(store=SqliteStore(tmp_path / "restart.db"))
    async with first.client() as client:
        ready = await chat(client, "r", "엄마한테 1만원 보내줘")
    assert ready["state_snapshot"]["stage"] == "READY"
    first.stop()
    await first.store.close()

    second = make_server(store=SqliteStore(tmp_path / "restart.db"))
    async with second.client() as client:
        assert (await client.get("/v1/agent/debug/r")).json()["state"]["stage"] == "READY"
        done = await chat(client, "r", "확인")
    assert (done["state_snapshot"]["stage"], done["message"]) == \
        ("EXECUTED", "엄마에게 1만원 이체가 완료됐어요.")


async def test_two_server_processes_on_one_sqlite_file_lose_no_turn(
        long_memory_flow: Path, tmp_path: Path) -> None:
    servers = [ServerProcess(long_memory_flow, DEFAULT_STORE, cwd=tmp_path) for _ in range(2)]
    try:
        for server in servers:
            server.wait_ready()
        messages = [f"메시지 {i}" for i in range(40)]
        async with httpx.AsyncClient(timeout=30) as client:
            dones = await asyncio.gather(*(
                chat_at(client, servers[i % 2].url, m) for i, m in enumerate(messages)))
        async with httpx.AsyncClient(timeout=30) as client:  # no idle connection reused
            debug = (await client.get(f"{servers[0].url}/v1/agent/debug/shared")).json()
    finally:
        logs = [server.stop() for server in servers]
    assert all("error" not in done["_trace"] for done in dones), logs
    assert (debug["version"], debug["state"]["turns"]) == (40, 40)
    assert sorted(user_messages(debug)) == sorted(messages)
    assert (tmp_path / ".flowctl" / "sessions.db").exists()  # the default store, under the cwd
    assert not any("Traceback" in log for log in logs), logs


async def chat_at(client: httpx.AsyncClient, url: str, message: str) -> dict[str, Any]:
    response = await client.post(f"{url}/v1/agent/chat",
                                 json={"session_id": "shared", "message": message})
    assert response.status_code == 200, response.text
    return response.json()["interaction"]
