"""A base for the loopback HTTP fakes: a ThreadingHTTPServer on 127.0.0.1 at a free port,
served from a daemon thread while the fake is used as a context manager."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class LoopbackHTTP:
    """Subclasses build their handler class in ``handler()``; ``port`` is known at once
    (a free one unless given)."""

    def __init__(self, port: int = 0) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", port), self.handler())
        self.server.daemon_threads = True
        self.port = self.server.server_port
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)


def answer(handler: BaseHTTPRequestHandler, status: int, data: bytes = b"",
           content_type: str | None = None) -> None:
    """Send one whole response; a client that already left is not an error of the fake."""
    try:
        handler.send_response(status)
        if content_type is not None:
            handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    except OSError:
        pass


class QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass
