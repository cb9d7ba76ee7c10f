"""Exceptions and refusals -> JSON error responses ``{error, message, …}``, in one place.

Never a 500 and never a stack trace: a malformed request is 422 (also a path, query or body
that is not valid UTF-8, and a string with a lone surrogate), an unknown path or method
404/405, a body too big 413, a turn the engine does not admit as its refusal says
(``refusal_response``: a message over ``max_message_chars`` 413, a bad context 422), and
anything that escaped a route a logged 503 (nothing was saved; safe to retry). ``install``
puts the handlers and the ``Guard`` middleware on an app.
"""

from __future__ import annotations

import codecs
import json
import logging
import uuid
from typing import Any, assert_never
from urllib.parse import unquote_to_bytes

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.runtime.serving import TurnEngine
from engine.runtime.values.admission import Refusal

log = logging.getLogger("flowctl.http")

__all__ = ["BodyRefusal", "Guard", "error", "install", "refusal_response"]


class ErrorResponse(JSONResponse):
    """A JSON error body that renders even when it quotes a string with a lone surrogate."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":")).encode("utf-8", "replace")


def error(status: int, code: str, message: str, *, headers: dict[str, str] | None = None,
          **extra: Any) -> JSONResponse:
    return ErrorResponse({"error": code, "message": message, **extra}, status_code=status,
                         headers=headers)


class BodyRefusal(HTTPException):
    """A request refused while its body was being read (too big, not UTF-8): raised from
    ``receive`` so that FastAPI passes it on as it is, answered as ``error(status, code)``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(status, message)
        self.code = code

    def response(self) -> JSONResponse:
        return error(self.status_code, self.code, str(self.detail))


def install(app: FastAPI, engine: TurnEngine) -> None:
    """The error handlers and the body-size ``Guard`` of ``engine``'s app."""
    # \uXXXX escapes take 6 bytes a character: no allowed message needs a bigger body
    app.add_middleware(Guard, max_body=6 * engine.settings.max_message_chars + 65536)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(HTTPException, http_error)


async def refusal_response(engine: TurnEngine, refusal: Refusal | None, session_id: str,
                           owner: str | None) -> JSONResponse | None:
    """The answer to a turn the engine does not admit (``Engine.admit``), or None when it
    runs: a message over the limit is 413, with the DONE a chat client reads as
    ``interaction`` (the refusal's text, ``CONTEXT_OVERFLOW``, the session as it is); a
    context the service does not take is 422, a caller over its turns a minute 429 (with
    ``Retry-After``). An empty message is answered by the turn
    itself (its DONE says so), and ``forbidden`` comes from the turn too."""
    if refusal is None:
        return None
    match refusal.kind:
        case "message_too_long":
            done = await engine.refused(session_id, refusal, owner)
            return error(413, refusal.kind, refusal.text, limit=refusal.limit,
                         interaction=done.payload())
        case "bad_context":
            return error(422, refusal.kind, "; ".join(refusal.problems),
                         problems=list(refusal.problems))
        case "rate_limited":
            return error(429, refusal.kind, refusal.text, retry_after=refusal.retry_after,
                         headers={"Retry-After": str(refusal.retry_after)})
        case "empty_message" | "forbidden":
            return None
        case other:
            assert_never(other)


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


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    if isinstance(exc, BodyRefusal):
        return exc.response()
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    response = error(exc.status_code, code, str(exc.detail))
    response.headers.update(exc.headers or {})
    if exc.status_code == 405:  # every route of the path, not only the first one's methods
        response.headers["Allow"] = ", ".join(allowed_methods(request))
    return response


def allowed_methods(request: Request) -> list[str]:
    """The methods some route of the app answers on the request's path."""
    found: set[str] = set()
    for route in request.app.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        methods = getattr(route, "methods", None)
        if match != Match.NONE and methods:
            found.update(methods)
    return sorted(found)


class Guard:
    """The edge of every request: refuses a body larger than ``max_body`` (413), unread when
    its Content-Length says so, else as soon as the bytes that arrived pass the limit (a
    chunked body); refuses a path, query or body that is not valid UTF-8 (422); turns any
    exception that escaped a route into a logged 503 with a JSON body."""

    def __init__(self, app: ASGIApp, *, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal.response()(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, self._counted(receive), watch)
        except Exception as exc:
            if started:
                log.exception("%s %s failed mid-response", scope["method"], scope["path"])
            elif isinstance(exc, BodyRefusal):
                await exc.response()(scope, receive, send)
            else:
                error_id = uuid.uuid4().hex[:8]
                log.exception("%s %s failed (error %s)", scope["method"], scope["path"],
                              error_id)
                await error(503, "server_error", "the server could not complete this request "
                            "and saved nothing; try again", error_id=error_id)(scope, receive,
                                                                                send)

    def _refusal(self, scope: Scope) -> BodyRefusal | None:
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit() or
                                              int(value) > self.max_body):
                return self._too_big()
        for part, raw in (("path", scope.get("raw_path") or b""),
                          ("query string", scope.get("query_string") or b"")):
            if raw.isascii() and b"%" not in raw:
                continue  # nothing to decode: valid as it is
            try:
                unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
            except UnicodeDecodeError:
                return BodyRefusal(422, "invalid_request", f"the {part} is not valid UTF-8 once "
                               "percent-decoded")
        return None

    def _too_big(self) -> BodyRefusal:
        return BodyRefusal(413, "body_too_large", f"the request body is over {self.max_body} bytes")

    def _counted(self, receive: Receive) -> Receive:
        """``receive`` that counts the body's bytes as they arrive and checks they are UTF-8
        (``utf_8_decode`` as an incremental decoder does it, without building one a request:
        an unfinished character at the end of a chunk waits for the next)."""
        size = 0
        tail = b""

        async def counted() -> Message:
            nonlocal size, tail
            message = await receive()
            if message["type"] == "http.request":
                body = message.get("body", b"")
                size += len(body)
                if size > self.max_body:
                    raise self._too_big()
                data = tail + body if tail else body
                try:
                    _, used = codecs.utf_8_decode(data, "strict",
                                                  not message.get("more_body", False))
                except UnicodeDecodeError:
                    raise BodyRefusal(422, "invalid_request", "the body is not valid UTF-8") \
                        from None
                tail = data[used:]
            return message

        return counted
