"""The caller's own credentials, for the remote services the operator lets them reach.

``remember`` is an ASGI middleware that keeps each request's ``Authorization`` header in a
context variable while the request runs (a turn started by the request runs in a task that
copies the context, so it sees it too). A remote or A2A service sends that header on only
when the operator names it in ``FLOWCTL_FORWARD_CREDENTIALS`` (service names, comma
separated): handing a caller's key to another server is the operator's decision, never an
app file's.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar

from starlette.types import ASGIApp, Receive, Scope, Send

FORWARD_VARIABLE = "FLOWCTL_FORWARD_CREDENTIALS"
_CALLER: ContextVar[str | None] = ContextVar("flowctl_caller_authorization", default=None)

__all__ = ["FORWARD_VARIABLE", "caller_authorization", "forwarded", "remember"]


def caller_authorization() -> str | None:
    """The ``Authorization`` header of the request this turn serves, if any."""
    return _CALLER.get()


def forwarded(env: Mapping[str, str]) -> frozenset[str]:
    """The services the operator lets callers' credentials go to."""
    return frozenset(n.strip() for n in env.get(FORWARD_VARIABLE, "").split(",") if n.strip())


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
        token = _CALLER.set(header)
        try:
            await self.app(scope, receive, send)
        finally:
            _CALLER.reset(token)
