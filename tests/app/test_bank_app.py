"""`flowctl serve flows/bank.yaml` with its card service on a second `flowctl serve`: one
session crosses transfer, balance (a real loopback core-banking API) and the remote card
service (tokens from a loopback OpenAI-compatible server, streamed through both servers)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.app.conftest import Server, stream
from tests.conftest import ROOT
from tests.fakes.core_bank import CoreBank
from tests.fakes.llm_servers import FakeLLMServer, FakeReply

FLOWS = ROOT / "flows"
REMOTE_FAILED = "card 서비스가 지금 응답하지 않아요. 잠시 후 다시 시도해 주세요."


@pytest.fixture
def core_bank() -> Iterator[CoreBank]:
    with CoreBank() as bank:
        yield bank


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def card(serve: Callable[..., Server], llm: FakeLLMServer) -> Server:
    return serve(FLOWS / "card.yaml", {"OPENAI_BASE_URL": llm.openai_base_url,
                                       "OPENAI_API_KEY": "sk-local"}, name="card")


@pytest.fixture
def bank(serve: Callable[..., Server], card: Server, core_bank: CoreBank) -> Server:
    return serve(FLOWS / "bank.yaml", {"CARD_SERVICE_URL": card.agent,
                                       "CORE_BANK_URL": core_bank.url}, name="bank")


def done(events: list[tuple[str, object]]) -> dict:
    payload = events[-1][1]
    assert isinstance(payload, dict)
    return payload


def test_one_session_crosses_three_services(bank: Server, core_bank: CoreBank,
                                            llm: FakeLLMServer) -> None:
    first = done(stream(bank, "u1", "엄마한테 1만원 보내줘"))
    assert (first["next_action"], first["state_snapshot"]["service"]) == ("CONFIRM", "transfer")
    assert first["_trace"]["agents"][0] == {
        "agent": "router", "elapsed_ms": 0.0, "success": True, "retries": 0, "error": None,
        "service": "transfer", "reason": "keyword", "keyword": "보내"}
    executed = done(stream(bank, "u1", "확인"))
    assert executed["state_snapshot"]["stage"] == "EXECUTED"
    assert [h["type"] for h in executed["hooks"]] == ["transfer_completed"]

    balance = done(stream(bank, "u1", "잔액 알려줘"))
    assert balance["message"] == "110-123-456789 계좌의 잔액은 125만원이에요."
    assert balance["state_snapshot"]["service"] == "balance"
    assert balance["state_snapshot"]["switched_from"] == "transfer"
    assert core_bank.requests == ["/accounts/main/balance"]

    reply = FakeReply(text="체크카드는 연회비가 없고 신용카드는 할부가 돼요.")
    llm.enqueue(reply)
    events = stream(bank, "u1", "카드 종류 알려줘")
    # relayed one by one, in order, as the model sent them
    assert [p for name, p in events if name == "LLM_TOKEN"] == reply.pieces()
    guide = done(events)
    assert guide["state_snapshot"]["service"] == "card"
    assert guide["message"] == "체크카드는 연회비가 없고 신용카드는 할부가 돼요."

    asked = done(stream(bank, "u1", "체크카드 신청할래"))
    assert (asked["next_action"], asked["ui_hint"]["buttons"]) == ("CONFIRM", ["확인", "취소"])
    applied = done(stream(bank, "u1", "확인"))  # mid-flow: the card service keeps the turn
    assert applied["message"].startswith("체크카드 신청이 접수됐어요")
    assert applied["hooks"] == [{"type": "card_applied", "data": {"kind": "debit"}}]

    history = done(stream(bank, "u1", "총 얼마 보냈어?"))
    assert history["state_snapshot"]["service"] == "transfer"
    assert "총 1만원" in history["message"]

    completed = httpx.get(f"{bank.agent}/completed", params={"session_id": "u1"}).json()
    outcomes = [(t["service"], t["outcome"]) for t in completed["completed"]]
    assert ("transfer", "EXECUTED") in outcomes and ("card", "APPLIED") in outcomes
    assert ("balance", "FOUND") in outcomes


def test_the_json_endpoint_answers_in_the_seed_format(bank: Server) -> None:
    body = httpx.post(f"{bank.agent}/chat", json={"session_id": "j", "message": "잔액 조회"},
                      timeout=30).json()
    assert set(body) == {"interaction", "hooks"}
    assert body["interaction"]["state_snapshot"]["service"] == "balance"


def test_killing_the_card_server_mid_stream_ends_the_turn_cleanly(
        bank: Server, card: Server, llm: FakeLLMServer) -> None:
    llm.enqueue(FakeReply(text=" ".join(["천천히"] * 40), token_interval_sec=0.2))
    events: list[tuple[str, object]] = []
    with httpx.Client(timeout=30) as client:
        from httpx_sse import connect_sse

        with connect_sse(client, "POST", f"{bank.agent}/chat/stream",
                         json={"session_id": "k", "message": "카드 추천해줘"}) as source:
            for sse in source.iter_sse():
                events.append((sse.event, sse.json()))
                if sse.event == "LLM_TOKEN" and card.proc.poll() is None:
                    card.kill()
                    killed = time.monotonic()
                if sse.event == "DONE":
                    break
    assert any(name == "LLM_TOKEN" for name, _ in events)
    assert time.monotonic() - killed < 10  # the app's timeout_sec for card
    final = done(events)
    assert final["message"] == REMOTE_FAILED
    assert final["_trace"]["error"] == "service_unavailable"
    assert final["state_snapshot"]["service"] == "card"
    # the local services keep working
    after = done(stream(bank, "k", "잔액 알려줘"))
    assert after["message"].endswith("125만원이에요.")
