"""The app's LLM router on the real openai SDK against a local fake server, calls counted.

A keyword turn and a confirmation make no call; a message no keyword or intent claims makes
exactly one (the router's), whose understanding the chosen service uses instead of its own
call; a reply that cannot be used sends the turn to the default service, with no second call
and no traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.app.engine import AppEngine
from engine.app.load import load_app
from engine.config import load_settings
from engine.runtime.values.events import Done
from engine.store import MemoryStore
from tests.conftest import ROOT, TODAY
from tests.fakes.llm_servers import FakeLLMServer, FakeReply

APP = f"""\
app: routed_bank
services:
  transfer: {{flow: {ROOT}/flows/transfer.yaml, keywords: [이체, 송금, 보내]}}
  balance: {{flow: {ROOT}/flows/balance.yaml, keywords: [잔액, 조회]}}
default: balance
router:
  model: {{provider: openai, model: gpt-4.1-mini, max_retry: 0}}
"""


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
async def engine(llm: FakeLLMServer, tmp_path: Path) -> Any:
    llm.reset()
    path = tmp_path / "app.yaml"
    path.write_text(APP, encoding="utf-8")
    env = {**llm.env(), "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "50", "CORE_BANK_URL": "http://127.0.0.1:9"}
    app = AppEngine(load_app(path, env), store=MemoryStore(), settings=load_settings(env),
                    clock=lambda: TODAY)
    yield app
    await app.aclose()


def routed(service: str, **slots: Any) -> FakeReply:
    ops = [{"op": "set", "slot": k, "value": v} for k, v in slots.items()]
    return FakeReply(text=json.dumps({"service": service, "intent": service, "confidence": 0.9,
                                      "operations": ops}, ensure_ascii=False))


async def turn(engine: AppEngine, message: str, session: str = "s") -> Done:
    done = [e async for e in engine.turn(session, message)][-1]
    assert isinstance(done, Done)
    return done


def router_entry(done: Done) -> dict[str, Any]:
    entry = done.trace["agents"][0]
    assert entry["agent"] == "router"
    return dict(entry)


async def test_a_routed_turn_makes_exactly_the_routers_one_call(
        engine: AppEngine, llm: FakeLLMServer) -> None:
    llm.enqueue(routed("transfer", target="어머니", amount=50000))
    done = await turn(engine, "어머니 계좌에 오만 원 넣어드려")
    assert len(llm.requests) == 1  # the transfer service would make its own call without it
    snap = done.state_snapshot
    assert (snap["service"], snap["stage"], snap["slots"]["target"], snap["slots"]["amount"]) \
        == ("transfer", "READY", "어머니", 50000)
    entry = router_entry(done)
    assert (entry["reason"], entry["provider"], entry["success"]) == ("llm", "openai", True)
    assert [a for a in done.trace["agents"] if "provider" in a] == [done.trace["agents"][0]]
    system = llm.requests[0].body["messages"][0]["content"]
    assert "transfer" in system and "balance" in system and "계좌 잔액" in system  # one prompt
    assert llm.requests[0].body["messages"][-1] == {"role": "user",
                                                    "content": "어머니 계좌에 오만 원 넣어드려"}
    done = await turn(engine, "확인")  # mid-flow: the service keeps it, by rules
    assert done.state_snapshot["stage"] == "EXECUTED"
    assert len(llm.requests) == 1


async def test_keyword_and_intent_turns_make_no_call(engine: AppEngine,
                                                     llm: FakeLLMServer) -> None:
    done = await turn(engine, "엄마한테 1만원 보내줘")
    assert router_entry(done)["reason"] == "keyword"
    assert done.state_snapshot["stage"] == "READY"
    # like the examples of transfer.yaml's own balance intent (the first service listed
    # whose intents claim a message takes it)
    done = await turn(engine, "통장 얼마야?", "other")
    assert (router_entry(done)["reason"], done.state_snapshot["service"]) == ("intent",
                                                                              "transfer")
    assert llm.requests == []


async def test_the_router_can_pick_the_service_without_slots(
        engine: AppEngine, llm: FakeLLMServer) -> None:
    llm.enqueue(routed("balance"))
    done = await turn(engine, "지금 내 돈 상황 좀 봐줘")
    assert (done.state_snapshot["service"], router_entry(done)["reason"]) == ("balance", "llm")
    assert len(llm.requests) == 1


@pytest.mark.parametrize("reply", [
    FakeReply(text="네, 이체 서비스로 보낼게요"),  # not JSON
    FakeReply(text='{"service": "loans", "operations": []}'),  # no such service
    FakeReply(text='{"operations": "x"}'),  # not the schema
    FakeReply(status=500),  # the provider fails (max_retry 0: one call)
])
async def test_an_unusable_router_reply_falls_back_to_the_default(
        engine: AppEngine, llm: FakeLLMServer, reply: FakeReply) -> None:
    llm.enqueue(reply)
    done = await turn(engine, "어머니 계좌에 오만 원 넣어드려")
    assert done.state_snapshot["service"] == "balance"
    assert "error" not in done.trace and "Traceback" not in done.message
    entry = router_entry(done)
    assert (entry["reason"], entry["success"]) == ("llm_failed", False)
    assert len(llm.requests) == 1  # and the default service made no call of its own


async def test_the_router_can_send_a_message_to_a_remote_service(
        llm: FakeLLMServer, tmp_path: Path) -> None:
    from tests.app.test_remote import DONE, frame
    from tests.fakes.sse_remote import ScriptedRemote

    llm.reset()
    with ScriptedRemote(frame("LLM_TOKEN", "카드") + frame("DONE", DONE)) as remote:
        path = tmp_path / "app.yaml"
        path.write_text(APP.replace("default: balance", f"""  card:
    description: 카드 신청과 혜택 안내 (카드 서버)
    remote: '{remote.url}'
    keywords: [카드]
default: balance"""), encoding="utf-8")
        env = {**llm.env(), "CORE_BANK_URL": "http://127.0.0.1:9"}
        engine = AppEngine(load_app(path, env), store=MemoryStore(), settings=load_settings(env),
                           clock=lambda: TODAY)
        llm.enqueue(routed("card"))
        done = await turn(engine, "연회비 없는 걸로 하나 만들고 싶어")
        await engine.aclose()
    assert (done.state_snapshot["service"], router_entry(done)["reason"]) == ("card", "llm")
    assert "카드 서버" in llm.requests[0].body["messages"][0]["content"]
    assert len(llm.requests) == 1
    assert remote.requests[0][0]["message"] == "연회비 없는 걸로 하나 만들고 싶어"
