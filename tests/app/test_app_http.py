"""An app behind the unchanged HTTP API, in process: sessions belong to their caller across
every service, the debug API masks sensitive slots of every service, /completed carries
each task's service, DELETE forgets every service's part, and the agent card is public."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx

from engine.app import load_app
from engine.app.engine import AppEngine
from engine.config import Settings
from engine.store import MemoryStore
from engine.transports.http import create_app
from tests.conftest import ROOT

KEY_A, KEY_B = "alice-key-0123456789", "bob-key-0123456789"
AGENT = "http://127.0.0.1/v1/agent"


def app_file(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")
    flow = (ROOT / "flows" / "transfer.yaml").read_text(encoding="utf-8")
    target = "    description: 받는 사람\n"
    flow = flow.replace(target, target + "    sensitive: true\n")
    (tmp_path / "transfer.yaml").write_text(flow, encoding="utf-8")
    (tmp_path / "card.yaml").write_text((ROOT / "flows" / "card.yaml").read_text("utf-8"),
                                        encoding="utf-8")
    path = tmp_path / "app.yaml"
    path.write_text("app: t\nservices:\n  transfer: {flow: transfer.yaml, keywords: [보내]}\n"
                    "  card: {flow: card.yaml, keywords: [카드]}\ndefault: transfer\n",
                    encoding="utf-8")
    return path


def client(app: object, key: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1",
                             headers={"Authorization": f"Bearer {key}"})


async def test_an_app_keeps_the_api_and_its_guarantees(tmp_path: Path) -> None:
    settings = Settings(dev_mode=True, api_keys=(KEY_A, KEY_B))
    engine = AppEngine(load_app(app_file(tmp_path), {}), store=MemoryStore(), settings=settings)
    app = create_app(engine, settings=settings)
    async with client(app, KEY_A) as alice, client(app, KEY_B) as bob:
        for message in ("홍길동아저씨한테 1만원 보내줘", "확인", "체크카드 신청할래", "확인"):
            answer = await alice.post(f"{AGENT}/chat", json={"session_id": "s",
                                                             "message": message})
            assert answer.status_code == 200
        assert answer.json()["interaction"]["state_snapshot"]["service"] == "card"
        done = await alice.get(f"{AGENT}/completed", params={"session_id": "s"})
        assert [(t["service"], t["outcome"]) for t in done.json()["completed"]] == [
            ("transfer", "EXECUTED"), ("card", "APPLIED")]
        await alice.post(f"{AGENT}/chat", json={"session_id": "s", "message": "김철수한테 보내줘"})
        debug = (await alice.get(f"{AGENT}/debug/s")).json()
        assert set(debug["state"]["services"]) == {"transfer", "card"}
        assert "김철수" not in json.dumps(debug, ensure_ascii=False)  # sensitive: masked

        assert (await bob.get(f"{AGENT}/completed", params={"session_id": "s"})).status_code \
            == 404
        assert (await bob.delete(f"{AGENT}/sessions/s")).status_code == 404
        theirs = await bob.post(f"{AGENT}/chat", json={"session_id": "s", "message": "확인"})
        assert theirs.status_code == 200  # Bob's own "s": nothing of Alice's is confirmed
        assert theirs.json()["interaction"]["state_snapshot"]["stage"] != "EXECUTED"
        assert (await bob.get(f"{AGENT}/completed", params={"session_id": "s"})).json()[
            "completed"] == []
        assert (await alice.delete(f"{AGENT}/sessions/s")).status_code == 204
        done = await alice.get(f"{AGENT}/completed", params={"session_id": "s"})
        assert done.status_code == 404  # forgotten: as a session that never was

        anonymous = httpx.AsyncClient(transport=httpx.ASGITransport(
            app=app, client=("127.0.0.1", 50000)), base_url="http://127.0.0.1")  # type: ignore[arg-type]
        async with anonymous:
            health = (await anonymous.get("/healthz")).json()
            assert health["service"] == "t"  # the app's name
            card = await anonymous.get("/.well-known/agent-card.json")
            assert card.status_code == 200 and card.json()["name"] == "t"
            assert card.json()["supportedInterfaces"][0]["url"] == "http://127.0.0.1/a2a"
            rpc = await anonymous.post("/a2a", json={"jsonrpc": "2.0", "id": 1,
                                                     "method": "SendMessage", "params": {}})
            assert rpc.status_code == 401
    await engine.aclose()
