"""A loopback server that answers ``POST /v1/agent/chat/stream`` with whatever a test
scripts: a raw body (a malformed stream), a status, or silence (for timeouts). Counts calls
and records the request bodies and headers it got."""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback import LoopbackHTTP, QuietHandler, answer


class ScriptedRemote(LoopbackHTTP):
    def __init__(self, body: str = "", *, status: int = 200, delay: float = 0.0,
                 content_type: str = "text/event-stream") -> None:
        self.body, self.status, self.delay, self.content_type = body, status, delay, content_type
        self.requests: list[tuple[dict[str, Any], dict[str, str]]] = []
        super().__init__()
        self.url = f"http://127.0.0.1:{self.port}/v1/agent"

    def handler(self) -> type[BaseHTTPRequestHandler]:
        remote = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                remote.requests.append((json.loads(self.rfile.read(length) or b"{}"),
                                        dict(self.headers)))
                time.sleep(remote.delay)
                answer(self, remote.status, remote.body.encode(), remote.content_type)

        return Handler
