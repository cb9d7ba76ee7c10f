"""A loopback core-banking API for the balance service: ``GET /accounts/{id}/balance``.

Answers ``{"account", "balance"}`` from ``balances`` and counts every request in
``requests`` (the path asked for), so a test can tell a balance was really looked up.
``status`` makes it answer with an error instead.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class CoreBank:
    def __init__(self, balances: dict[str, int] | None = None) -> None:
        self.balances = balances or {"main": 1_250_000}
        self.requests: list[str] = []
        self.status = 200
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        bank = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                bank.requests.append(self.path)
                parts = self.path.strip("/").split("/")
                status, body = 404, {"error": "not found"}
                if bank.status != 200:
                    status, body = bank.status, {"error": "core banking is down"}
                elif len(parts) == 3 and parts[0] == "accounts" and parts[2] == "balance" \
                        and parts[1] in bank.balances:
                    status = 200
                    body = {"account": "110-123-456789", "balance": bank.balances[parts[1]]}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> CoreBank:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)
