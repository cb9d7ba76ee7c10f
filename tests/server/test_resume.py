"""A dropped SSE stream resumes with ``Last-Event-ID``: the missed frames and the DONE come
from the store, on the same server or another one sharing it, and the turn never runs twice.
A reconnect with nothing left to send gets 204 (which stops a browser's ``EventSource``)."""

from __future__ import annotations

import json
from typing import Any

import httpx
from httpx_sse import aconnect_sse

from engine.config import Settings
from engine.store import SqliteStore
from tests.server.conftest import MakeServer, Running, sse

URL = "/v1/agent/chat/stream"
FIRST = {"session_id": "r", "message": "엄마한테 1만원 보내줘"}


async def first_frames(client: httpx.AsyncClient, count: int) -> list[tuple[str, str, Any]]:
    """Read ``count`` frames of a new stream, then drop the connection."""
    seen: list[tuple[str, str, Any]] = []
    async with aconnect_sse(client, "GET", URL, params=FIRST) as source:
        async for event in source.aiter_sse():
            seen.append((event.id, event.event, json.loads(event.data)))
            if len(seen) == count:
                break
    return seen


async def resumed(client: httpx.AsyncClient, last: str) -> list[tuple[str, str, Any]]:
    async with aconnect_sse(client, "GET", URL, params=FIRST,
                            headers={"Last-Event-ID": last}) as source:
        assert source.response.status_code == 200
        return [(e.id, e.event, json.loads(e.data)) async for e in source.aiter_sse()]


async def test_a_dropped_stream_resumes_with_what_it_missed_and_the_turn_ran_once(
        server: Running) -> None:
    async with server.client() as client:
        whole = await sse(client, "GET", URL, params={**FIRST, "session_id": "whole"})
        seen = await first_frames(client, 2)
        rest = await resumed(client, seen[-1][0])
    assert [(n, p) for _, n, p in seen + rest][:-1] == whole[:-1]  # the same frames, in order
    assert [int(i.rsplit("-", 1)[1]) for i, _, _ in seen + rest] == list(range(len(whole)))
    done = rest[-1]
    assert done[1] == "DONE" and done[2]["state_snapshot"]["stage"] == "READY"
    record = await server.store.load("r")
    assert record is not None and record.data["turns"] == 1  # one turn, not two


async def test_nothing_left_to_send_is_204(server: Running) -> None:
    async with server.client() as client:
        frames = await first_frames(client, 99)
        last = frames[-1][0]  # the DONE's id: the stream was whole
        again = await client.get(URL, params=FIRST, headers={"Last-Event-ID": last})
        unknown = await client.get(URL, params=FIRST, headers={"Last-Event-ID": "feed-1"})
        garbage = await client.get(URL, params=FIRST, headers={"Last-Event-ID": "no id"})
    assert [r.status_code for r in (again, unknown, garbage)] == [204, 204, 204]
    record = await server.store.load("r")
    assert record is not None and record.data["turns"] == 1


async def test_another_server_on_the_same_store_answers_the_reconnect(
        make_server: MakeServer, tmp_path: Any) -> None:
    path = tmp_path / "shared.db"
    one = make_server(store=SqliteStore(path))
    other = make_server(store=SqliteStore(path))
    async with one.client() as a, other.client() as b:
        seen = await first_frames(a, 1)
        rest = await resumed(b, seen[-1][0])
    assert [n for _, n, _ in rest][-1] == "DONE"
    assert rest[0][0].endswith("-1")  # it starts right after what the first one sent


async def test_only_the_session_s_owner_gets_the_rest(make_server: MakeServer) -> None:
    keys = ("key-a-0123456789abcdef-AAAA", "key-b-0123456789abcdef-BBBB")
    server = make_server(settings=Settings(api_keys=keys))
    async with server.client(headers={"Authorization": f"Bearer {keys[0]}"}) as a, \
            server.client(headers={"Authorization": f"Bearer {keys[1]}"}) as b:
        seen = await first_frames(a, 1)
        stolen = await b.get(URL, params=FIRST, headers={"Last-Event-ID": seen[0][0]})
        mine = await resumed(a, seen[0][0])
    assert stolen.status_code == 204 and mine[-1][1] == "DONE"


async def test_a_json_turn_keeps_no_stream_log(server: Running) -> None:
    async with server.client() as client:
        response = await client.post("/v1/agent/chat", json=FIRST)
    assert response.status_code == 200
    record = await server.store.load("r")
    assert record is not None and "stream" not in record.data
