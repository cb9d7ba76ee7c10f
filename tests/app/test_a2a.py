"""A2A both ways on loopback, with the official a2a-sdk's own client and server: the SDK's
client completes a transfer with a real `flowctl serve`, and a flowctl app routes a
message to an agent served by the SDK."""

from __future__ import annotations

import json
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from a2a.client import ClientConfig, create_client
from a2a.helpers import get_message_text, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandlerV2
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskState,
)
from google.protobuf.json_format import MessageToDict
from httpx_sse import connect_sse
from starlette.applications import Starlette

from engine.app import load_app
from engine.app.engine import AppEngine
from engine.config import Settings
from engine.runtime.values.events import Done, LlmToken
from engine.store import MemoryStore
from tests.app.conftest import Server
from tests.conftest import ROOT
from tests.fakes.llm_servers import FakeLLMServer, FakeReply


async def send(client, context: str, text: str) -> list:  # noqa: ANN001 - the SDK's Client
    request = SendMessageRequest(message=Message(role=Role.ROLE_USER, parts=[Part(text=text)],
                                                 message_id=uuid.uuid4().hex,
                                                 context_id=context))
    return [r async for r in client.send_message(request)]


def final(responses: list) -> tuple[int, str, dict]:
    status = next(r.status_update.status for r in reversed(responses)
                  if r.HasField("status_update"))
    data = next(MessageToDict(p.data) for p in status.message.parts if p.HasField("data"))
    return status.state, get_message_text(status.message).split("\n")[0], data


@pytest.fixture
def transfer(serve: Callable[..., Server]) -> Server:
    return serve(ROOT / "flows" / "transfer.yaml", name="transfer")


async def test_the_sdk_client_completes_a_transfer_over_message_stream(transfer: Server) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client = await create_client(transfer.url, ClientConfig(streaming=True,
                                                                httpx_client=http))
        card = httpx.get(f"{transfer.url}/.well-known/agent-card.json").json()
        assert card["name"] == "transfer" and card["capabilities"]["streaming"] is True
        assert {s["id"] for s in card["skills"]} == {"transfer", "balance", "history"}
        state, text, done = final(await send(client, "ctx-1", "엄마한테 1만원 보내줘"))
        assert state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert text == "엄마에게 1만원을 이체할까요?"
        assert done["next_action"] == "CONFIRM" and done["ui_hint"]["buttons"] == ["확인", "취소"]
        state, text, done = final(await send(client, "ctx-1", "확인"))
        assert state == TaskState.TASK_STATE_COMPLETED
        assert text == "엄마에게 1만원 이체가 완료됐어요."
        assert [h["type"] for h in done["hooks"]] == ["transfer_completed"]
        await client.close()
    completed = httpx.get(f"{transfer.agent}/completed", params={"session_id": "ctx-1"}).json()
    assert [t["outcome"] for t in completed["completed"]] == ["EXECUTED"]


def test_a2a_0_3_message_send_is_answered(transfer: Server) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
        "role": "user", "kind": "message", "messageId": uuid.uuid4().hex, "contextId": "old-1",
        "parts": [{"kind": "text", "text": "엄마한테 1만원 보내줘"}]}}}
    answer = httpx.post(f"{transfer.url}/a2a", json=body, timeout=30).json()
    assert "result" in answer, answer
    assert "엄마에게 1만원을 이체할까요?" in json.dumps(answer["result"], ensure_ascii=False)


class Echo(AgentExecutor):
    """The SDK's simplest agent: one message back."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await event_queue.enqueue_event(new_text_message(f"메아리: {context.get_user_input()}",
                                                         context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        pass


@pytest.fixture
def echo_agent() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    card = AgentCard(name="echo", description="echo", version="1",
                     supported_interfaces=[AgentInterface(protocol_binding="JSONRPC",
                                                          protocol_version="1.0",
                                                          url=f"{url}/rpc")],
                     capabilities=AgentCapabilities(streaming=True),
                     default_input_modes=["text/plain"], default_output_modes=["text/plain"],
                     skills=[AgentSkill(id="echo", name="echo", description="echo", tags=[])])
    handler = DefaultRequestHandlerV2(Echo(), InMemoryTaskStore(), card)
    app = Starlette(routes=[*create_agent_card_routes(card),
                            *create_jsonrpc_routes(handler, "/rpc")])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        try:
            httpx.get(f"{url}/.well-known/agent-card.json", timeout=1)
            break
        except httpx.TransportError:
            threading.Event().wait(0.05)
    yield url
    server.should_exit = True
    thread.join(timeout=10)


async def test_an_app_routes_a_message_to_an_sdk_agent(tmp_path: Path, echo_agent: str) -> None:
    path = tmp_path / "app.yaml"
    path.write_text(f"""app: t
services:
  transfer: {{flow: {ROOT / 'flows' / 'transfer.yaml'}, keywords: [보내]}}
  echo: {{a2a: '${{ECHO_URL}}', keywords: [메아리]}}
default: transfer
""", encoding="utf-8")
    env = {"ECHO_URL": echo_agent}
    engine = AppEngine(load_app(path, env), store=MemoryStore(), settings=Settings(env=env))
    events = [e async for e in engine.turn("s", "메아리 안녕")]
    done = events[-1]
    assert isinstance(done, Done) and done.message == "메아리: 메아리 안녕"
    assert done.state_snapshot["service"] == "echo"
    done = [e async for e in engine.turn("s", "엄마한테 1만원 보내줘")][-1]
    assert done.next_action == "CONFIRM" and done.state_snapshot["service"] == "transfer"
    await engine.aclose()
    assert not any(isinstance(e, LlmToken) for e in events)


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def card(serve: Callable[..., Server], llm: FakeLLMServer) -> Server:
    return serve(ROOT / "flows" / "card.yaml", {"OPENAI_BASE_URL": llm.openai_base_url,
                                                "OPENAI_API_KEY": "sk-local"}, name="card")


async def test_tokens_stream_as_artifact_chunks(card: Server, llm: FakeLLMServer) -> None:
    reply = FakeReply(text="체크카드는 연회비가 없어요.")
    llm.enqueue(reply)
    async with httpx.AsyncClient(timeout=30) as http:
        client = await create_client(card.url, ClientConfig(streaming=True, httpx_client=http))
        responses = await send(client, "c-1", "카드 혜택 알려줘")
        await client.close()
    chunks = [p.text for r in responses if r.HasField("artifact_update")
              for p in r.artifact_update.artifact.parts]
    assert chunks == reply.pieces()
    appended = [r.artifact_update.append for r in responses if r.HasField("artifact_update")]
    assert appended == [False] + [True] * (len(chunks) - 1)


async def test_an_app_holds_a_flowctl_a2a_agent(tmp_path: Path, card: Server,
                                               llm: FakeLLMServer) -> None:
    path = tmp_path / "app.yaml"
    path.write_text(f"""app: t
services:
  transfer: {{flow: {ROOT / 'flows' / 'transfer.yaml'}, keywords: [보내]}}
  card: {{a2a: '${{CARD_AGENT}}', keywords: [카드]}}
default: transfer
""", encoding="utf-8")
    env = {"CARD_AGENT": card.url}
    reply = FakeReply(text="신용카드는 할부가 돼요.")
    llm.enqueue(reply)
    engine = AppEngine(load_app(path, env), store=MemoryStore(), settings=Settings(env=env))
    events = [e async for e in engine.turn("s", "카드 혜택 알려줘")]
    assert [e.text for e in events if isinstance(e, LlmToken)] == reply.pieces()
    done = events[-1]
    assert isinstance(done, Done) and done.message == "신용카드는 할부가 돼요."
    assert done.state_snapshot["flow"] == "guide"  # the agent's own DONE, taken whole
    done = [e async for e in engine.turn("s", "체크카드 신청할래")][-1]
    assert done.next_action == "CONFIRM" and done.ui_hint["buttons"] == ["확인", "취소"]
    done = [e async for e in engine.turn("s", "확인")][-1]  # mid-flow: stays with card
    assert done.state_snapshot["stage"] == "APPLIED"
    await engine.aclose()


async def test_a_dead_a2a_agent_gives_a_clear_done(tmp_path: Path) -> None:
    path = tmp_path / "app.yaml"
    path.write_text(f"""app: t
services:
  transfer: {{flow: {ROOT / 'flows' / 'transfer.yaml'}, keywords: [보내]}}
  card: {{a2a: 'http://127.0.0.1:9', keywords: [카드], timeout_sec: 2}}
default: transfer
""", encoding="utf-8")
    engine = AppEngine(load_app(path, {}), store=MemoryStore(), settings=Settings())
    done = [e async for e in engine.turn("s", "카드 신청")][-1]
    assert done.message == "card 서비스가 지금 응답하지 않아요. 잠시 후 다시 시도해 주세요."
    assert done.trace["error"] == "service_unavailable"
    await engine.aclose()


def test_a2a_0_3_message_stream_streams(transfer: Server) -> None:
    body = {"jsonrpc": "2.0", "id": 2, "method": "message/stream", "params": {"message": {
        "role": "user", "kind": "message", "messageId": uuid.uuid4().hex, "contextId": "old-2",
        "parts": [{"kind": "text", "text": "엄마한테 1만원 보내줘"}]}}}
    with httpx.Client(timeout=30) as client, connect_sse(
            client, "POST", f"{transfer.url}/a2a", json=body) as source:
        frames = [json.loads(sse.data) for sse in source.iter_sse()]
    assert frames and all(f.get("id") == 2 and "result" in f for f in frames), frames
    assert "엄마에게 1만원을 이체할까요?" in json.dumps(frames[-1], ensure_ascii=False)
