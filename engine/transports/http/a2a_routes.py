"""An engine's FastAPI app -> the same app answering A2A too, the SDK loaded on first use.

(It also installs ``callers.remember``, which keeps each request's credentials for the
remote services the operator lets them reach.)

The agent card (``/.well-known/agent-card.json``) and the JSON-RPC endpoint (``/a2a``) are
mounted on every served service and app; the ``a2a-sdk`` (and protobuf under it, ~15 MiB)
is imported only when an A2A request first arrives, so a server nobody calls over A2A
stays as small as it was. See ``a2a_agent.py`` for what the routes do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from engine.runtime.serving import TurnEngine
from engine.transports.http.callers import remember

if TYPE_CHECKING:
    from engine.transports.http.a2a_agent import Principal

RPC_PATH = "/a2a"
CARD_PATH = "/.well-known/agent-card.json"

__all__ = ["CARD_PATH", "RPC_PATH", "mount"]


class _LazyRpc:
    """The SDK's JSON-RPC app, built on the first request."""

    def __init__(self, engine: TurnEngine, principal: Principal) -> None:
        self.engine, self.principal = engine, principal
        self.app: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.app is None:
            from engine.transports.http.a2a_agent import rpc_app

            self.app = rpc_app(self.engine, self.principal, RPC_PATH)
        await self.app(scope, receive, send)


def mount(app: FastAPI, engine: TurnEngine, *, principal: Principal) -> None:
    """Publish ``engine`` on ``app`` as an A2A agent (agent card + JSON-RPC), and keep each
    request's credentials for the remote services allowed them (``callers.py``)."""
    app.add_middleware(remember)
    app.router.routes.append(Route(RPC_PATH, _LazyRpc(engine, principal), methods=["POST"]))

    @app.get(CARD_PATH, tags=["A2A"])
    async def card(request: Request) -> JSONResponse:
        """The A2A agent card of this service: its skills, and where to send messages (the
        address this request came to, so it is right on any host and port)."""
        from engine.transports.http.a2a_agent import card_json

        return JSONResponse(card_json(engine, str(request.base_url).rstrip("/") + RPC_PATH))
