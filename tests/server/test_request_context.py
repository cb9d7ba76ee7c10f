"""The request context over HTTP: a POST body's object or a GET query's JSON text, checked
against the flow's schema; a context it refuses is a 422 naming the problem, never a 500."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import pytest

from engine.compiler import compile_file
from engine.config import Settings
from engine.runtime.engine import Engine
from engine.store import SqliteStore
from tests.server.conftest import ROOT, MakeServer, sse

SELLER = {"logged_in": True, "user_id": "s-17", "user_type": "seller"}


@pytest.fixture
def shop_server(make_server: MakeServer, tmp_path: Path):  # type: ignore[no-untyped-def]
    engine = Engine(compile_file(ROOT / "flows" / "shop.yaml"),
                    store=SqliteStore(tmp_path / "shop.db"), settings=Settings(dev_mode=True))
    return make_server(engine=engine)


async def test_post_context_reaches_the_reply(shop_server) -> None:  # type: ignore[no-untyped-def]
    async with shop_server.client() as client:
        response = await client.post("/v1/agent/chat", json={
            "session_id": "a", "message": "이번 달 매출", "context": SELLER})
        assert response.status_code == 200
        assert "s-17님의 이번 달 매출" in response.json()["interaction"]["message"]
        response = await client.post("/v1/agent/chat", json={
            "session_id": "b", "message": "매출 보여줘",
            "context": {"logged_in": True, "user_type": "consumer"}})
        trace = response.json()["interaction"]["_trace"]
        assert trace["failure_tags"] == ["POLICY_BLOCKED"]


@pytest.mark.parametrize(("context", "problem"), [
    ({"logged_in": "yes"}, "context.logged_in: 'yes' is not of type 'boolean'"),
    ({}, "context: 'logged_in' is a required property"),
    (None, "context: 'logged_in' is a required property"),
])
async def test_post_bad_context_is_422(shop_server, context, problem) -> None:  # type: ignore[no-untyped-def]
    body = {"session_id": "a", "message": "안녕"}
    if context is not None:
        body["context"] = context
    async with shop_server.client() as client:
        response = await client.post("/v1/agent/chat", json=body)
        assert response.status_code == 422
        assert response.json()["error"] == "bad_context"
        assert problem in response.json()["message"]
        stream = await client.post("/v1/agent/chat/stream", json=body)
        assert stream.status_code == 422 and stream.json()["error"] == "bad_context"
    assert await shop_server.store.load("a") is None  # nothing ran: no session was saved


async def test_get_stream_takes_context_as_json_text(shop_server) -> None:  # type: ignore[no-untyped-def]
    query = urlencode({"session_id": "g", "message": "안녕", "context": json.dumps(SELLER)})
    async with shop_server.client() as client:
        events = await sse(client, "GET", f"/v1/agent/chat/stream?{query}")
        assert events[-1][0] == "DONE" and events[-1][1]["message"].startswith("판매자님")
        for raw in ("{not json", "[1, 2]", '{"logged_in": 1}'):
            bad = urlencode({"session_id": "g", "message": "안녕", "context": raw})
            response = await client.get(f"/v1/agent/chat/stream?{bad}")
            assert response.status_code == 422, raw
            assert "context" in response.text


async def test_a_flow_without_a_context_schema_refuses_one(client) -> None:  # type: ignore[no-untyped-def]
    response = await client.post("/v1/agent/chat", json={
        "session_id": "t", "message": "안녕", "context": {"logged_in": True}})
    assert response.status_code == 422
    assert "declares no request context" in response.json()["message"]
    ok = await client.post("/v1/agent/chat", json={"session_id": "t", "message": "안녕"})
    assert ok.status_code == 200


def test_the_openapi_document_describes_this_services_context() -> None:
    """The context a service takes is the one its spec advertises: its own schema, or none."""
    from engine.store import MemoryStore
    from engine.transports.http import create_app

    for flow, declared in (("shop.yaml", True), ("transfer.yaml", False)):
        service = compile_file(ROOT / "flows" / flow)
        settings = Settings()
        app = create_app(Engine(service, store=MemoryStore(), settings=settings),
                         settings=settings)
        field = app.openapi()["components"]["schemas"]["ChatRequest"]["properties"]["context"]
        if declared:
            assert field["anyOf"] == [dict(service.context_schema or {}), {"type": "null"}]
        else:
            assert field["anyOf"] == [{"type": "null"}]
