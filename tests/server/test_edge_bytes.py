"""The edge middleware's own answers, byte for byte: the refusals of a foreign Host and of a
cross-site page, the security headers on them and on an answered chat, and the Guard letting
percent-encoded Korean through while it refuses what is not UTF-8."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from engine.compiler.compiled import CompiledService
from engine.config import Settings
from engine.transports.http.edge import API_CSP
from tests.server.test_edge import Asgi

CHAT, COMPLETED = "/v1/agent/chat", "/v1/agent/completed"
SECURITY = {"x-content-type-options": "nosniff", "referrer-policy": "no-referrer",
            "x-frame-options": "DENY", "content-security-policy": API_CSP}


def security_headers(headers: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k in SECURITY}


@pytest.mark.parametrize("headers, status, body", [
    ({"Host": "evil.example"}, 400,
     b'{"error":"invalid_host","message":"the Host header names no host this server answers '
     b'for; see --allowed-host"}'),
    ({"Origin": "https://evil.example"}, 403,
     b'{"error":"cross_site","message":"a request from another site\'s page cannot start a '
     b'turn; allow its origin with --cors-origin"}'),
], ids=["foreign host", "cross-site page"])
async def test_a_refused_request_gets_its_json_error_byte_for_byte(
        transfer: CompiledService, headers: dict[str, str], status: int, body: bytes) -> None:
    async with Asgi(transfer, Settings()).client() as client:
        response = await client.post(CHAT, json={"session_id": "u", "message": "안녕"},
                                     headers=headers)
    assert (response.status_code, response.content) == (status, body)
    assert response.headers["content-type"] == "application/json"
    assert response.headers["content-length"] == str(len(response.content))
    assert security_headers(dict(response.headers)) == SECURITY


@pytest.mark.parametrize("origin, host", [("http://127.0.0.1", "127.0.0.1"),
                                          ("http://localhost:8000", "localhost:8000")])
async def test_a_same_origin_page_may_chat(transfer: CompiledService, origin: str,
                                           host: str) -> None:
    async with Asgi(transfer, Settings()).client() as client:
        response = await client.post(CHAT, json={"session_id": "u", "message": "안녕"},
                                     headers={"Origin": origin, "Host": host,
                                              "Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 200, response.text
    assert security_headers(dict(response.headers)) == SECURITY


@pytest.mark.parametrize("query, answer", [
    ("session_id=%EC%97%84%EB%A7%88", "엄마"),  # percent-encoded UTF-8
    ("session_id=a+b", "a b"),
    ("session_id=%FF", None),  # not UTF-8: 422
])
async def test_the_guard_decodes_only_what_needs_decoding(transfer: CompiledService,
                                                          query: str, answer: str | None) -> None:
    async with Asgi(transfer, Settings()).client() as client:
        response = await client.get(f"{COMPLETED}?{query}")
    if answer is None:
        assert response.status_code == 422
        assert response.json()["message"] == ("the query string is not valid UTF-8 once "
                                               "percent-decoded")
    else:  # decoded: the id the 404 names (no session has it) is the decoded one
        assert response.status_code == 404, response.text
        assert response.json()["message"] == f"no session '{answer}'"


async def chunks(*pieces: bytes) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece


UM = "엄".encode()  # three bytes


@pytest.mark.parametrize("pieces, status", [
    ((b'{"session_id": "u", "message": "', UM[:1], UM[1:2], UM[2:] + b'"}'), 200),
    ((b'{"session_id": "u", "message": "', UM[:2], b'"}'), 422),  # cut short: not UTF-8
    ((b'{"session_id": "u", "message": "\xed', b'\xa0\x80"}'), 422),  # a surrogate
    ((b'{"session_id": "u", "message": "', UM[:2]), 422),  # the body ends mid-character
], ids=["split character", "cut character", "encoded surrogate", "unfinished at the end"])
async def test_a_chunked_body_is_checked_as_utf8_across_chunks(
        transfer: CompiledService, pieces: tuple[bytes, ...], status: int) -> None:
    async with Asgi(transfer, Settings()).client() as client:
        response = await client.post(CHAT, content=chunks(*pieces),
                                     headers={"content-type": "application/json"})
    assert response.status_code == status, response.text
    if status == 422:
        assert response.json() == {"error": "invalid_request",
                                   "message": "the body is not valid UTF-8"}
    else:
        assert response.json()["interaction"]["message"]
