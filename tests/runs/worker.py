"""A fake build worker on loopback: ``POST /compile`` and ``POST /test`` each count the call
and answer once the test lets them (``release``) or at once (``hold=False``); ``fail`` makes
``/test`` answer 500, ``test_result`` is its JSON answer otherwise. A call the client gave
up on still counts."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback import LoopbackHTTP, QuietHandler, answer


class Worker(LoopbackHTTP):
    def __init__(self, *, hold: bool = False, fail: bool = False,
                 test_result: dict[str, Any] | None = None) -> None:
        self.test_result = test_result or {"ok": True}
        self.calls: dict[str, int] = {}
        self.gate = threading.Event()
        if not hold:
            self.gate.set()
        self.fail = fail
        self.arrived = threading.Event()
        super().__init__()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def release(self) -> None:
        self.gate.set()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        worker = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                name = self.path.strip("/")
                worker.calls[name] = worker.calls.get(name, 0) + 1
                worker.arrived.set()
                worker.gate.wait(timeout=60)
                failed = worker.fail and name == "test"
                body: Any = b'{"ok": false}' if failed else json.dumps(
                    worker.test_result if name == "test" else {"ok": True}).encode()
                answer(self, 500 if failed else 200, body, "application/json")

        return Handler
