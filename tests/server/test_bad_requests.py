"""Bad requests get a clear 4xx JSON error (or, for a blank message, a DONE asking for one); a
failing server gets a logged 503 with a JSON body. Never a 500, never a stack trace."""

from __future__ import annotations

import sqlite3
from typing import Any

import httpx
import pytest

from engine.config import Settings
from engine.store import MemoryStore
from tests.server.conftest import MakeServer, Running, chat, sse

CHAT, STREAM, COMPLETED = "/v1/agent/chat", "/v1/agent/chat/stream", "/v1/agent/completed"
TOO_LONG = "가" * 4001


def assert_clean(response: httpx.Response) -> None:
    assert response.status_code != 500
    assert response.headers["content-type"] == "application/json"
    assert "Traceback" not in response.text and 'File "' not in response.text


BAD = [
    # (method, path, request keywords, status, error code, words in the message)
    ("POST", CHAT, {"json": {"message": "hi"}}, 422, "invalid_request", "session_id"),
    ("POST", CHAT, {"json": {"session_id": "", "message": "hi"}}, 422, "invalid_request",
     "session_id"),
    ("POST", CHAT, {"json": {"session_id": "   ", "message": "hi"}}, 422, "invalid_request",
     "blank"),
    ("POST", CHAT, {"json": {"session_id": "x" * 129, "message": "hi"}}, 422, "invalid_request",
     "session_id"),
    ("POST", CHAT, {"json": {"session_id": 7, "message": "hi"}}, 422, "invalid_request",
     "session_id"),
    ("POST", CHAT, {"json": {"session_id": "u"}}, 422, "invalid_request", "message"),
    ("POST", CHAT, {"json": {"session_id": "u", "message": None}}, 422, "invalid_request",
     "message"),
    ("POST", CHAT, {"json": ["u", "hi"]}, 422, "invalid_request", "body"),
    ("POST", CHAT, {"content": b'{"session_id": "u",', "headers": {"content-type":
                                                                   "application/json"}},
     422, "invalid_request", "not valid JSON"),
    ("POST", CHAT, {"content": b"", "headers": {"content-type": "application/json"}},
     422, "invalid_request", "body"),
    ("POST", CHAT, {"json": {"session_id": "u", "message": TOO_LONG}}, 413, "message_too_long",
     "4000"),
    ("POST", CHAT, {"content": b'{"session_id": "u", "message": "' + b"x" * 200_000 + b'"}',
                    "headers": {"content-type": "application/json"}},
     413, "body_too_large", "bytes"),
    ("POST", STREAM, {"json": {"message": "hi"}}, 422, "invalid_request", "session_id"),
    ("POST", STREAM, {"json": {"session_id": "u", "message": TOO_LONG}}, 413,
     "message_too_long", "4000"),
    ("GET", STREAM, {"params": {"message": "hi"}}, 422, "invalid_request", "session_id"),
    ("GET", STREAM, {"params": {"session_id": "u"}}, 422, "invalid_request", "message"),
    ("GET", STREAM, {"params": {"session_id": "", "message": "hi"}}, 422, "invalid_request",
     "session_id"),
    ("GET", STREAM, {"params": {"session_id": "u", "message": TOO_LONG}}, 413,
     "message_too_long", "4000"),
    ("GET", COMPLETED, {}, 422, "invalid_request", "session_id"),
    ("GET", COMPLETED, {"params": {"session_id": ""}}, 422, "invalid_request", "session_id"),
    ("GET", "/v1/agent/nothing", {}, 404, "not_found", "Not Found"),
    ("PUT", CHAT, {"json": {"session_id": "u", "message": "hi"}}, 405, "method_not_allowed",
     "Not Allowed"),
]


@pytest.mark.parametrize("method, path, kw, status, code, words", BAD,
                         ids=[f"{m} {p} {i}" for i, (m, p, *_) in enumerate(BAD)])
async def test_bad_request_gets_a_clear_json_error(client: httpx.AsyncClient, server: Running,
                                                   method: str, path: str, kw: dict[str, Any],
                                                   status: int, code: str, words: str) -> None:
    response = await client.request(method, path, **kw)
    assert_clean(response)
    body = response.json()
    assert (response.status_code, body["error"]) == (status, code), body
    assert words in body["message"]
    assert await server.store.load("u") is None  # nothing ran


async def test_the_limit_is_max_message_chars(make_server: MakeServer) -> None:
    server = make_server(settings=Settings(max_message_chars=20))
    async with server.client() as client:
        ok = await client.post(CHAT, json={"session_id": "u", "message": "엄마한테 1만원 보내줘"})
        too_long = await client.post(CHAT, json={"session_id": "u", "message": "가" * 21})
    assert ok.status_code == 200
    assert (too_long.status_code, too_long.json()["limit"]) == (413, 20)
    assert too_long.json()["message"] == "메시지가 너무 길어요. 20자 이내로 입력해 주세요."


async def test_an_over_long_message_gets_a_done_tagged_context_overflow_everywhere(
        make_server: MakeServer) -> None:
    """The 413 carries the DONE a chat client shows: the refusal with the waiting question
    again, ``CONTEXT_OVERFLOW`` and the session as it was (its READY stays READY, nothing
    ran)."""
    server = make_server(settings=Settings(max_message_chars=20))
    body = {"session_id": "u", "message": "가" * 21}
    async with server.client() as client:
        await client.post(CHAT, json={"session_id": "u", "message": "엄마한테 1만원 보내줘"})
        answers = [await client.post(CHAT, json=body), await client.post(STREAM, json=body),
                   await client.get(STREAM, params=body)]
    for answer in answers:
        assert answer.status_code == 413 and answer.json()["error"] == "message_too_long"
        done = answer.json()["interaction"]
        assert done["message"] == "메시지가 너무 길어요. 20자 이내로 입력해 주세요. " \
            "엄마에게 1만원을 이체할까요?"
        assert done["_trace"]["failure_tags"] == ["CONTEXT_OVERFLOW"]
        assert (done["state_snapshot"]["stage"], done["next_action"]) == ("READY", "CONFIRM")
    record = await server.store.load("u")
    assert record is not None and record.version == 1


@pytest.mark.parametrize("blank", ["", "   ", "\n\t "])
async def test_a_blank_message_is_answered_by_done_and_changes_nothing(
        client: httpx.AsyncClient, server: Running, blank: str) -> None:
    before = await chat(client, "b", "엄마한테 1만원 보내줘")
    interaction = await chat(client, "b", blank)
    asked_again = f"질문을 입력해주세요. {before['message']}"  # the confirmation waits
    assert interaction["message"] == asked_again
    assert interaction["state_snapshot"]["stage"] == before["state_snapshot"]["stage"] == "READY"
    events = await sse(client, "GET", STREAM, params={"session_id": "b", "message": blank})
    assert [name for name, _ in events] == ["DONE"]
    assert events[0][1]["message"] == asked_again
    record = await server.store.load("b")
    assert record is not None and record.version == 1


class BrokenStore(MemoryStore):
    """A store whose disk went away."""

    async def load(self, session_id: str) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    async def completed(self, session_id: str) -> list[dict[str, Any]]:
        raise sqlite3.OperationalError("disk I/O error")


@pytest.fixture
async def broken(make_server: MakeServer) -> Running:
    return make_server(store=BrokenStore())


async def test_a_failing_store_ends_a_chat_turn_with_a_failed_done(broken: Running) -> None:
    async with broken.client() as client:
        response = await client.post(CHAT, json={"session_id": "u", "message": "엄마한테 보내줘"})
        assert_clean(response)
        done = response.json()["interaction"]
        assert response.status_code == 200 and done["_trace"]["error"] == "turn_failed"
        assert done["message"] == "죄송해요, 처리 중 문제가 생겼어요. 잠시 후 다시 시도해 주세요."


@pytest.mark.parametrize("message", ["", "가" * 4001])
async def test_a_refusal_needs_no_store(broken: Running, message: str) -> None:
    """An empty or over-long message is refused with its own text even when the store is
    down: the refusal never needed the session (its DONE shows a blank one)."""
    async with broken.client() as client:
        response = await client.post(CHAT, json={"session_id": "u", "message": message})
    assert_clean(response)
    done = response.json()["interaction"]
    assert "error" not in done["_trace"] and done["state_snapshot"]["flow"] is None
    assert done["message"] in ("질문을 입력해주세요.",
                               "메시지가 너무 길어요. 4000자 이내로 입력해 주세요.")


@pytest.mark.parametrize("method, path, kw", [
    ("GET", COMPLETED, {"params": {"session_id": "u"}}),
    ("GET", "/v1/agent/debug/u", {}),
])
async def test_a_failing_store_gets_503_json_without_a_trace(broken: Running, method: str,
                                                            path: str, kw: dict[str, Any]) -> None:
    async with broken.client() as client:
        response = await client.request(method, path, **kw)
        assert_clean(response)
        body = response.json()
        assert (response.status_code, body["error"]) == (503, "server_error")
        assert "disk" not in body["message"] and len(body["error_id"]) == 8
        assert (await client.get("/healthz")).status_code == 200  # the server lives on


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_failing_store_ends_a_stream_with_a_failed_done(broken: Running,
                                                                method: str) -> None:
    params = {"session_id": "u", "message": "엄마한테 1만원 보내줘"}
    async with broken.client() as client:
        events = await sse(client, method, STREAM,
                           **({"params": params} if method == "GET" else {"json": params}))
    assert [name for name, _ in events] == ["DONE"]
    done = events[0][1]
    assert done["message"] == "죄송해요, 처리 중 문제가 생겼어요. 잠시 후 다시 시도해 주세요."
    assert done["_trace"]["error"] == "turn_failed"
    assert "Traceback" not in str(done)


@pytest.mark.parametrize("method", ["OPTIONS", "PUT", "DELETE", "PATCH"])
async def test_a_405_names_every_method_of_the_path(client: httpx.AsyncClient,
                                                    method: str) -> None:
    """The stream answers GET (EventSource) and POST: a 405 says both, not the first route's."""
    response = await client.request(method, "/v1/agent/chat/stream")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, POST"
    response = await client.request(method, "/v1/agent/chat")
    assert response.status_code == 405 and response.headers["allow"] == "POST"
