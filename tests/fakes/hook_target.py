"""A loopback webhook receiver that counts deliveries: answers each POST with the next
status of ``statuses`` (then 200), or holds it ``hold`` seconds first (a hanging endpoint).
Records (headers, raw body) of every request."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler

from tests.fakes.loopback import LoopbackHTTP, QuietHandler, answer


class HookTarget(LoopbackHTTP):
    def __init__(self, statuses: list[int] | None = None, hold: float = 0.0) -> None:
        self.statuses = list(statuses or [])
        self.hold = hold
        self.received: list[tuple[dict[str, str], bytes]] = []
        super().__init__()
        self.url = f"http://127.0.0.1:{self.port}/hooks"

    def handler(self) -> type[BaseHTTPRequestHandler]:
        target = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                target.received.append((dict(self.headers), body))
                time.sleep(target.hold)
                answer(self, target.statuses.pop(0) if target.statuses else 200)

        return Handler
