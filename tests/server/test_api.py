"""Every endpoint of the chat API against a real uvicorn server."""

from __future__ import annotations

import doctest

import httpx
import pytest

from engine.transports import http
from engine.transports import sse as sse_module
from engine.transports.http import ChatResponse, CompletedResponse, DebugResponse
from tests.server.conftest import ALL_DONE, BATCH, MakeServer, Running, chat, sse

EVENT_NAMES = {"AGENT_START", "LLM_TOKEN", "LLM_DONE", "AGENT_DONE", "TASK_PROGRESS", "DONE"}
DONE_FIELDS = {"message", "next_action", "ui_hint", "state_snapshot", "hooks", "_trace",
               "requires_confirmation", "next_suggested_actions"}
ORCHESTRATOR_FIELDS = {"final_response", "selected_agents", "action_requests",
                       "confidence_score"}  # documented; sent by `response: orchestrator` only


async def test_chat_answers_interaction_and_hooks(client: httpx.AsyncClient) -> None:
    first = await client.post("/v1/agent/chat",
                              json={"session_id": "u1", "message": "엄마한테 1만원 보내줘"})
    assert first.status_code == 200
    body = ChatResponse.model_validate(first.json())
    assert set(first.json()["interaction"]) == DONE_FIELDS
    assert (body.interaction.next_action, body.interaction.ui_hint.buttons) == \
        ("CONFIRM", ["확인", "취소"])
    assert body.interaction.state_snapshot.stage == "READY"
    assert body.interaction.state_snapshot.slots == {"target": "엄마", "amount": 10000,
                                                     "when": None}
    assert body.interaction.message == "엄마에게 1만원을 이체할까요?"
    assert body.hooks == []

    second = ChatResponse.model_validate(
        (await client.post("/v1/agent/chat", json={"session_id": "u1", "message": "확인"})).json())
    assert second.interaction.state_snapshot.stage == "EXECUTED"
    assert [h.type for h in second.hooks] == ["transfer_completed"]
    assert second.hooks == second.interaction.hooks
    assert second.interaction.trace.turn_id and second.interaction.trace.agents


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_stream_runs_the_batch_conversation(client: httpx.AsyncClient,
                                                  method: str) -> None:
    def request(message: str) -> dict:
        params = {"session_id": f"stream-{method}", "message": message}
        return {"params": params} if method == "GET" else {"json": params}

    turns = [await sse(client, method, "/v1/agent/chat/stream", **request(m))
             for m in (BATCH, "확인", "확인")]
    for events in turns:
        names = [name for name, _ in events]
        assert set(names) <= EVENT_NAMES
        assert names[-1] == "DONE" and names.count("DONE") == 1
        assert set(events[-1][1]) == DONE_FIELDS
        ChatResponse.model_validate({"interaction": events[-1][1], "hooks": []})
    assert turns[0][-1][1]["message"] == "총 2건이 요청됐어요. 먼저 엄마에게 1만원 보낼까요? (1/2)"
    progress = [data for name, data in turns[1] if name == "TASK_PROGRESS"]
    assert progress == [{"index": 1, "total": 2,
                         "slots": {"target": "엄마", "amount": 10000, "when": None}}]
    assert ("AGENT_START", {"agent": "send_money", "label": "이체 실행 중"}) in turns[2]
    done = turns[2][-1][1]
    assert (done["message"], done["state_snapshot"]["stage"]) == (ALL_DONE, "EXECUTED")


async def test_stream_headers_and_frames(client: httpx.AsyncClient) -> None:
    async with client.stream("GET", "/v1/agent/chat/stream",
                             params={"session_id": "h", "message": "엄마한테 1만원 보내줘"}) as r:
        raw = (await r.aread()).decode()
    assert r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["cache-control"] == "no-cache"
    assert r.headers["x-accel-buffering"] == "no"
    frames = [f for f in raw.split("\r\n\r\n") if f]
    assert "retry: 1000" in frames[0]  # a dropped stream comes back soon: it replays
    ids = [line.removeprefix("id: ") for f in frames for line in f.split("\r\n")
           if line.startswith("id: ")]
    assert len(ids) == len(frames) and ids[-1].endswith(f"-{len(frames) - 1}")
    assert 'data: {"agent":"understand","label":"정보 추출 중"}' in raw  # JSON, Korean unescaped
    assert frames[-1].split("\r\n")[1] == "event: DONE"


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_reconnecting_event_source_gets_204_and_runs_nothing(
        client: httpx.AsyncClient, server: Running, method: str) -> None:
    params = {"session_id": "again", "message": "엄마한테 1만원 보내줘"}
    kw = {"params": params} if method == "GET" else {"json": params}
    response = await client.request(method, "/v1/agent/chat/stream",
                                    headers={"Last-Event-ID": "abc-3"}, **kw)
    assert (response.status_code, response.content) == (204, b"")
    assert await server.store.load("again") is None


async def test_completed_lists_finished_tasks_oldest_first(client: httpx.AsyncClient) -> None:
    for message in (BATCH, "확인", "취소", "엄마한테 3만원 보내줘", "확인"):
        await chat(client, "c1", message)
    response = await client.get("/v1/agent/completed", params={"session_id": "c1"})
    body = CompletedResponse.model_validate(response.json())
    assert body.session_id == "c1"
    assert [(c["outcome"], c["slots"]["target"]) for c in body.completed] == \
        [("EXECUTED", "엄마"), ("CANCELLED", "용걸이"), ("EXECUTED", "엄마")]
    await chat(client, "c2", "안녕")
    empty = await client.get("/v1/agent/completed", params={"session_id": "c2"})
    assert empty.json() == {"session_id": "c2", "completed": []}
    nobody = await client.get("/v1/agent/completed", params={"session_id": "nobody"})
    assert nobody.status_code == 404  # as another caller's session: existence is not told


async def test_debug_shows_state_memory_and_completed(client: httpx.AsyncClient) -> None:
    await chat(client, "d1", "엄마한테 1만원 보내줘")
    await chat(client, "d1", "확인")
    response = await client.get("/v1/agent/debug/d1")
    body = DebugResponse.model_validate(response.json())
    # two turns, plus the action journal's write before the transfer and the note that the
    # transfer's reply reached the client (it is not told again)
    assert (body.version, body.state["stage"]) == (4, "EXECUTED")
    assert "untold" not in body.state
    assert [m.get("content") for m in body.memory.raw_history][::2] == \
        ["엄마한테 1만원 보내줘", "확인"]
    assert [c["outcome"] for c in body.completed] == ["EXECUTED"]
    missing = await client.get("/v1/agent/debug/nobody")
    assert (missing.status_code, missing.json()["error"]) == (404, "not_found")


async def test_debug_is_404_and_undocumented_without_dev_mode(make_server: MakeServer) -> None:
    server = make_server(dev_mode=False)
    async with server.client() as client:
        await chat(client, "d2", "엄마한테 1만원 보내줘")
        response = await client.get("/v1/agent/debug/d2")
        assert (response.status_code, response.json()["error"]) == (404, "not_found")
        assert "/v1/agent/debug/{session_id}" not in (await client.get("/openapi.json")).json()[
            "paths"]
        assert (await client.get("/healthz")).json()["dev_mode"] is False


async def test_healthz(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.json() == {"status": "ok", "service": "transfer", "dev_mode": True,
                               "max_message_chars": 4000}


async def test_openapi_documents_typed_models(client: httpx.AsyncClient) -> None:
    docs = await client.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
    spec = (await client.get("/openapi.json")).json()
    paths = spec["paths"]
    assert set(paths) >= {"/v1/agent/chat", "/v1/agent/chat/stream", "/v1/agent/completed",
                          "/v1/agent/debug/{session_id}", "/healthz"}
    assert set(paths["/v1/agent/chat/stream"]) == {"get", "post"}
    chat_op = paths["/v1/agent/chat"]["post"]
    assert chat_op["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ChatRequest")
    assert chat_op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"] \
        .endswith("/ChatResponse")
    assert {"413", "422", "503"} <= set(chat_op["responses"])
    query = {p["name"] for p in paths["/v1/agent/chat/stream"]["get"]["parameters"]}
    assert query == {"session_id", "message", "context"}
    assert "text/event-stream" in paths["/v1/agent/chat/stream"]["get"]["responses"]["200"][
        "content"]
    interaction = spec["components"]["schemas"]["Interaction"]["properties"]
    assert set(interaction) == DONE_FIELDS | ORCHESTRATOR_FIELDS


@pytest.mark.parametrize("path, kind, needle", [
    ("/", "text/html", "<title>flowctl playground</title>"),
    ("/playground/app.js", "javascript", "EventSource"),
    ("/playground/style.css", "text/css", "#timeline"),
])
async def test_the_playground_is_served_from_the_package(client: httpx.AsyncClient, path: str,
                                                         kind: str, needle: str) -> None:
    response = await client.get(path)
    assert response.status_code == 200
    assert kind in response.headers["content-type"] and needle in response.text


@pytest.mark.parametrize("module", [http, sse_module])
def test_docstring_examples(module: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(http.PLAYGROUND.parents[2])
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert (result.failed, result.attempted > 0) == (0, True)
