"""The remote proxy against scripted loopback servers: every way a remote can fail ends the
turn with a DONE in the wire format, within the configured timeout, never an exception."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from engine.app import load_app
from engine.app.engine import AppEngine
from engine.app.remote import remote_session
from engine.config import Settings
from engine.runtime.values.events import Done, LlmToken, wire
from engine.store import MemoryStore
from tests.conftest import ROOT
from tests.fakes.sse_remote import ScriptedRemote

FAILED = "card 서비스가 지금 응답하지 않아요. 잠시 후 다시 시도해 주세요."


def app_file(tmp_path: Path, *, timeout: float = 1.0, key_env: str | None = None) -> Path:
    flows = ROOT / "flows"
    extra = f"\n    api_key_env: {key_env}" if key_env else ""
    path = tmp_path / "app.yaml"
    path.write_text(f"""app: t
services:
  transfer: {{flow: {flows / 'transfer.yaml'}, keywords: [보내]}}
  card:
    remote: ${{CARD_SERVICE_URL}}
    keywords: [카드]
    timeout_sec: {timeout}{extra}
default: transfer
""", encoding="utf-8")
    return path


async def engine_for(path: Path, url: str, **env: str) -> AsyncIterator[AppEngine]:
    full = {"CARD_SERVICE_URL": url, **env}
    engine = AppEngine(load_app(path, full), store=MemoryStore(), settings=Settings(env=full))
    try:
        yield engine
    finally:
        await engine.aclose()


async def turn(engine: AppEngine, message: str, session: str = "s") -> list:
    return [event async for event in engine.turn(session, message)]


def frame(name: str, payload: object) -> str:
    return f"event: {name}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n"


DONE = {"message": "어떤 카드를 신청할까요?", "next_action": "ASK", "ui_hint": {"buttons": []},
        "state_snapshot": {"flow": "apply", "stage": "FILLING", "slots": {"kind": None},
                           "missing_required": ["kind"], "filling_turns": 1,
                           "meta": {"slot_errors": {}}, "task_queue": []},
        "hooks": [], "_trace": {"turn_id": "abcd1234", "total_elapsed_ms": 3.0, "agents": []}}


@pytest.mark.parametrize("body,status,content_type,error", [
    ("event: DONE\ndata: {not json\n\n", 200, "text/event-stream", "Malformed"),
    (frame("SURPRISE", {}), 200, "text/event-stream", "unknown event"),
    (frame("LLM_TOKEN", "a"), 200, "text/event-stream", "without DONE"),
    ('{"error": "boom"}', 500, "application/json", "HTTP 500"),
    ("<html>hi</html>", 200, "text/html", "SSEError"),
])
async def test_a_broken_remote_gives_a_clear_done(tmp_path: Path, body: str, status: int,
                                                  content_type: str, error: str) -> None:
    with ScriptedRemote(body, status=status, content_type=content_type) as remote:
        async for engine in engine_for(app_file(tmp_path), remote.url):
            events = await turn(engine, "카드 신청")
    done = events[-1]
    assert isinstance(done, Done) and done.message == FAILED
    assert set(wire(done)[1]) == {"message", "next_action", "ui_hint", "state_snapshot",
                                  "hooks", "_trace", "requires_confirmation",
                                  "next_suggested_actions"}
    assert done.trace["error"] == "service_unavailable"
    card = next(a for a in done.trace["agents"] if a["agent"] == "service:card")
    assert error in str(card["error"])


async def test_a_silent_remote_times_out_on_time(tmp_path: Path) -> None:
    with ScriptedRemote(frame("DONE", DONE), delay=5) as remote:
        async for engine in engine_for(app_file(tmp_path, timeout=0.5), remote.url):
            started = time.monotonic()
            events = await turn(engine, "카드 신청")
            elapsed = time.monotonic() - started
    assert events[-1].message == FAILED
    assert "no answer within 0.5 s" in events[-1].trace["agents"][1]["error"]
    assert elapsed < 4  # the remote would answer after 5 s


async def test_a_refused_connection_fails_fast_and_local_services_go_on(
        tmp_path: Path) -> None:
    async for engine in engine_for(app_file(tmp_path), "http://127.0.0.1:9/v1/agent"):
        assert (await turn(engine, "카드 신청"))[-1].message == FAILED
        done = (await turn(engine, "엄마한테 1만원 보내줘"))[-1]
        assert done.next_action == "CONFIRM"
        assert done.state_snapshot["switched_from"] == "card"


async def test_events_are_relayed_in_order_with_mapped_session_and_key(tmp_path: Path) -> None:
    body = frame("AGENT_START", {"agent": "x", "label": "작업 중"}) + frame("LLM_TOKEN", "하나") \
        + frame("LLM_TOKEN", "둘") + frame("DONE", DONE)
    with ScriptedRemote(body) as remote:
        async for engine in engine_for(app_file(tmp_path, key_env="CARD_KEY"), remote.url,
                                       CARD_KEY="k-123"):
            events = await turn(engine, "카드 신청", session="user-1")
            again = await turn(engine, "아무 말", session="user-1")  # mid-flow: stays
    assert [wire(e)[0] for e in events] == ["AGENT_START", "LLM_TOKEN", "LLM_TOKEN", "DONE"]
    assert [e.text for e in events if isinstance(e, LlmToken)] == ["하나", "둘"]
    assert events[-1].state_snapshot["service"] == "card"
    assert again[-1].state_snapshot["service"] == "card"
    (body1, headers1), (body2, _) = remote.requests
    assert body1 == {"session_id": remote_session("t", "user-1", None), "message": "카드 신청"}
    assert body2["session_id"] == body1["session_id"] != "user-1"
    assert headers1["Authorization"] == "Bearer k-123"
    assert remote_session("t", "user-1", "alice") != remote_session("t", "user-1", "bob")


class BrokenStore(MemoryStore):
    async def load(self, session_id: str):  # type: ignore[no-untyped-def]
        raise OSError("the disk is gone")


async def test_a_store_that_fails_still_gives_a_done(tmp_path: Path) -> None:
    full = {"CARD_SERVICE_URL": "http://127.0.0.1:9/v1/agent"}
    engine = AppEngine(load_app(app_file(tmp_path), full), store=BrokenStore(),
                       settings=Settings(env=full))
    events = await turn(engine, "엄마한테 1만원 보내줘")
    assert len(events) == 1 and isinstance(events[0], Done)
    assert events[0].trace["error"] == "turn_failed"
    await engine.aclose()


@pytest.mark.parametrize("forward,expected", [("card", "Bearer alice-key-0123456789"),
                                              ("", "Bearer operator-key")])
async def test_caller_credentials_go_on_only_when_the_operator_says(
        tmp_path: Path, forward: str, expected: str) -> None:
    from engine.transports.http import create_app

    env = {"CARD_KEY": "operator-key", "FLOWCTL_FORWARD_CREDENTIALS": forward}
    with ScriptedRemote(frame("DONE", DONE)) as remote:
        env["CARD_SERVICE_URL"] = remote.url
        settings = Settings(env=env, api_keys=("alice-key-0123456789",))
        engine = AppEngine(load_app(app_file(tmp_path, key_env="CARD_KEY"), env),
                           store=MemoryStore(), settings=settings)
        app = create_app(engine, settings=settings)
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            answer = await c.post("/v1/agent/chat", json={"session_id": "s", "message": "카드"},
                                  headers={"Authorization": "Bearer alice-key-0123456789"})
        await engine.aclose()
    assert answer.json()["interaction"]["state_snapshot"]["service"] == "card"
    assert remote.requests[0][1]["Authorization"] == expected
