"""A loopback core-banking API for the balance service: ``GET /accounts/{id}/balance``.

Answers ``{"account", "balance"}`` from ``balances`` and counts every request in
``requests`` (the path asked for), so a test can tell a balance was really looked up.
``status`` makes it answer with an error instead.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

from tests.fakes.loopback import LoopbackHTTP, QuietHandler, answer


class CoreBank(LoopbackHTTP):
    def __init__(self, balances: dict[str, int] | None = None) -> None:
        self.balances = balances or {"main": 1_250_000}
        self.requests: list[str] = []
        self.status = 200
        super().__init__()
        self.url = f"http://127.0.0.1:{self.port}"

    def handler(self) -> type[BaseHTTPRequestHandler]:
        bank = self

        class Handler(QuietHandler):
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
                answer(self, status, json.dumps(body).encode(), "application/json")

        return Handler
