"""A turn outlives its request: a client leaving mid-turn, or the server stopping, never
cuts a turn in half. Keep-alive pings flow while a turn is slow."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from httpx_sse import aconnect_sse

from engine.store import SqliteStore
from tests.server.conftest import ALL_DONE, BATCH, MakeServer, chat

STREAM = "/v1/agent/chat/stream"


class SlowCommit(SqliteStore):
    """Commits only after ``delays.pop(0)`` seconds (0 once the list is empty)."""

    def __init__(self, path: Path, delays: list[float]) -> None:
        super().__init__(path)
        self.delays = delays

    async def commit(self, *args: Any, **kw: Any) -> int:
        await asyncio.sleep(self.delays.pop(0) if self.delays else 0)
        return await super().commit(*args, **kw)


async def leave_after_first_event(client: Any, session_id: str, message: str) -> str:
    async with aconnect_sse(client, "GET", STREAM,
                            params={"session_id": session_id, "message": message}) as source:
        async for event in source.aiter_sse():
            return event.event
    raise AssertionError("no event")


async def test_a_client_leaving_mid_turn_leaves_the_turn_committed(make_server: MakeServer,
                                                                   tmp_path: Path) -> None:
    server = make_server(store=SlowCommit(tmp_path / "s.db", [0.5]))
    reader = SqliteStore(tmp_path / "s.db")
    async with server.client() as client:
        assert await leave_after_first_event(client, "leaver", BATCH) == "AGENT_START"
        assert await reader.load("leaver") is None  # the client left before the commit
        # The next turn queues behind the one still running and sees what it committed.
        second = await chat(client, "leaver", "확인")
        assert second["message"] == "완료! 다음으로 용걸이에게 5만원 보낼까요? (2/2)"
        third = await chat(client, "leaver", "확인")
        assert third["message"] == ALL_DONE
        debug = (await client.get("/v1/agent/debug/leaver")).json()
    # three turns, the journal's write before each transfer and, after each, the note that
    # its reply reached the client
    assert debug["version"] == 7 and "untold" not in debug["state"]
    assert [m["content"] for m in debug["memory"]["raw_history"]][::2] == [BATCH, "확인", "확인"]
    assert [c["outcome"] for c in debug["completed"]] == ["EXECUTED", "EXECUTED"]


async def test_stopping_the_server_waits_for_turns_in_flight(make_server: MakeServer,
                                                             tmp_path: Path) -> None:
    server = make_server(store=SlowCommit(tmp_path / "s.db", [0.5]))
    async with server.client() as client:
        await leave_after_first_event(client, "late", "엄마한테 1만원 보내줘")
    await asyncio.to_thread(server.stop)
    record = await SqliteStore(tmp_path / "s.db").load("late")
    assert record is not None and record.data["stage"] == "READY"


async def test_pings_keep_a_slow_stream_alive(make_server: MakeServer, tmp_path: Path) -> None:
    server = make_server(store=SlowCommit(tmp_path / "s.db", [0.6]), ping_seconds=0.1)
    async with server.client() as client, client.stream(
            "GET", STREAM, params={"session_id": "p", "message": "안녕"}) as response:
        lines = [line async for line in response.aiter_lines()]
    pings = [line for line in lines if line.startswith(": ping")]
    assert len(pings) >= 3
    assert lines.index("event: DONE") > lines.index(pings[-1])
