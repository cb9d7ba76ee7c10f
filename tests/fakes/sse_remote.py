"""A loopback server that answers ``POST /v1/agent/chat/stream`` with whatever a test
scripts: a raw body (a malformed stream), a status, or silence (for timeouts). Counts calls
and records the request bodies and headers it got."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ScriptedRemote:
    def __init__(self, body: str = "", *, status: int = 200, delay: float = 0.0,
                 content_type: str = "text/event-stream") -> None:
        self.body, self.status, self.delay, self.content_type = body, status, delay, content_type
        self.requests: list[tuple[dict[str, Any], dict[str, str]]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1/agent"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        remote = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                remote.requests.append((json.loads(self.rfile.read(length) or b"{}"),
                                        dict(self.headers)))
                time.sleep(remote.delay)
                data = remote.body.encode()
                try:
                    self.send_response(remote.status)
                    self.send_header("Content-Type", remote.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> ScriptedRemote:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)
