"""Who may read and act in which session: API keys, principals, the login cookie, server
session ids, and the cross-site refusal — against a real uvicorn server with two keys."""

from __future__ import annotations

import logging
import re
import time
from typing import Any

import httpx
import pytest

from engine.config import Settings
from engine.runtime.values.session import owned_key
from engine.transports.http.auth import COOKIE, Auth, principal_of_key
from tests.server.conftest import MakeServer, Running, sse

KEY_A = "key-a-0123456789abcdef-AAAA"
KEY_B = "key-b-0123456789abcdef-BBBB"
A, B = principal_of_key(KEY_A), principal_of_key(KEY_B)
SECRET = "cookie-secret-" + "c" * 32
SEND = "엄마한테 1만원 보내줘"
CHAT, STREAM, COMPLETED = "/v1/agent/chat", "/v1/agent/chat/stream", "/v1/agent/completed"
SESSIONS, LOGIN, LOGOUT = "/v1/agent/sessions", "/v1/agent/login", "/v1/agent/logout"


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


IDENTITIES: dict[str, dict[str, str]] = {
    "no key": {},
    "bad key": bearer("not-a-key-0123456789abcdef"),
    "other scheme": {"Authorization": f"Basic {KEY_A}"},
    "A": bearer(KEY_A),
    "B": bearer(KEY_B),
}


@pytest.fixture
def keyed(make_server: MakeServer) -> Running:
    return make_server(settings=Settings(dev_mode=True, api_keys=(KEY_A, KEY_B),
                                         cookie_secret=SECRET))


async def owned_by_a(server: Running, session_id: str = "s-a") -> dict[str, Any]:
    """A session A started (READY, waiting for 확인); its stored record."""
    async with server.client(headers=bearer(KEY_A)) as client:
        response = await client.post(CHAT, json={"session_id": session_id, "message": SEND})
    assert response.status_code == 200, response.text
    record = await server.store.load(owned_key(session_id, A))
    assert record is not None and record.data["owner"] == A
    return {"version": record.version, "history": record.data["memory"]["raw_history"]}


def requests_for(session_id: str, message: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Every endpoint that reads or acts in a session, as (method, path, request keywords)."""
    body = {"session_id": session_id, "message": message}
    return [("POST", CHAT, {"json": body}), ("POST", STREAM, {"json": body}),
            ("GET", STREAM, {"params": body}),
            ("GET", COMPLETED, {"params": {"session_id": session_id}}),
            ("GET", f"/v1/agent/debug/{session_id}", {})]


ENDPOINT_IDS = ["POST chat", "POST stream", "GET stream", "completed", "debug"]


# -- the matrix ---------------------------------------------------------------------------------

@pytest.mark.parametrize("who", [w for w in IDENTITIES if w not in ("A", "B")])
async def test_no_one_without_a_key_reads_or_acts_in_a_session(keyed: Running,
                                                              who: str) -> None:
    """Anyone without a valid key gets 401 from every endpoint; nothing runs or changes."""
    before = await owned_by_a(keyed)
    async with keyed.client(headers=IDENTITIES[who]) as client:
        for (method, path, kw), name in zip(requests_for("s-a", "취소"), ENDPOINT_IDS,
                                            strict=True):
            response = await client.request(method, path, **kw)
            assert response.status_code == 401, (name, response.text)
            assert response.headers["content-type"] == "application/json"
            assert response.json()["error"] == "unauthorized"
            assert response.headers["www-authenticate"].startswith("Bearer")
    after = await keyed.store.load(owned_key("s-a", A))
    assert after is not None and after.version == before["version"]  # no turn started
    assert after.data["memory"]["raw_history"] == before["history"]


async def test_another_key_never_reaches_a_session_it_did_not_start(keyed: Running) -> None:
    """B sending A's id reaches B's own session of that name, on every endpoint: its turns
    change nothing of A's, and it reads nothing of A's."""
    before = await owned_by_a(keyed)
    async with keyed.client(headers=bearer(KEY_B)) as client:
        for (method, path, kw), name in zip(requests_for("s-a", "확인"), ENDPOINT_IDS,
                                            strict=True):
            response = await client.request(method, path, **kw)
            if name in ("completed", "debug"):  # B's "s-a" has no finished task yet...
                assert response.status_code in (200, 404), (name, response.text)
            else:  # ...and "확인" in a session with nothing to confirm moves nothing
                assert response.status_code == 200, (name, response.text)
                assert "EXECUTED" not in response.text
    after = await keyed.store.load(owned_key("s-a", A))
    assert after is not None and after.version == before["version"]  # A's: untouched
    assert after.data["stage"] == "READY"
    theirs = await keyed.store.load(owned_key("s-a", B))
    assert theirs is not None and theirs.data["owner"] == B


async def test_the_owner_reads_and_acts_in_its_session(keyed: Running) -> None:
    await owned_by_a(keyed)
    async with keyed.client(headers=bearer(KEY_A)) as client:
        completed = await client.get(COMPLETED, params={"session_id": "s-a"})
        debug = await client.get("/v1/agent/debug/s-a")
        done = (await sse(client, "GET", STREAM, params={"session_id": "s-a",
                                                         "message": "확인"}))[-1][1]
    assert completed.json() == {"session_id": "s-a", "completed": []}
    assert debug.json()["state"]["owner"] == A
    assert done["state_snapshot"]["stage"] == "EXECUTED"


async def test_a_missing_session_looks_the_same_to_everyone(keyed: Running) -> None:
    for key in (KEY_A, KEY_B):
        async with keyed.client(headers=bearer(key)) as client:
            debug = await client.get("/v1/agent/debug/nobody")
            completed = await client.get(COMPLETED, params={"session_id": "nobody"})
        assert (debug.status_code, debug.json()["message"]) == (404, "no session 'nobody'")
        assert (completed.status_code, completed.json()["message"]) == (
            404, "no session 'nobody'")


async def test_another_callers_session_and_a_missing_one_answer_alike(keyed: Running) -> None:
    """No endpoint tells B whether A's session exists: the same status and body, bar the id."""
    await owned_by_a(keyed, "a-real-one")
    async with keyed.client(headers=bearer(KEY_B)) as client:
        answers = []
        for session_id in ("a-real-one", "never-used"):
            got = [await client.get(COMPLETED, params={"session_id": session_id}),
                   await client.get(f"/v1/agent/debug/{session_id}"),
                   await client.delete(f"/v1/agent/sessions/{session_id}"),
                   await client.get(f"/v1/runs?session_id={session_id}")]
            answers.append([(r.status_code, r.text.replace(session_id, "ID")) for r in got])
            chat = await client.post(CHAT, json={"session_id": session_id, "message": "확인"})
            shown = chat.json()["interaction"]
            answers[-1].append((chat.status_code, shown["message"],
                                shown["state_snapshot"]["stage"]))
    assert answers[0] == answers[1]  # the chat turn too: a new session of B's either way
    assert [status for status, *_ in answers[0]] == [404, 404, 404, 404, 200]


async def test_the_same_id_is_two_sessions_never_one(keyed: Running) -> None:
    """B cannot take over A's id, nor A B's: each keeps its own."""
    await owned_by_a(keyed, "shared")
    async with keyed.client(headers=bearer(KEY_B)) as client:
        response = await client.post(CHAT, json={"session_id": "shared", "message": "확인"})
    assert response.status_code == 200
    assert response.json()["interaction"]["state_snapshot"]["stage"] != "EXECUTED"
    record = await keyed.store.load(owned_key("shared", A))
    assert record is not None and record.data["stage"] == "READY"  # not confirmed by B
    async with keyed.client(headers=bearer(KEY_A)) as client:
        mine = await client.post(CHAT, json={"session_id": "shared", "message": "확인"})
    assert mine.json()["interaction"]["state_snapshot"]["stage"] == "EXECUTED"


@pytest.mark.parametrize("who", ["no key", "bad key", "other scheme"])
@pytest.mark.parametrize("method, path", [
    ("GET", "/openapi.json"), ("GET", "/docs"), ("POST", SESSIONS), ("GET", "/v1/agent/nope"),
    ("POST", CHAT), ("GET", STREAM)])
async def test_without_a_valid_key_everything_else_is_401(keyed: Running, who: str,
                                                          method: str, path: str) -> None:
    async with keyed.client(headers=IDENTITIES[who]) as client:
        response = await client.request(method, path)
    assert (response.status_code, response.json()["error"]) == (401, "unauthorized")


@pytest.mark.parametrize("path, kind", [("/healthz", "application/json"),
                                        ("/", "text/html"),
                                        ("/playground/app.js", "javascript")])
async def test_health_and_the_playground_files_need_no_key(keyed: Running, path: str,
                                                           kind: str) -> None:
    async with keyed.client() as client:
        response = await client.get(path)
    assert response.status_code == 200 and kind in response.headers["content-type"]


async def test_keys_never_appear_in_answers_or_logs(keyed: Running,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    await owned_by_a(keyed)
    texts = []
    async with keyed.client() as client:
        for headers in (bearer(KEY_A), bearer(KEY_B), bearer(KEY_A + "x")):
            for method, path, kw in [*requests_for("s-a", "확인"), ("POST", LOGIN, {})]:
                response = await client.request(method, path, headers=headers, **kw)
                texts.append(response.text + str(response.headers))
    texts.append(caplog.text)
    assert not [t for t in texts if KEY_A in t or KEY_B in t]
    assert A in (await keyed.store.load(owned_key("s-a", A))).data["owner"]  # type: ignore[union-attr]


def test_a_principal_is_a_stable_hash_of_its_key() -> None:
    assert re.fullmatch(r"key-[0-9a-f]{16}", A) and A != B
    assert principal_of_key(KEY_A) == A  # the same after a restart, in any process
    auth = Auth([KEY_A, KEY_B])
    assert (auth.principal_of(KEY_A), auth.principal_of(KEY_B)) == (A, B)
    assert auth.principal_of(KEY_A[:-1]) is None and auth.principal_of("") is None
    assert not Auth([]).enabled


# -- server session ids -------------------------------------------------------------------------

async def test_the_server_hands_out_unguessable_session_ids(keyed: Running) -> None:
    async with keyed.client(headers=bearer(KEY_A)) as client:
        ids = [(await client.post(SESSIONS)) for _ in range(20)]
        assert {r.status_code for r in ids} == {201}
        session_ids = [r.json()["session_id"] for r in ids]
        assert len(set(session_ids)) == 20
        # token_urlsafe(24): 32 URL-safe characters, 192 random bits (>= 128)
        assert all(re.fullmatch(r"[A-Za-z0-9_-]{32}", s) for s in session_ids)
        mine = session_ids[0]
        assert (await client.post(CHAT, json={"session_id": mine, "message": SEND})) \
            .json()["interaction"]["state_snapshot"]["stage"] == "READY"
    async with keyed.client(headers=bearer(KEY_B)) as client:
        theirs = await client.post(CHAT, json={"session_id": mine, "message": "확인"})
        assert theirs.json()["interaction"]["state_snapshot"]["stage"] != "EXECUTED"


async def test_client_chosen_ids_still_work_within_their_owner(keyed: Running) -> None:
    async with keyed.client(headers=bearer(KEY_B)) as client:
        first = await client.post(CHAT, json={"session_id": "user-001", "message": SEND})
        second = await client.post(CHAT, json={"session_id": "user-001", "message": "확인"})
    assert first.status_code == second.status_code == 200
    assert second.json()["interaction"]["state_snapshot"]["stage"] == "EXECUTED"


# -- the login cookie ---------------------------------------------------------------------------

async def test_a_cookie_login_authenticates_a_get_stream(keyed: Running) -> None:
    await owned_by_a(keyed)
    # carries no Authorization, only the cookie, and the Fetch Metadata of the server's own page
    async with keyed.client(headers={"Sec-Fetch-Site": "same-origin"}) as browser:
        login = await browser.post(LOGIN, json={"key": KEY_A})
        assert login.status_code == 200 and login.json() == {"principal": A,
                                                             "expires_in": 43200}
        cookie = login.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}={A}.")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        assert "Secure" not in cookie  # plain http (loopback)
        assert KEY_A not in cookie
        events = await sse(browser, "GET", STREAM, params={"session_id": "s-a",
                                                           "message": "확인"})
        assert events[-1][1]["state_snapshot"]["stage"] == "EXECUTED"
        assert (await browser.post(LOGOUT)).status_code == 204
        assert (await browser.get(COMPLETED, params={"session_id": "s-a"})).status_code == 401


@pytest.mark.parametrize("how", ["bearer", "json", "form"])
async def test_login_takes_the_key_three_ways(keyed: Running, how: str) -> None:
    kw: dict[str, Any] = {"bearer": {"headers": bearer(KEY_B)}, "json": {"json": {"key": KEY_B}},
                          "form": {"data": {"key": KEY_B}}}[how]
    async with keyed.client() as client:
        response = await client.post(LOGIN, **kw)
        assert response.json()["principal"] == B
        assert (await client.post(SESSIONS)).status_code == 201  # the cookie works


@pytest.mark.parametrize("kw, status", [
    ({"json": {"key": "wrong-key-0123456789abcdef"}}, 401),
    ({"headers": bearer("wrong-key-0123456789abcdef")}, 401),
    ({"json": {"nokey": 1}}, 422), ({"json": ["x"]}, 422), ({"content": b"{"}, 422),
    ({}, 422), ({"content": b'{"key": "\\ud800"}',
                 "headers": {"content-type": "application/json"}}, 401),
])
async def test_a_bad_login_sets_no_cookie(keyed: Running, kw: dict[str, Any],
                                          status: int) -> None:
    async with keyed.client() as client:
        response = await client.post(LOGIN, **kw)
    assert response.status_code == status and "set-cookie" not in response.headers


async def test_the_cookie_of_b_does_not_open_the_session_of_a(keyed: Running) -> None:
    await owned_by_a(keyed)
    async with keyed.client(headers={"Sec-Fetch-Site": "same-origin"}) as client:
        await client.post(LOGIN, json={"key": KEY_B})
        events = await sse(client, "GET", STREAM, params={"session_id": "s-a", "message": "확인"})
    assert events[-1][1]["state_snapshot"]["stage"] != "EXECUTED"  # B's own "s-a"
    record = await keyed.store.load(owned_key("s-a", A))
    assert record is not None and record.data["stage"] == "READY"


def stale(seconds: float) -> float:
    return time.time() - seconds


@pytest.mark.parametrize("tamper, status", [
    ("genuine", 201), ("signature", 401), ("principal", 401), ("expired", 401),
    ("other secret", 401), ("removed key", 401), ("garbage", 401), ("empty", 401)])
async def test_a_forged_or_stale_cookie_is_refused(keyed: Running, tamper: str,
                                                   status: int) -> None:
    async with keyed.client() as client:
        token = (await client.post(LOGIN, json={"key": KEY_A})).cookies[COOKIE]
    principal, expires, signature = token.split(".")
    forged = {
        "genuine": token,
        "signature": f"{principal}.{expires}.{signature[:-2]}AA",
        "principal": f"{B}.{expires}.{signature}",
        "expired": Auth([KEY_A], secret=SECRET, clock=lambda: stale(12 * 3600 + 5)).token(A),
        "other secret": Auth([KEY_A], secret="x" * 32).token(A),
        "removed key": Auth([KEY_A + "-old"], secret=SECRET).token(
            principal_of_key(KEY_A + "-old")),
        "garbage": "x.y.z",
        "empty": "",
    }[tamper]
    async with keyed.client(cookies={COOKIE: forged}) as client:
        response = await client.post(SESSIONS)
    assert response.status_code == status


def test_a_token_expires_and_needs_this_servers_secret() -> None:
    now = [1_000_000.0]
    auth = Auth([KEY_A], secret="s" * 32, clock=lambda: now[0])
    token = auth.token(A)
    assert auth.verify(token) == A
    assert Auth([KEY_A], secret="t" * 32, clock=lambda: now[0]).verify(token) is None
    now[0] += 12 * 3600 + 1
    assert auth.verify(token) is None


async def test_a_login_over_https_sets_a_secure_cookie(keyed: Running) -> None:
    """Behind a TLS proxy on loopback, uvicorn takes the scheme from X-Forwarded-Proto."""
    async with keyed.client(headers={"X-Forwarded-Proto": "https"}) as client:
        response = await client.post(LOGIN, json={"key": KEY_A})
    assert "; Secure" in response.headers["set-cookie"]


# -- cross-site requests start no turn ----------------------------------------------------------

CROSS_SITE = {"Sec-Fetch-Site": "cross-site"}
FOREIGN = {"Origin": "https://evil.example"}


@pytest.mark.parametrize("headers", [CROSS_SITE, FOREIGN, {"Origin": "null"},
                                     {**FOREIGN, "Sec-Fetch-Site": "same-site"}],
                         ids=["sec-fetch-site", "origin", "null origin", "same-site origin"])
@pytest.mark.parametrize("cookie", [False, True], ids=["bearer", "cookie"])
async def test_a_cross_site_request_starts_no_turn(keyed: Running, headers: dict[str, str],
                                                   cookie: bool) -> None:
    before = await owned_by_a(keyed)
    async with keyed.client() as client:
        if cookie:
            await client.post(LOGIN, json={"key": KEY_A})
        auth = {} if cookie else bearer(KEY_A)
        for method, path, kw in requests_for("s-a", "확인")[:3]:
            response = await client.request(method, path, headers={**auth, **headers}, **kw)
            assert (response.status_code, response.json()["error"]) == (403, "cross_site")
        for session_id in ("new-1", "new-2"):  # nor creates one
            response = await client.get(STREAM, headers={**auth, **headers},
                                        params={"session_id": session_id, "message": SEND})
            assert response.status_code == 403
            assert await keyed.store.load(owned_key(session_id, A)) is None
        login = await client.post(LOGIN, json={"key": KEY_A}, headers=headers)
        assert login.status_code == 403 and "set-cookie" not in login.headers
    after = await keyed.store.load(owned_key("s-a", A))
    assert after is not None and after.version == before["version"]


@pytest.mark.parametrize("headers", [{"Sec-Fetch-Site": "same-origin"}, {"Sec-Fetch-Site": "none"},
                                     {"Origin": "{url}"}, {}],
                         ids=["same-origin", "typed", "own origin", "no browser headers"])
async def test_a_same_origin_request_starts_its_turn(keyed: Running,
                                                     headers: dict[str, str]) -> None:
    headers = {k: v.format(url=keyed.url) for k, v in headers.items()}
    async with keyed.client(headers={**bearer(KEY_A), **headers}) as client:
        events = await sse(client, "GET", STREAM, params={"session_id": "mine", "message": SEND})
    assert events[-1][1]["state_snapshot"]["stage"] == "READY"


async def test_a_cors_allowed_origin_may_start_turns(make_server: MakeServer) -> None:
    server = make_server(settings=Settings(api_keys=(KEY_A,),
                                           cors_origins=("https://app.example.com",)))
    page = {"Origin": "https://app.example.com", "Sec-Fetch-Site": "cross-site"}
    async with server.client(headers=bearer(KEY_A)) as client:
        preflight = await client.options(CHAT, headers={
            **page, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type"})
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "https://app.example.com"
        assert preflight.headers["access-control-allow-credentials"] == "true"
        response = await client.post(CHAT, headers=page,
                                     json={"session_id": "cors", "message": SEND})
        assert response.status_code == 200
        assert response.headers["access-control-allow-origin"] == "https://app.example.com"
        other = await client.post(CHAT, headers={"Origin": "https://other.example"},
                                  json={"session_id": "cors", "message": "확인"})
        assert other.status_code == 403 and "access-control-allow-origin" not in other.headers


async def test_without_keys_a_cross_site_page_still_cannot_start_a_turn(
        server: Running, client: httpx.AsyncClient) -> None:
    """The default: no keys, loopback only — the case a malicious page in the operator's
    own browser would try (GET http://127.0.0.1:8000/v1/agent/chat/stream?...확인)."""
    await client.post(CHAT, json={"session_id": "local", "message": SEND})
    response = await client.get(STREAM, headers=CROSS_SITE,
                                params={"session_id": "local", "message": "확인"})
    assert response.status_code == 403
    record = await server.store.load("local")
    assert record is not None and record.data["stage"] == "READY"


# -- Fetch Metadata: only the server's own pages (or a key in a header) start turns -------------

SIBLING = {"Sec-Fetch-Site": "same-site"}  # a sibling subdomain's or another localhost port's page


@pytest.mark.parametrize("headers", [SIBLING, {"Referer": "http://127.0.0.1:9999/page.html"},
                                     {"Referer": "https://evil.example/x", "Origin": "null"},
                                     {}],
                         ids=["same-site, no origin", "foreign referer only", "null origin",
                              "cookie alone, no fetch metadata"])
async def test_a_cookie_get_from_anything_but_the_own_origin_starts_no_turn(
        keyed: Running, headers: dict[str, str]) -> None:
    """An <img> or a link on another page sends the cookie (same-site pages too), no Origin."""
    before = await owned_by_a(keyed)
    async with keyed.client() as client:
        await client.post(LOGIN, json={"key": KEY_A})
        response = await client.get(STREAM, headers=headers,
                                    params={"session_id": "s-a", "message": "확인"})
        assert (response.status_code, response.json()["error"]) == (403, "cross_site")
        fresh = await client.get(STREAM, headers=headers,
                                 params={"session_id": "new-3", "message": SEND})
        assert fresh.status_code == 403 and await keyed.store.load(owned_key("new-3", A)) is None
    after = await keyed.store.load(owned_key("s-a", A))
    assert after is not None and after.version == before["version"]


async def test_the_own_page_with_its_cookie_still_streams(keyed: Running) -> None:
    async with keyed.client() as client:
        await client.post(LOGIN, json={"key": KEY_A})
        events = await sse(client, "GET", STREAM, headers={"Sec-Fetch-Site": "same-origin"},
                           params={"session_id": "page", "message": SEND})
    assert events[-1][1]["state_snapshot"]["stage"] == "READY"


async def test_without_keys_a_same_site_page_cannot_start_a_turn(
        server: Running, client: httpx.AsyncClient) -> None:
    """Another localhost port's page is same-site to http://127.0.0.1:8000."""
    await client.post(CHAT, json={"session_id": "sib", "message": SEND})
    for headers in (SIBLING, {"Referer": "http://localhost:3000/"}):
        response = await client.get(STREAM, headers=headers,
                                    params={"session_id": "sib", "message": "확인"})
        assert response.status_code == 403
    record = await server.store.load("sib")
    assert record is not None and record.data["stage"] == "READY"
