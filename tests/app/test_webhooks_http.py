"""An app's hooks leave the server after a turn whichever way the turn was asked for: the
JSON route reads the turn to its end (a turn left at its DONE never reached the code after
it, where an app delivers its hooks), and the stream does too."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from engine.app import load_app
from engine.app.engine import AppEngine
from engine.config import Settings
from engine.store import MemoryStore
from engine.transports.http import create_app
from tests.app.test_webhooks import app_with_hook
from tests.fakes.hook_target import HookTarget

SEND, CONFIRM = "엄마한테 1만원 보내줘", "확인"


async def chat_json(client: httpx.AsyncClient, message: str) -> None:
    response = await client.post("/v1/agent/chat", json={"session_id": "s", "message": message})
    assert response.status_code == 200, response.text


async def chat_stream(client: httpx.AsyncClient, message: str) -> None:
    response = await client.post("/v1/agent/chat/stream",
                                 json={"session_id": "s", "message": message})
    assert response.status_code == 200 and "event: DONE" in response.text


@pytest.mark.parametrize("send", [chat_json, chat_stream], ids=["json", "stream"])
async def test_a_completed_transfer_sends_its_hook_once(tmp_path: Path, send: object) -> None:
    with HookTarget() as target:
        path, env = app_with_hook(tmp_path, target.url)
        engine = AppEngine(load_app(path, env), store=MemoryStore(), settings=Settings(env=env))
        app = create_app(engine, settings=Settings(env=env))
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            for message in (SEND, CONFIRM):
                await send(client, message)  # type: ignore[operator]
        await engine.webhooks.drain(10)
        await engine.aclose()
    assert [json.loads(body)["type"] for _, body in target.received] == ["transfer_completed"]
