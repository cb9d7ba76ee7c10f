"""A well-formed ``POST /v1/agent/chat`` -> the chat route's answer, without FastAPI's
per-request machinery around it.

The chat route is the server's hot path. Around a handler FastAPI builds a ``Request`` and
two exit stacks, wraps ``send`` for its exception handlers, matches the route, solves the
dependencies and validates the body through a ``TypeAdapter``: ~55 µs a request in process
on the benchmark machine, more than all the rest of the HTTP layer around a turn (~45 µs:
the edge middleware, this lane, the turn's task, metrics, the DONE as JSON; bench/http.py
measures the served whole). ``ChatLane`` sits innermost in the edge middleware, so the
Gate, the body Guard and the security headers have all done their work, and answers the
plain case itself: a body read once, decoded by ``json`` and validated by ``ChatRequest``
just as FastAPI does it, then the very ``answer`` the FastAPI route calls.

Everything else goes on to FastAPI with the body replayed, so each error body is still the
framework's own, byte for byte: another path or method, a content type other than
``application/json``, a body that does not decode or validate, a client gone mid-body, and
any request FastAPI's own OpenTelemetry instrumentation is watching. The route stays
declared on the app, so ``/openapi.json`` documents it as before.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Awaitable, Callable

from fastapi import FastAPI
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.transports.http.edge import principal
from engine.transports.http.errors import BodyRefusal
from engine.transports.http.schemas import ChatRequest

Answer = Callable[[ChatRequest, "str | None", Callable[[], Awaitable[bool]]],
                  Awaitable[Response]]
"""(request, principal, whether the client has gone) -> the response."""

__all__ = ["Answer", "ChatLane", "install", "parse"]


def install(app: FastAPI, path: str, answer: Answer) -> None:
    """Answer ``POST path`` with ``answer(body, principal)`` inside every edge middleware.

    Appended rather than added: ``add_middleware`` puts a middleware outermost, and this
    one must run after the Gate has found the principal and the Guard counts the body.
    """
    if app.middleware_stack is not None:
        raise RuntimeError("the chat lane must be installed before the app has started")
    app.user_middleware.append(Middleware(ChatLane, path=path, answer=answer))


def parse(body: bytes) -> ChatRequest | None:
    """``body`` as FastAPI would validate it (``json`` then ``ChatRequest`` in Python mode);
    None for anything it would refuse, which FastAPI then explains.

    ``json``, as FastAPI reads it, not orjson, which is faster but reads an integer beyond
    64 bits as a float.

    >>> parse('{"session_id": "u1", "message": "확인"}'.encode()).message
    '확인'
    >>> parse(b'{"session_id": "u1"}') is None, parse(b"[1,") is None
    (True, True)
    """
    try:
        return ChatRequest.model_validate(json.loads(body), from_attributes=True)
    except Exception:  # not JSON, too deep, invalid: FastAPI's path gives the error body
        return None


class ChatLane:
    def __init__(self, app: ASGIApp, *, path: str, answer: Answer) -> None:
        self.app = app
        self.path = path
        self.answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._takes(scope):
            await self.app(scope, receive, send)
            return
        try:
            messages, body = await _read(receive)
        except BodyRefusal as refusal:  # too big, or not UTF-8 (the Guard's counted receive)
            await refusal.response()(scope, receive, send)
            return
        request = parse(body) if body is not None else None
        if request is None:
            await self.app(scope, _replay(messages, receive), send)
            return
        response = await self.answer(request, principal(scope),
                                     Request(scope, receive).is_disconnected)
        await response(scope, receive, send)

    def _takes(self, scope: Scope) -> bool:
        return (scope["type"] == "http" and scope["path"] == self.path
                and scope["method"] == "POST" and not scope.get("root_path")
                and scope.get("fastapi.telemetry") is None and _json_typed(scope))


def _json_typed(scope: Scope) -> bool:
    """The request says its body is ``application/json`` (no parameters, one header)."""
    found = [value for name, value in scope["headers"] if name == b"content-type"]
    return len(found) == 1 and found[0].lower() == b"application/json"


async def _read(receive: Receive) -> tuple[list[Message], bytes | None]:
    """Every message of the body, and the body (None: the client left before its end)."""
    messages: list[Message] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None
        if not message.get("more_body", False):
            if len(messages) == 1:
                return messages, message.get("body", b"")
            return messages, b"".join(m.get("body", b"") for m in messages)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """``receive`` that hands out ``messages`` again first."""
    pending = deque(messages)

    async def replayed() -> Message:
        return pending.popleft() if pending else await receive()

    return replayed
