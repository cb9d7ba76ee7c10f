"""`flowctl serve flows/transfer.yaml` on a local OpenAI-compatible server: the transfer
service's conversations go through the real SDK, over HTTP, with no key and no outside network."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT
from tests.fakes.llm_servers import FakeLLMServer, FakeReply


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def served(llm: FakeLLMServer, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "OPENAI_BASE_URL": llm.openai_base_url, "OPENAI_API_KEY": "sk-local",
           "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "50"}
    env.pop("ANTHROPIC_API_KEY", None)
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "cli.py"), "serve", str(ROOT / "flows" / "transfer.yaml"),
         "--port", str(port), "--store", f"sqlite:///{tmp_path}/sessions.db"],
        env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            proc.kill()
            proc.wait()
            pytest.fail(f"flowctl serve did not start:\n{(tmp_path / 'serve.log').read_text()}")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        log.close()


def chat(url: str, session: str, message: str) -> dict:
    response = httpx.post(f"{url}/v1/agent/chat", json={"session_id": session,
                                                         "message": message}, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()["interaction"]


def understanding(intent: str | None, **slots: object) -> FakeReply:
    ops = [{"op": "set", "slot": k, "value": v} for k, v in slots.items()]
    return FakeReply(text=json.dumps({"intent": intent, "confidence": 0.95, "operations": ops},
                                     ensure_ascii=False))


def test_seed_conversations_through_the_openai_sdk(served: str, llm: FakeLLMServer) -> None:
    hello = json.dumps({"intent": None, "confidence": 0.1, "operations": [],
                        "message": "안녕하세요! 무엇을 도와드릴까요?"}, ensure_ascii=False)
    llm.enqueue(FakeReply(text=hello), understanding("transfer", target="어머니", amount=50000))
    assert chat(served, "u", "안녕하세요")["message"] == "안녕하세요! 무엇을 도와드릴까요?"
    assert len(llm.requests) == 1  # one call found no intent and wrote the chat reply

    batch = chat(served, "u", "엄마한테 만원, 용걸이한테 5만원 보내줘")
    assert batch["state_snapshot"]["stage"] == "READY" and "(1/2)" in batch["message"]
    assert chat(served, "u", "확인")["message"].endswith("(2/2)")
    assert chat(served, "u", "확인")["message"] == "2건 이체가 모두 완료됐어요."
    assert len(llm.requests) == 1  # the rules settled every transfer turn

    paraphrase = chat(served, "u", "어머니 계좌에 오만 원 넣어드려")
    assert paraphrase["state_snapshot"]["slots"]["target"] == "어머니"
    assert chat(served, "u", "확인")["state_snapshot"]["stage"] == "EXECUTED"
    assert len(llm.requests) == 2
    total = chat(served, "u", "총 얼마 보냈어?")["message"]
    assert "3건, 총 11만원" in total
    completed = httpx.get(f"{served}/v1/agent/completed", params={"session_id": "u"}).json()
    assert len(completed["completed"] if isinstance(completed, dict) else completed) == 3


def test_a_dead_provider_never_reaches_the_user(served: str, llm: FakeLLMServer) -> None:
    llm.enqueue(*[FakeReply.server_error()] * 12)
    reply = chat(served, "v", "안녕하세요")
    assert reply["message"].startswith("지금은 답을 준비하는 데")  # told, honestly
    assert "무엇을 도와드릴까요?" in reply["message"]
    assert any(a.get("fallback") for a in reply["_trace"]["agents"])
