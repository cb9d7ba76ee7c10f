"""A loopback bank API that honours ``Idempotency-Key`` and counts everything.

``POST /transfers`` with ``{"to", "amount"}``: the first request with a key executes the
transfer (``executions`` grows) and its answer is stored; any later request with the same
key gets that same answer back without executing again, as a real payment API does. A
request without a key is refused with 400. ``status`` makes the bank answer with an error
instead (to test 4xx/5xx handling); ``requests`` records (key, body) of every request.

Used by the money-safety tests and by ``bench/faults.py`` (run as a process: ``python -m
tests.fakes.bank PORT STATEFILE`` keeps its counts in a JSON file so they survive the test's
kills of the server under test).
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class Bank:
    def __init__(self, port: int = 0, state_file: Path | None = None) -> None:
        self.requests: list[tuple[str | None, dict[str, Any]]] = []
        self.answers: dict[str, dict[str, Any]] = {}
        self.executions: list[dict[str, Any]] = []
        self.status = 200
        self.state_file = state_file
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self._thread: threading.Thread | None = None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        bank = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                status, answer = bank.handle(self.headers.get("Idempotency-Key"), body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def handle(self, key: str | None, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append((key, body))
            if self.status != 200:
                answer = {"error": "refused", "account": "110-123-456789", "host": "core-7"}
                self._save()
                return self.status, answer
            if key is None:
                self._save()
                return 400, {"error": "Idempotency-Key required"}
            if key not in self.answers:
                self.executions.append({"key": key, **body})
                self.answers[key] = {"transaction_id": f"tx-{len(self.executions)}",
                                     "to": body.get("to"), "amount": body.get("amount")}
            self._save()
            return 200, self.answers[key]

    def _save(self) -> None:
        if self.state_file is not None:
            self.state_file.write_text(json.dumps({"requests": self.requests,
                                                   "executions": self.executions}))

    def start(self) -> Bank:
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


if __name__ == "__main__":
    Bank(int(sys.argv[1]), Path(sys.argv[2])).server.serve_forever()
