"""A loopback shop API for HTTP tools that counts every request.

``GET /orders/<id>``: ``{"order_id", "status"}`` for ids starting with ``A``; ``/orders/JUNK``
answers HTML, ``/orders/SLOW`` answers after ``slow_sec``, ``/orders/BROKEN`` answers 500,
``/orders/WRONG`` answers JSON of the wrong shape, any other id 404. ``POST /refunds`` records
its body and ``Idempotency-Key`` and answers ``{"refund_id", "amount"}``. ``hits`` counts
requests per path; ``bodies`` keeps (key, body) of every POST.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ToolServer:
    def __init__(self, *, slow_sec: float = 2.0) -> None:
        self.hits: Counter[str] = Counter()
        self.bodies: list[tuple[str | None, dict[str, Any]]] = []
        self.slow_sec = slow_sec
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ToolServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def order(self, order_id: str) -> tuple[int, str, str]:
        if order_id == "JUNK":
            return 200, "text/html", "<html>maintenance</html>"
        if order_id == "SLOW":
            time.sleep(self.slow_sec)
        if order_id == "BROKEN":
            return 500, "application/json", '{"error": "db down"}'
        if order_id == "WRONG":
            return 200, "application/json", '{"nope": 1}'
        if not order_id.startswith("A"):
            return 404, "application/json", '{"error": "no such order"}'
        return 200, "application/json", json.dumps({"order_id": order_id, "status": "shipped"})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                api.hits[self.path] += 1
                if self.path.startswith("/orders/"):
                    self._send(*api.order(self.path.removeprefix("/orders/")))
                else:
                    self._send(404, "application/json", "{}")

            def do_POST(self) -> None:  # noqa: N802
                api.hits[self.path] += 1
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                api.bodies.append((self.headers.get("Idempotency-Key"), body))
                self._send(200, "application/json",
                           json.dumps({"refund_id": f"r{len(api.bodies)}",
                                       "amount": body.get("amount")}))

            def _send(self, status: int, kind: str, text: str) -> None:
                data = text.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (a timeout test)
                    pass

            def log_message(self, *args: object) -> None:
                pass

        return Handler
