"""Hook handlers that leave the server: delivered once, signed, after the turn; retried
with backoff; a dead or hanging endpoint never holds a turn back."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from pathlib import Path

from engine.app import load_app
from engine.app.engine import AppEngine
from engine.config import Settings
from engine.store import MemoryStore
from tests.conftest import ROOT
from tests.fakes.hook_target import HookTarget


def app_with_hook(tmp_path: Path, url: str, **options: object) -> tuple[Path, dict[str, str]]:
    extra = "".join(f"\n    {k}: {v}" for k, v in options.items())
    path = tmp_path / "app.yaml"
    path.write_text(f"""app: hooked
services:
  transfer: {{flow: {ROOT / 'flows' / 'transfer.yaml'}, keywords: [보내]}}
default: transfer
hooks:
  - url: ${{HOOK_URL}}
    types: [transfer_completed]
    secret_env: HOOK_SECRET{extra}
""", encoding="utf-8")
    return path, {"HOOK_URL": url, "HOOK_SECRET": "s3cret"}


async def transfer(engine: AppEngine, session: str = "s") -> None:
    for message in ("엄마한테 1만원 보내줘", "확인"):
        async for _ in engine.turn(session, message):
            pass


async def test_a_live_endpoint_gets_each_hook_once_signed(tmp_path: Path) -> None:
    with HookTarget() as target:
        path, env = app_with_hook(tmp_path, target.url)
        engine = AppEngine(load_app(path, env), store=MemoryStore(), settings=Settings(env=env))
        await transfer(engine)
        await engine.webhooks.drain(10)
        await engine.aclose()
    assert len(target.received) == 1
    headers, body = target.received[0]
    expected = "sha256=" + hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert headers["X-Flowctl-Signature"] == expected
    sent = json.loads(body)
    assert (sent["type"], sent["service"], sent["session_id"]) == ("transfer_completed",
                                                                   "transfer", "s")
    assert sent["data"]["amount"] == 10000 and headers["X-Flowctl-Delivery"] == sent["id"]


async def test_failures_are_retried_with_backoff_and_logged(tmp_path: Path) -> None:
    with HookTarget(statuses=[500, 503]) as target:
        path, env = app_with_hook(tmp_path, target.url, backoff_sec=0.05)
        engine = AppEngine(load_app(path, env), store=MemoryStore(), settings=Settings(env=env))
        await transfer(engine)
        await engine.webhooks.drain(10)
        log = list(engine.webhooks.log)
        await engine.aclose()
    assert [a.status for a in log] == [500, 503, 200]
    assert len({a.delivery for a in log}) == 1  # one delivery, three attempts, same id
    assert len({h["X-Flowctl-Delivery"] for h, _ in target.received}) == 1


async def test_a_hanging_endpoint_does_not_hold_the_turn(tmp_path: Path) -> None:
    with HookTarget(hold=3) as target:
        path, env = app_with_hook(tmp_path, target.url, timeout_sec=5, retries=0)
        engine = AppEngine(load_app(path, env), store=MemoryStore(), settings=Settings(env=env))
        await transfer(engine)
        # the turn is over and answered while the endpoint still holds the delivery
        for _ in range(100):
            if target.received:
                break
            await asyncio.sleep(0.02)
        assert len(target.received) == 1 and engine.webhooks.running
        assert not engine.webhooks.log  # no attempt has finished yet
        await engine.aclose()


async def test_a_dead_endpoint_costs_the_user_nothing(tmp_path: Path) -> None:
    path, env = app_with_hook(tmp_path, "http://127.0.0.1:9/hooks", retries=1,
                              backoff_sec=0.01)
    engine = AppEngine(load_app(path, env), store=MemoryStore(), settings=Settings(env=env))
    await transfer(engine)
    done = [e async for e in engine.turn("s", "총 얼마 보냈어?")][-1]
    assert "1만원" in done.message
    await engine.webhooks.drain(10)
    assert [a.error is not None for a in engine.webhooks.log] == [True, True]
    await engine.aclose()
