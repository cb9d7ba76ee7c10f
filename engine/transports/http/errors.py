"""Exceptions and refusals -> JSON error responses ``{error, message, …}``, in one place.

Never a 500 and never a stack trace: a malformed request is 422, an unknown path or method
404/405, a message over ``max_message_chars`` or a body too big to read 413, and anything
that escaped a route a logged 503 (nothing was saved; safe to retry). ``install`` puts the
handlers and the ``Guard`` middleware on an app.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.runtime.engine import Engine

log = logging.getLogger("flowctl.http")

__all__ = ["Guard", "error", "install", "too_long"]


def error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": code, "message": message, **extra}, status_code=status)


def install(app: FastAPI, engine: Engine) -> None:
    """The error handlers and the body-size ``Guard`` of ``engine``'s app."""
    # \uXXXX escapes take 6 bytes a character: no allowed message needs a bigger body
    app.add_middleware(Guard, max_body=6 * engine.settings.max_message_chars + 65536)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(HTTPException, http_error)


def too_long(engine: Engine, message: str) -> JSONResponse | None:
    """The 413 of a message over the engine's limit; None when the turn may run."""
    limit = engine.settings.max_message_chars
    if message.strip() and len(message) > limit:
        return error(413, "message_too_long", engine.text("message_too_long", limit=limit),
                     limit=limit)
    return None


async def invalid_request(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    detail = [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
    return error(422, "invalid_request", "; ".join(_explain(d) for d in detail) or
                 "invalid request", detail=detail)


def _explain(problem: dict[str, Any]) -> str:
    """``body.session_id: Field required`` -> ``session_id: field required``."""
    if problem["type"] == "json_invalid":
        return f"the body is not valid JSON (near character {problem['loc'][-1]})"
    where = ".".join(str(p) for p in problem["loc"][1:]) or str(problem["loc"][0])
    return f"{where}: {problem['msg'].removeprefix('Value error, ')}"


async def http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    response = error(exc.status_code, code, str(exc.detail))
    response.headers.update(exc.headers or {})
    return response


class Guard:
    """Refuses a body larger than ``max_body`` unread (413); turns any exception that
    escaped a route into a logged 503 with a JSON body."""

    def __init__(self, app: ASGIApp, *, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._too_big(scope):
            await error(413, "body_too_large", f"the request body is over {self.max_body} "
                        "bytes")(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception:
            error_id = uuid.uuid4().hex[:8]
            log.exception("%s %s failed (error %s)", scope["method"], scope["path"], error_id)
            if not started:
                await error(503, "server_error", "the server could not complete this request "
                            "and saved nothing; try again", error_id=error_id)(scope, receive,
                                                                                send)

    def _too_big(self, scope: Scope) -> bool:
        for name, value in scope["headers"]:
            if name == b"content-length":
                return not value.isdigit() or int(value) > self.max_body
        return False
