"""The caller's own credentials, for the remote services the operator lets them reach.

``CALLER`` is a context variable holding the ``Authorization`` header of the request being
served; the HTTP transport's middleware (``engine.transports.http.callers.remember``) sets
it while each request runs (a turn started by the request runs in a task that copies the
context, so it sees it too). A remote or A2A service sends that header on only when the operator
names it in ``FLOWCTL_FORWARD_CREDENTIALS`` (service names, comma separated): handing a
caller's key to another server is the operator's decision, never an app file's.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar

FORWARD_VARIABLE = "FLOWCTL_FORWARD_CREDENTIALS"
CALLER: ContextVar[str | None] = ContextVar("flowctl_caller_authorization", default=None)

__all__ = ["CALLER", "FORWARD_VARIABLE", "caller_authorization", "forwarded"]


def caller_authorization() -> str | None:
    """The ``Authorization`` header of the request this turn serves, if any."""
    return CALLER.get()


def forwarded(env: Mapping[str, str]) -> frozenset[str]:
    """The services the operator lets callers' credentials go to."""
    return frozenset(n.strip() for n in env.get(FORWARD_VARIABLE, "").split(",") if n.strip())
