"""The chat lane answers a plain ``POST /v1/agent/chat`` without FastAPI's per-request work;
what a client gets must not depend on it: every request below is sent once as
``application/json`` (the lane) and once as ``application/json; charset=utf-8`` (which the
lane leaves to FastAPI's route), and both answers are compared, status, headers and body."""

from __future__ import annotations

import doctest
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from starlette.responses import Response

from engine.transports import fastjson
from engine.transports.http import ChatRequest, edge, lane
from engine.transports.http.errors import Guard
from tests.server.conftest import Running, ServerThread

CHAT = "/v1/agent/chat"
LANE, ROUTE = "application/json", "application/json; charset=utf-8"


def body(**fields: Any) -> bytes:
    return json.dumps(fields, ensure_ascii=False).encode()


BODIES: list[tuple[str, bytes]] = [
    # (what, body with SID where the session id goes)
    ("a turn", body(session_id="SID", message="엄마한테 1만원 보내줘")),
    ("a blank message", body(session_id="SID", message="   ")),
    ("a message over the limit", body(session_id="SID", message="가" * 4001)),
    ("a request context", body(session_id="SID", message="안녕", context={"channel": "web"})),
    ("a context as JSON text", body(session_id="SID", message="안녕", context='{"a": 1}')),
    ("a context that is not JSON", body(session_id="SID", message="안녕", context="{")),
    ("an unknown field", body(session_id="SID", message="안녕", extra=[1, 2])),
    ("a duplicate key", b'{"session_id": "SID", "message": "a", "message": "\\ud55c"}'),
    ("NaN in the context", b'{"session_id": "SID", "message": "a", "context": {"x": NaN}}'),
    ("a big integer", body(session_id="SID", message="a", context={"x": 2**70})),
    ("a lone surrogate", b'{"session_id": "SID", "message": "\\ud800"}'),
    ("no message", body(session_id="SID")),
    ("a number for a session", b'{"session_id": 7, "message": "a"}'),
    ("a blank session", body(session_id="  ", message="a")),
    ("a list", b'["SID", "a"]'),
    ("null", b"null"),
    ("broken JSON", b'{"session_id": "SID",'),
    ("an empty body", b""),
    ("JSON nested too deep", b"[" * 60_000),
]


def normalised(response: httpx.Response, session: str) -> tuple[int, dict[str, str], Any]:
    """Status, headers and JSON body, without what differs between two runs of a turn."""
    headers = {k: v for k, v in response.headers.items() if k not in ("date", "content-length")}
    payload = json.loads(response.text.replace(session, "SID"))
    trace = payload.get("interaction", {}).get("_trace", {})
    for key in ("turn_id", "total_elapsed_ms"):
        trace.pop(key, None)
    for entry in trace.get("agents", []):
        entry.pop("elapsed_ms", None)
    return response.status_code, headers, payload


@pytest.mark.parametrize(("what", "template"), BODIES, ids=[w for w, _ in BODIES])
async def test_the_lane_answers_as_fastapis_route(server: Running, what: str,
                                                  template: bytes) -> None:
    answers = []
    async with server.client() as client:
        for kind in (LANE, ROUTE):
            session = f"{kind[-5:].strip(';=')}-{len(what)}"
            response = await client.post(CHAT, content=template.replace(b"SID", session.encode()),
                                          headers={"content-type": kind})
            assert response.status_code != 500, response.text
            answers.append(normalised(response, session))
    assert answers[0] == answers[1]


async def test_the_lane_keeps_the_edge_headers(server: Running) -> None:
    async with server.client() as client:
        response = await client.post(CHAT, json={"session_id": "h", "message": "안녕"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    assert response.json()["interaction"]["next_action"]


# -- which requests the lane takes -------------------------------------------------------------

@pytest.fixture
def lane_app() -> Iterator[str]:
    """A FastAPI app whose route and lane answer differently, behind the body Guard."""
    app = FastAPI()

    @app.post("/chat")
    async def route(body: ChatRequest) -> JSONResponse:
        return JSONResponse({"via": "route", "message": body.message})

    async def answer(body: ChatRequest, who: str | None, gone: Any) -> Response:
        return JSONResponse({"via": "lane", "message": body.message, "who": who,
                             "gone": await gone()})

    lane.install(app, "/chat", answer)
    app.add_middleware(Guard, max_body=1000)
    thread = ServerThread(app).start()
    yield thread.url
    thread.stop()


async def pieces(*chunks: bytes) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


WHO_ANSWERS = [
    ("plain JSON", {"json": {"session_id": "s", "message": "m"}}, 200, "lane"),
    ("JSON in chunks", {"content": pieces(b'{"session_id": "s", ', b'"message": "m"}'),
                        "headers": {"content-type": "application/json"}}, 200, "lane"),
    ("upper-case type", {"content": body(session_id="s", message="m"),
                         "headers": {"content-type": "Application/JSON"}}, 200, "lane"),
    ("a charset", {"content": body(session_id="s", message="m"),
                   "headers": {"content-type": ROUTE}}, 200, "route"),
    ("no content type", {"content": body(session_id="s", message="m")}, 422, None),
    ("a JSON subtype", {"content": body(session_id="s", message="m"),
                        "headers": {"content-type": "application/vnd.x+json"}}, 200, "route"),
    ("an invalid body", {"json": {"session_id": "s"}}, 422, None),
]


@pytest.mark.parametrize(("what", "request_kw", "status", "via"), WHO_ANSWERS,
                         ids=[w[0] for w in WHO_ANSWERS])
async def test_the_lane_takes_only_a_plain_valid_json_body(
        lane_app: str, what: str, request_kw: dict[str, Any], status: int,
        via: str | None) -> None:
    async with httpx.AsyncClient(base_url=lane_app) as client:
        response = await client.post("/chat", **request_kw)
    assert response.status_code == status, response.text
    if via is not None:
        assert response.json()["via"] == via
        assert response.json()["message"] == "m"
    else:  # FastAPI's own validation error: the lane never hides it
        assert response.json()["detail"][0]["loc"][0] == "body"


async def test_other_paths_and_methods_pass_the_lane(lane_app: str) -> None:
    async with httpx.AsyncClient(base_url=lane_app) as client:
        assert (await client.get("/chat")).status_code == 405
        assert (await client.post("/other", json={})).status_code == 404


async def test_a_body_over_the_guards_limit_is_refused_in_the_lane(lane_app: str) -> None:
    big = pieces(b'{"session_id": "s", "message": "', b"x" * 2000, b'"}')
    async with httpx.AsyncClient(base_url=lane_app) as client:
        response = await client.post("/chat", content=big,
                                     headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {"error": "body_too_large",
                               "message": "the request body is over 1000 bytes"}


def test_parse_is_fastapis_reading_of_a_body() -> None:
    assert lane.parse(b'{"session_id": "s", "message": "m", "message": "n"}') == \
        ChatRequest(session_id="s", message="n")
    assert lane.parse(b'{"session_id": "s", "message": "\\ud800"}') is None
    assert lane.parse(b"[" * 60_000) is None
    big = lane.parse(b'{"session_id": "s", "message": "m", "context": {"n": 1180591620717411303424,'
                     b' "x": NaN}}')
    assert big is not None and big.context is not None
    assert big.context["n"] == 2**70 and isinstance(big.context["n"], int)


@pytest.mark.parametrize("module", [lane, fastjson, edge], ids=lambda m: m.__name__)
def test_the_docstring_examples_hold(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0
