"""The body limit holds for chunked bodies: bytes are counted as they arrive and the 413 is
sent as soon as the limit is passed; a 200 MB chunked body leaves a real ``flowctl serve``'s
memory flat (its peak RSS, from /proc)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.server.conftest import TRANSFER
from tests.server.processes import Serve

CHAT = "/v1/agent/chat"
MIB = 1024 * 1024
BIG = 200 * MIB
LIMIT = 6 * 4000 + 65536  # 6 × max_message_chars + 64 KiB


@pytest.fixture(scope="module")
def served() -> Iterator[Serve]:
    server = Serve(TRANSFER, "--store", "memory://").wait_ready()
    yield server
    server.stop()


def chunks(total: int, size: int = 64 * 1024) -> Iterator[bytes]:
    piece = b'{"session_id": "big", "message": "' + b"x" * (size - 34)
    sent = 0
    while sent < total:
        yield piece
        sent += len(piece)


def test_a_200_mb_chunked_body_is_refused_and_memory_stays_flat(served: Serve) -> None:
    with httpx.Client(base_url=served.url, timeout=60) as client:
        for _ in range(20):  # warm up: the first requests import and allocate what they need
            client.post(CHAT, json={"session_id": "warm", "message": "안녕"})
        before = served.status()
        started = time.monotonic()
        response = client.post(CHAT, content=chunks(BIG),
                               headers={"content-type": "application/json"})
        elapsed = time.monotonic() - started
        after = served.status()
        assert client.get("/healthz").status_code == 200  # the server lives on
    assert "content-length" not in response.request.headers  # it was sent chunked
    assert response.request.headers["transfer-encoding"] == "chunked"
    assert (response.status_code, response.json()["error"]) == (413, "body_too_large")
    assert str(LIMIT) in response.json()["message"]
    growth_kib = after["VmHWM"] - before["VmRSS"]  # the peak while the body streamed in
    print(f"RSS before {before['VmRSS']} KiB, after {after['VmRSS']} KiB, peak "
          f"{after['VmHWM']} KiB (+{growth_kib} KiB) for {BIG // MIB} MiB in {elapsed:.2f} s")
    assert growth_kib < 16 * 1024, (before, after)  # flat: far below the 200 MB sent


def test_the_413_comes_as_soon_as_the_limit_is_passed(served: Serve) -> None:
    """A client that keeps a chunked body open gets its 413 before it ends the body."""
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(b"POST /v1/agent/chat HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        piece = b"x" * 16384
        for _ in range(LIMIT // len(piece) + 2):  # just past the limit, and no last chunk
            sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
        answer = b""
        while not answer.endswith(b"}"):
            answer += sock.recv(65536) or b"}"
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b'"error":"body_too_large"' in answer


def test_a_content_length_over_the_limit_is_refused_unread(served: Serve) -> None:
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(b"POST /v1/agent/chat HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % BIG)
        answer = sock.recv(65536)  # not one byte of the body was sent
    assert answer.startswith(b"HTTP/1.1 413 ")


def test_a_chunked_body_under_the_limit_is_read(served: Serve) -> None:
    def body() -> Iterator[bytes]:
        yield b'{"session_id": "chunked", '
        yield '"message": "엄마한테 1만원 보내줘"}'.encode()
    response = httpx.post(f"{served.url}{CHAT}", content=body(),
                          headers={"content-type": "application/json"})
    assert response.json()["interaction"]["message"] == "엄마에게 1만원을 이체할까요?"
