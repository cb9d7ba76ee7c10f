"""An HTTP request -> its ``Authorization`` header in the context variable of app/callers.py.

``remember`` is an ASGI middleware that keeps each request's ``Authorization`` header in
that context variable while the request runs (a turn started by the request runs in a task
that copies the context, so it sees it too). Whether a remote or A2A service sends it on is
the app's business (``engine.app.callers``: only to the services the operator names).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from engine.app.callers import CALLER

__all__ = ["remember"]


class remember:  # noqa: N801 - used as a middleware factory, like starlette's
    """ASGI middleware: the request's ``Authorization`` header in a context variable."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = next((v.decode("latin-1") for k, v in scope.get("headers", ())
                       if k == b"authorization"), None)
        token = CALLER.set(header)
        try:
            await self.app(scope, receive, send)
        finally:
            CALLER.reset(token)
