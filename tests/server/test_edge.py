"""The edge in front of the routes: loopback-only without keys, the Host check, rate limits,
security headers, and text that is not valid Unicode (422, never a turn)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from engine.compiler.compiled import CompiledService
from engine.config import RateLimit, Settings
from engine.runtime.engine import Engine
from engine.runtime.values.session import owned_key
from engine.store import MemoryStore
from engine.transports.http import create_app
from engine.transports.http.auth import principal_of_key
from engine.transports.http.edge import API_CSP, PAGE_CSP
from engine.transports.http.playground_api import DOCS_CSP
from tests.server.conftest import MakeServer, Running, sse
from tests.server.test_auth import KEY_A, KEY_B, SEND, bearer

CHAT, STREAM, COMPLETED = "/v1/agent/chat", "/v1/agent/chat/stream", "/v1/agent/completed"
REMOTE = "203.0.113.7"  # TEST-NET-3: never a real client; only ever an ASGI scope value here


class Asgi:
    """The app driven in-process (httpx.ASGITransport), so a test can be any client address
    without any traffic leaving loopback."""

    def __init__(self, transfer: CompiledService, settings: Settings, *,
                 host: str = "127.0.0.1") -> None:
        self.store = MemoryStore()
        engine = Engine(transfer, store=self.store, settings=settings)
        self.app = create_app(engine, settings=settings, host=host)

    def client(self, ip: str = "127.0.0.1", base_url: str = "http://127.0.0.1",
               **kw: Any) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=self.app, client=(ip, 50000))
        return httpx.AsyncClient(transport=transport, base_url=base_url, **kw)


async def chat_status(client: httpx.AsyncClient, session_id: str = "u") -> int:
    response = await client.post(CHAT, json={"session_id": session_id, "message": SEND})
    return response.status_code


# -- no keys: loopback clients only -------------------------------------------------------------

@pytest.mark.parametrize("ip", ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])
async def test_without_keys_loopback_clients_are_answered(transfer: CompiledService,
                                                          ip: str) -> None:
    async with Asgi(transfer, Settings()).client(ip) as client:
        assert await chat_status(client) == 200


@pytest.mark.parametrize("ip", [REMOTE, "10.1.2.3", "192.168.0.5", "::ffff:10.0.0.1",
                                "2001:db8::1", "not-an-ip"])
@pytest.mark.parametrize("path", ["/healthz", "/", CHAT, "/openapi.json"])
async def test_without_keys_other_clients_get_403(transfer: CompiledService, ip: str,
                                                  path: str) -> None:
    server = Asgi(transfer, Settings())
    async with server.client(ip) as client:
        response = await client.request("POST" if path == CHAT else "GET", path,
                                        json={"session_id": "u", "message": SEND})
    assert (response.status_code, response.json()["error"]) == (403, "loopback_only")
    assert "FLOWCTL_API_KEYS" in response.json()["message"]
    assert await server.store.load("u") is None


async def test_allow_anonymous_answers_any_client(transfer: CompiledService) -> None:
    async with Asgi(transfer, Settings(allow_anonymous=True)).client(REMOTE) as client:
        assert await chat_status(client) == 200


async def test_with_keys_any_client_with_a_key_is_answered(transfer: CompiledService) -> None:
    async with Asgi(transfer, Settings(api_keys=(KEY_A,))).client(REMOTE) as client:
        assert await chat_status(client) == 401
        client.headers.update(bearer(KEY_A))
        assert await chat_status(client) == 200


# -- Host ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("host, status", [
    ("127.0.0.1:8000", 200), ("localhost:8000", 200), ("[::1]:8000", 200), ("LOCALHOST", 200),
    ("evil.example", 400), ("127.0.0.1.nip.io:8000", 400), ("", 400)])
async def test_a_loopback_server_answers_loopback_host_names_only(
        transfer: CompiledService, host: str, status: int) -> None:
    """A DNS name rebound to 127.0.0.1 cannot reach a local server through a browser."""
    async with Asgi(transfer, Settings()).client() as client:
        response = await client.get("/healthz", headers={"Host": host})
    assert response.status_code == status
    if status == 400:
        assert response.json()["error"] == "invalid_host"


@pytest.mark.parametrize("host, status", [("api.example.com", 200), ("API.example.com:443", 200),
                                          ("eu.chat.example.com", 200), ("localhost", 200),
                                          ("10.0.0.8:8000", 200), ("evil.example", 400)])
async def test_allowed_hosts_on_a_public_bind(transfer: CompiledService, host: str,
                                              status: int) -> None:
    settings = Settings(api_keys=(KEY_A,), allowed_hosts=("api.example.com", "*.chat.example.com"))
    async with Asgi(transfer, settings, host="10.0.0.8").client() as client:
        response = await client.get("/healthz", headers={"Host": host})
    assert response.status_code == status


async def test_a_public_bind_without_allowed_hosts_answers_any_host(
        transfer: CompiledService) -> None:
    async with Asgi(transfer, Settings(api_keys=(KEY_A,)), host="0.0.0.0").client() as client:
        response = await client.get("/healthz", headers={"Host": "whatever.example"})
    assert response.status_code == 200


# -- rate limits --------------------------------------------------------------------------------

THREE_A_MINUTE = RateLimit(3, 60.0)


def limited(limit: RateLimit = THREE_A_MINUTE, **kw: Any) -> Settings:
    return Settings(api_keys=(KEY_A, KEY_B), rate_limit=limit, **kw)


async def test_a_principal_over_its_rate_gets_429_with_retry_after(
        make_server: MakeServer) -> None:
    server = make_server(settings=limited())
    async with server.client(headers=bearer(KEY_A)) as a, \
            server.client(headers=bearer(KEY_B)) as b:
        assert [await chat_status(a, "ra") for _ in range(3)] == [200] * 3
        refused = await a.post(CHAT, json={"session_id": "ra", "message": "확인"})
        assert refused.status_code == 429
        assert refused.json()["error"] == "rate_limited"
        assert 1 <= int(refused.headers["retry-after"]) <= 20  # one token: 60 s / 3
        assert refused.json()["retry_after"] == int(refused.headers["retry-after"])
        stream = await a.get(STREAM, params={"session_id": "ra", "message": "확인"})
        assert stream.status_code == 429
        assert await chat_status(b, "rb") == 200  # each principal has its own bucket
        assert (await a.get("/healthz")).status_code == 200  # health is never limited
    record = await server.store.load(owned_key("ra", principal_of_key(KEY_A)))
    assert record is not None and record.data["stage"] == "READY"  # the refused 확인 did not run


async def test_the_bucket_refills(transfer: CompiledService) -> None:
    server = Asgi(transfer, limited(RateLimit(2, 0.2)))
    async with server.client(headers=bearer(KEY_A)) as client:
        assert [await chat_status(client) for _ in range(3)] == [200, 200, 429]
        await asyncio.sleep(0.15)
        assert await chat_status(client) == 200


async def test_guessing_keys_is_rate_limited_by_address(transfer: CompiledService) -> None:
    server = Asgi(transfer, limited())
    async with server.client() as client:
        statuses = [(await client.post(CHAT, headers=bearer(f"guess-{i:012d}-xxxx"),
                                       json={})).status_code for i in range(4)]
        login = await client.post("/v1/agent/login", json={"key": KEY_A})
    assert statuses == [401, 401, 401, 429] and login.status_code == 429


async def test_anonymous_clients_are_limited_by_address_except_loopback(
        transfer: CompiledService) -> None:
    server = Asgi(transfer, Settings(allow_anonymous=True, rate_limit=RateLimit(3, 60.0)))
    async with server.client(REMOTE) as remote, server.client() as local:
        assert [await chat_status(remote) for _ in range(4)] == [200, 200, 200, 429]
        # the operator's own machine (and bench/http.py) is not held back
        assert [await chat_status(local, "l") for _ in range(6)] == [200] * 6


# -- security headers ---------------------------------------------------------------------------

COMMON = {"x-content-type-options": "nosniff", "referrer-policy": "no-referrer",
          "x-frame-options": "DENY"}


@pytest.mark.parametrize("method, path, kw, csp", [
    ("GET", "/", {}, PAGE_CSP),
    ("GET", "/playground/app.js", {}, API_CSP),
    ("GET", "/healthz", {}, API_CSP),
    ("POST", CHAT, {"json": {"session_id": "h", "message": SEND}}, API_CSP),
    ("POST", CHAT, {"json": {}}, API_CSP),
    ("GET", "/nowhere", {}, API_CSP),
    ("POST", CHAT, {"content": b"x" * 200_000}, API_CSP),
    ("GET", "/docs", {}, DOCS_CSP),  # its own: local scripts and FastAPI's inline one
])
async def test_every_response_carries_the_security_headers(
        client: httpx.AsyncClient, method: str, path: str, kw: dict[str, Any],
        csp: str | None) -> None:
    response = await client.request(method, path, **kw)
    assert {k: response.headers.get(k) for k in COMMON} == COMMON
    assert response.headers.get("content-security-policy") == csp


async def test_a_stream_and_a_refusal_carry_them_too(make_server: MakeServer) -> None:
    server = make_server(settings=Settings(api_keys=(KEY_A,)))
    async with server.client() as client:
        refused = await client.get(STREAM, params={"session_id": "s", "message": SEND})
        async with client.stream("GET", STREAM, headers=bearer(KEY_A),
                                 params={"session_id": "s", "message": SEND}) as stream:
            await stream.aread()
    for response in (refused, stream):
        assert {k: response.headers.get(k) for k in COMMON} == COMMON
        assert response.headers["content-security-policy"] == API_CSP


def test_the_page_policy_allows_only_its_own_files() -> None:
    rules = dict(rule.strip().split(" ", 1) for rule in PAGE_CSP.split(";"))
    assert rules["default-src"] == "'none'" and rules["frame-ancestors"] == "'none'"
    assert {rules[k] for k in ("script-src", "style-src", "connect-src")} == {"'self'"}


# -- text that is not valid Unicode -------------------------------------------------------------

JSON = {"content-type": "application/json"}
NOT_UNICODE = [
    # (method, path, request keywords, words in the message)
    ("POST", CHAT, {"content": b'{"session_id": "u", "message": "\\ud800"}', "headers": JSON},
     "surrogate"),
    ("POST", CHAT, {"content": b'{"session_id": "u", "message": "a\\udfffb"}', "headers": JSON},
     "surrogate"),
    ("POST", CHAT, {"content": b'{"session_id": "\\ud83d", "message": "hi"}', "headers": JSON},
     "surrogate"),
    ("POST", STREAM, {"content": b'{"session_id": "u", "message": "\\udc80"}', "headers": JSON},
     "surrogate"),
    ("POST", CHAT, {"content": b'{"session_id": "u", "message": "\xff\xfe"}', "headers": JSON},
     "not valid UTF-8"),
    ("POST", CHAT, {"content": b'{"session_id": "u", "message": "\xed\xa0\x80"}',
                    "headers": JSON}, "not valid UTF-8"),
    ("POST", STREAM, {"content": b'{"session_id": "\xc3", "message": "hi"}', "headers": JSON},
     "not valid UTF-8"),
    ("GET", f"{STREAM}?session_id=u&message=%FF", {}, "query string is not valid UTF-8"),
    ("GET", f"{STREAM}?session_id=u&message=%ED%A0%80", {}, "query string is not valid UTF-8"),
    ("GET", f"{COMPLETED}?session_id=%C3%28", {}, "query string is not valid UTF-8"),
    ("GET", "/v1/agent/debug/%FF%FE", {}, "path is not valid UTF-8"),
]


@pytest.mark.parametrize("method, path, kw, words", NOT_UNICODE,
                         ids=[f"{i}" for i in range(len(NOT_UNICODE))])
async def test_text_that_is_not_unicode_is_422(client: httpx.AsyncClient, server: Running,
                                               method: str, path: str, kw: dict[str, Any],
                                               words: str) -> None:
    response = await client.request(method, path, **kw)
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error"] == "invalid_request" and words in body["message"], body
    assert await server.store.load("u") is None  # nothing ran


async def test_a_chunked_body_that_is_not_utf8_is_422(client: httpx.AsyncClient) -> None:
    async def body() -> Any:
        yield b'{"session_id": "u", "message": "'
        yield "가".encode()[:2]  # a character cut in two...
        yield b'"}'  # ...and never finished
    response = await client.post(CHAT, content=body(), headers=JSON)
    assert (response.status_code, response.json()["error"]) == (422, "invalid_request")


async def test_valid_korean_split_across_chunks_is_fine(client: httpx.AsyncClient) -> None:
    text = "엄마한테 1만원 보내줘".encode()

    async def body() -> Any:
        yield b'{"session_id": "k", "message": "' + text[:4]
        yield text[4:] + b'"}'
    response = await client.post(CHAT, content=body(), headers=JSON)
    assert response.json()["interaction"]["message"] == "엄마에게 1만원을 이체할까요?"


async def test_unicode_beyond_the_bmp_is_fine(client: httpx.AsyncClient) -> None:
    events = await sse(client, "GET", STREAM, params={"session_id": "emoji 🙂",
                                                      "message": "엄마한테 1만원 보내줘 🙂"})
    assert events[-1][1]["state_snapshot"]["stage"] == "READY"
