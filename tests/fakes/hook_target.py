"""A loopback webhook receiver that counts deliveries: answers each POST with the next
status of ``statuses`` (then 200), or holds it ``hold`` seconds first (a hanging endpoint).
Records (headers, raw body) of every request."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class HookTarget:
    def __init__(self, statuses: list[int] | None = None, hold: float = 0.0) -> None:
        self.statuses = list(statuses or [])
        self.hold = hold
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        target = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                target.received.append((dict(self.headers), body))
                time.sleep(target.hold)
                status = target.statuses.pop(0) if target.statuses else 200
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> HookTarget:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)
