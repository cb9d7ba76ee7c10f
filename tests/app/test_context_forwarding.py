"""The request `context` reaches the service that answers: a local flow, a remote server over
the SSE protocol (in the body) and a flowctl A2A agent (as message metadata).

The shop flow declares a context schema and a guard that reads it ("매출" only for sellers),
so its answer shows whether the context arrived; the transfer flow declares none and must
keep working when a request carries one meant for another service.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.app.engine import AppEngine
from engine.app.load import load_app
from engine.config import Settings
from engine.runtime.values.events import Done
from engine.store import MemoryStore
from tests.app.conftest import Server
from tests.conftest import ROOT

SELLER_ONLY = "매출 조회는 판매자 계정으로 로그인해야 쓸 수 있어요."
CONSUMER = {"logged_in": True, "user_type": "consumer"}
SELLER = {"logged_in": True, "user_type": "seller", "user_id": "u-7"}


def app_file(tmp_path: Path, shop: str) -> Path:
    path = tmp_path / "app.yaml"
    path.write_text(f"""app: market
services:
  transfer: {{flow: {ROOT / 'flows' / 'transfer.yaml'}, keywords: [보내]}}
  shop: {{{shop}, keywords: [매출], timeout_sec: 10}}
default: transfer
""", encoding="utf-8")
    return path


async def reply(engine: AppEngine, session: str, message: str,
                context: dict[str, Any] | None) -> Done:
    done = [e async for e in engine.turn(session, message, context=context)][-1]
    assert isinstance(done, Done)
    return done


async def check(engine: AppEngine) -> None:
    try:
        blocked = await reply(engine, "a", "이번 달 매출 알려줘", CONSUMER)
        assert blocked.message == SELLER_ONLY, blocked
        allowed = await reply(engine, "b", "이번 달 매출 알려줘", SELLER)
        assert allowed.message != SELLER_ONLY and "error" not in allowed.trace, allowed
        assert allowed.state_snapshot["service"] == "shop"
        # a service that declares no context is not handed (and refused for) another's
        transfer = await reply(engine, "c", "엄마한테 1만원 보내줘", SELLER)
        assert transfer.state_snapshot["stage"] == "READY", transfer
    finally:
        await engine.aclose()


async def test_a_local_service_gets_the_context(tmp_path: Path) -> None:
    path = app_file(tmp_path, f"flow: {ROOT / 'flows' / 'shop.yaml'}")
    await check(AppEngine(load_app(path, {}), store=MemoryStore(), settings=Settings()))


async def test_a_local_service_refuses_a_context_its_schema_refuses(tmp_path: Path) -> None:
    path = app_file(tmp_path, f"flow: {ROOT / 'flows' / 'shop.yaml'}")
    engine = AppEngine(load_app(path, {}), store=MemoryStore(), settings=Settings())
    done = await reply(engine, "a", "이번 달 매출 알려줘", {"logged_in": "yes"})
    await engine.aclose()
    assert done.trace.get("error") == "bad_context"


@pytest.mark.parametrize("kind", ["remote", "a2a"])
async def test_a_remote_service_gets_the_context(tmp_path: Path, kind: str,
                                                 serve: Callable[..., Server]) -> None:
    shop = serve(ROOT / "flows" / "shop.yaml", name="shop")
    url = shop.agent if kind == "remote" else shop.url
    path = app_file(tmp_path, f"{kind}: '{url}'")
    await check(AppEngine(load_app(path, {}), store=MemoryStore(), settings=Settings()))


async def test_the_http_api_of_an_app_takes_a_context_for_its_services(tmp_path: Path) -> None:
    import httpx

    from engine.transports.http import create_app

    path = app_file(tmp_path, f"flow: {ROOT / 'flows' / 'shop.yaml'}")
    engine = AppEngine(load_app(path, {}), store=MemoryStore(), settings=Settings())
    transport = httpx.ASGITransport(app=create_app(engine, settings=Settings()),
                                    client=("127.0.0.1", 50000))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            said = {}
            for who, context in (("consumer", CONSUMER), ("seller", SELLER)):
                reply = await http.post("/v1/agent/chat", json={
                    "session_id": who, "message": "이번 달 매출 알려줘", "context": context})
                assert reply.status_code == 200, reply.text
                said[who] = reply.json()["interaction"]["message"]
            reply = await http.post("/v1/agent/chat", json={
                "session_id": "t", "message": "엄마한테 1만원 보내줘", "context": SELLER})
            assert reply.status_code == 200, reply.text
    finally:
        await engine.aclose()
    assert said["consumer"] == SELLER_ONLY and said["seller"] != SELLER_ONLY
