"""The operator's limit on the turns one caller starts a minute (FLOWCTL_TURNS_PER_MINUTE):
over it a turn is refused before it runs — over HTTP 429 with Retry-After, in process a DONE
carrying the refusal — the session untouched; callers are counted apart, a refused request
is not counted, the turns come back as the minute passes, and an app counts its services'
turns together."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest

from engine.app import load_app
from engine.app.engine import AppEngine
from engine.compiler.compiled import CompiledService
from engine.config import Settings, SettingsError, load_settings
from engine.runtime.engine import Engine
from engine.runtime.values.admission import TurnRate
from engine.store import MemoryStore
from engine.transports.http import create_app
from tests.conftest import ROOT

AGENT = "http://127.0.0.1/v1/agent"
KEY_A, KEY_B = "alice-key-0123456789", "bob-key-0123456789"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_refills_evenly_over_the_minute() -> None:
    clock = Clock()
    rate = TurnRate(3, clock=clock)
    assert [rate.take("a") for _ in range(4)] == [0, 0, 0, 20]  # one turn back every 20 s
    assert rate.wait("b") == 0  # another caller has its own
    clock.now += 10
    assert rate.wait("a") == 10 and rate.take("a") == 10  # asking takes nothing
    clock.now += 10
    assert rate.take("a") == 0 and rate.wait("a") == 20
    clock.now += 3600
    assert [rate.take("a") for _ in range(4)] == [0, 0, 0, 20]  # never more than a minute's


def test_no_limit_by_default() -> None:
    rate = TurnRate(Settings().turns_per_minute)
    assert all(rate.take("a") == 0 for _ in range(500))


@pytest.mark.parametrize("value", ["-1", "many", "2.5"])
def test_a_bad_limit_stops_with_one_line_naming_the_variable(value: str) -> None:
    with pytest.raises(SettingsError, match="FLOWCTL_TURNS_PER_MINUTE"):
        load_settings({"FLOWCTL_TURNS_PER_MINUTE": value})


async def test_in_process_the_turn_over_the_limit_is_a_refusal_and_saves_nothing(
        transfer: CompiledService) -> None:
    engine = Engine(transfer, store=MemoryStore(),
                    settings=load_settings({"FLOWCTL_TURNS_PER_MINUTE": "2"}))
    await engine.reply("s", "엄마한테 보내줘")
    before = await engine.reply("s", "3만원")
    over = await engine.reply("s", "확인")
    assert over.refusal is not None and over.refusal.kind == "rate_limited"
    assert over.refusal.retry_after == 30 and "30초" in over.message
    assert over.state_snapshot == before.state_snapshot  # nothing ran: no transfer
    assert (await engine.reply("other", "안녕")).refusal is None  # another session, no auth


def client(app: object, key: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1",
                             headers={"Authorization": f"Bearer {key}"})


async def test_over_http_a_caller_over_the_limit_gets_429_and_others_do_not(
        transfer: CompiledService) -> None:
    settings = Settings(api_keys=(KEY_A, KEY_B), turns_per_minute=2)
    app = create_app(Engine(transfer, store=MemoryStore(), settings=settings),
                     settings=settings)
    turn = {"session_id": "s", "message": "잔액 알려줘"}
    async with client(app, KEY_A) as alice, client(app, KEY_B) as bob:
        assert [(await alice.post(f"{AGENT}/chat", json=turn)).status_code
                for _ in range(2)] == [200, 200]
        for path in ("chat", "chat/stream"):  # refused again: a refusal is not counted
            over = await alice.post(f"{AGENT}/{path}", json={**turn, "session_id": "t"})
            assert over.status_code == 429
            assert over.headers["Retry-After"] == "30"
            assert over.json()["error"] == "rate_limited" and over.json()["retry_after"] == 30
        assert (await bob.post(f"{AGENT}/chat", json=turn)).status_code == 200


async def test_an_app_counts_the_turns_of_all_its_services_together(tmp_path: Path) -> None:
    for name in ("transfer.yaml", "card.yaml"):
        shutil.copy(ROOT / "flows" / name, tmp_path / name)
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")
    path = tmp_path / "app.yaml"
    path.write_text("app: t\nservices:\n  transfer: {flow: transfer.yaml, keywords: [보내]}\n"
                    "  card: {flow: card.yaml, keywords: [카드]}\ndefault: transfer\n",
                    encoding="utf-8")
    engine = AppEngine(load_app(path, {}), store=MemoryStore(),
                       settings=Settings(turns_per_minute=2))
    assert (await engine.reply("s", "엄마한테 보내줘")).refusal is None
    assert (await engine.reply("s", "체크카드 신청할래")).refusal is None
    assert engine.admit("카드 하나 더", session_id="s") is not None
    over = await engine.reply("s", "카드 하나 더")
    assert over.refusal is not None and over.refusal.kind == "rate_limited"
