"""A loopback bank API that honours ``Idempotency-Key`` and counts everything.

``POST /transfers`` with ``{"to", "amount"}``: the first request with a key executes the
transfer (``executions`` grows) and its answer is stored; any later request with the same
key gets that same answer back without executing again, as a real payment API does. A
request without a key is refused with 400. ``status`` makes the bank answer with an error
instead (to test 4xx/5xx handling); ``requests`` records (key, body) of every request.

``delay`` (seconds, 0 by default) makes every request slow, as a real payment API can be:
the bank waits half of it before executing and the other half before answering, so a
client that dies mid-call may die before or after the money moved. ``timeline`` records
when each request arrived, was handled (executed or answered from the stored answer) and
when (if ever) its answer was sent.

Used by the money-safety tests and by ``bench/faults.py`` (run as a process: ``python -m
tests.fakes.bank PORT STATEFILE [DELAY]`` keeps its counts in a JSON file, replaced
atomically after every change, so they survive the test's kills of the server under test;
the file is written at start too, with the bank's ``url``, so PORT may be 0).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

TOOL_ACTION = """    tool: sandbox_bank
    label: 이체 실행 중
    irreversible: true
    timeout_sec: 5
    args: {to: slots.target, amount: slots.amount, limit: 5000000}
"""
HTTP_ACTION = """    http:
      url: "{{ env.BANK_URL }}/transfers"
      json: {to: slots.target, amount: slots.amount}
    label: 이체 실행 중
    irreversible: true
    timeout_sec: 5
    retries: 2
"""


def bank_flow_text(transfer_yaml: str) -> str:
    """The shipped transfer flow with its action pointed at this bank (``BANK_URL``)."""
    if TOOL_ACTION not in transfer_yaml:
        raise ValueError("flows/transfer.yaml no longer has the sandbox_bank action this "
                         "fake replaces; update TOOL_ACTION in tests/fakes/bank.py")
    return transfer_yaml.replace(TOOL_ACTION, HTTP_ACTION)


class Bank:
    def __init__(self, port: int = 0, state_file: Path | None = None, *,
                 delay: float = 0.0) -> None:
        self.requests: list[tuple[str | None, dict[str, Any]]] = []
        self.answers: dict[str, dict[str, Any]] = {}
        self.executions: list[dict[str, Any]] = []
        self.timeline: list[dict[str, Any]] = []
        self.status = 200
        self.delay = delay
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
                key = self.headers.get("Idempotency-Key")
                event = bank.arrived(key)
                time.sleep(bank.delay / 2)
                status, answer = bank.handle(key, body)
                event["handled"] = time.time()
                time.sleep(bank.delay / 2)
                data = json.dumps(answer).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    self.wfile.flush()
                except OSError:  # the client died while the bank was working
                    bank.finished(event, None)
                    return
                bank.finished(event, time.time())

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

    def arrived(self, key: str | None) -> dict[str, Any]:
        with self._lock:
            event = {"key": key, "arrived": time.time(), "handled": None, "answered": None,
                     "done": False}
            self.timeline.append(event)
            self._save()
            return event

    def finished(self, event: dict[str, Any], answered: float | None) -> None:
        with self._lock:
            event["done"], event["answered"] = True, answered
            self._save()

    def _save(self) -> None:
        if self.state_file is not None:
            state = {"url": self.url, "requests": self.requests,
                     "executions": self.executions, "answers": self.answers,
                     "timeline": self.timeline}
            scratch = self.state_file.with_name(self.state_file.name + ".tmp")
            scratch.write_text(json.dumps(state))
            os.replace(scratch, self.state_file)  # a reader never sees half a file

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
    process_bank = Bank(int(sys.argv[1]), Path(sys.argv[2]),
                        delay=float(sys.argv[3]) if len(sys.argv) > 3 else 0.0)
    with process_bank._lock:
        process_bank._save()
    process_bank.server.serve_forever()
