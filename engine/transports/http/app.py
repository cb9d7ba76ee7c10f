"""Engine + Settings -> the FastAPI app: routes (JSON, SSE, playground, debug) and lifespan.

``POST /v1/agent/chat`` answers ``{interaction, hooks}`` with the DONE payload as
``interaction``; ``/v1/agent/chat/stream`` (POST body or GET query, for ``EventSource``)
streams every event as an SSE frame, DONE last. An empty or blank message is answered by
the engine's DONE ("질문을 입력해주세요."); a request that carries ``Last-Event-ID`` is a
client reconnecting: it gets the rest of that stream from the store (on any instance), or
204 when nothing is left (which stops a browser), and the message never runs twice.

A session belongs to the principal that created it (``edge.Gate`` finds who sent a request);
another principal's session is answered like one that does not exist (404) and no turn
starts. ``POST /v1/agent/sessions`` hands out fresh unguessable ids; ``/login`` and
``/logout`` set and clear the browser's cookie.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import FastAPI, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from engine.compiler.compiled import scrubbed, secrets_of
from engine.config import Settings
from engine.nlu.intents import warm
from engine.observe.hub import Observers
from engine.observe.metrics import TurnMetrics
from engine.runtime.calls.local import supervised
from engine.runtime.serving import TurnEngine
from engine.runtime.values.session import owned_key
from engine.transports.fastjson import FastJSONResponse
from engine.transports.http import a2a_routes, edge, errors, lane, playground_api
from engine.transports.http import runs as runs_api
from engine.transports.http.auth import COOKIE_SECONDS, Auth, bearer, clear_cookie
from engine.transports.http.edge import LOGIN, LOGOUT, PREFIX, principal
from engine.transports.http.errors import error, refusal_response
from engine.transports.http.pending import Reconciler, admin_routes
from engine.transports.http.schemas import (
    AUTH_ERRORS,
    ERRORS,
    SSE_DOC,
    ChatRequest,
    ChatResponse,
    CompletedResponse,
    DebugResponse,
    Health,
    LoginResponse,
    SessionCreated,
    SessionId,
    document_errors,
    error_doc,
)
from engine.transports.http.turns import Turns, sse_frames
from engine.transports.sse import parse_event_id, wire_frame

log = logging.getLogger("flowctl.http")

PLAYGROUND = Path(__file__).parents[1] / "playground"
SHUTDOWN_GRACE_SECONDS = 30.0
# A stream still running at shutdown may go on this long to reach its DONE (less than the
# server's own grace, so the stream ends before uvicorn gives up on its connection).
STREAM_GRACE_SECONDS = SHUTDOWN_GRACE_SECONDS - 3

__all__ = ["PLAYGROUND", "PREFIX", "SHUTDOWN_GRACE_SECONDS", "STREAM_GRACE_SECONDS",
           "create_app"]


def create_app(engine: TurnEngine, *, settings: Settings, ping_seconds: float = 15.0,
               host: str = "127.0.0.1", observers: Observers | None = None) -> FastAPI:
    """The HTTP API of ``engine``: JSON, SSE, playground; debug routes only in FLOWCTL_DEV_MODE.

    (Over 50 lines for its docstring and doctest; the wiring itself is one line a part.)

    ``settings.dev_mode`` comes from the environment only (a flow file cannot switch the
    debug endpoint on); the message limit is the engine's, so both always agree. The app
    does not own the store: whoever opened it closes it after the server stopped. ``host``
    is the address the server listens on (it decides the Host names answered).
    ``observers``: who counts and traces the turns (default: from ``settings``).

    >>> from engine.compiler import compile_file
    >>> from engine.config import Settings
    >>> from engine.runtime.engine import Engine
    >>> from engine.store import MemoryStore
    >>> app = create_app(Engine(compile_file("flows/transfer.yaml"), store=MemoryStore()),
    ...                  settings=Settings())
    >>> sorted(app.openapi()["paths"])  # doctest: +NORMALIZE_WHITESPACE
    ['/.well-known/agent-card.json', '/healthz', '/v1/agent/chat',
     '/v1/agent/chat/stream', '/v1/agent/completed', '/v1/agent/login', '/v1/agent/logout',
     '/v1/agent/service', '/v1/agent/sessions', '/v1/agent/sessions/{session_id}']
    """
    turns = Turns(engine)
    reconciler = Reconciler(engine)
    turns.observers = observers or Observers.for_server(
        engine.about.name, metrics=settings.metrics, env=settings.env,
        active=lambda: len(turns.running), pending=lambda: reconciler.count)
    auth = Auth(settings.api_keys, secret=settings.cookie_secret)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await finish_pending(engine)
        warm(engine.service.intents)  # the intents' model, trained before a message needs it
        starter = asyncio.create_task(engine.prepare())  # stdio MCP servers, in the background
        keeper = asyncio.create_task(retention(engine, settings.retention_days))
        asker = asyncio.create_task(reconciler.run())
        yield
        starter.cancel()  # a start in progress goes on; closing the engine stops it
        keeper.cancel()
        asker.cancel()
        await turns.drain(SHUTDOWN_GRACE_SECONDS)
        turns.observers.close()

    app = FastAPI(title=f"flowctl: {engine.about.name}", lifespan=lifespan,
                  version=engine.about.version, description=engine.about.description,
                  responses={422: ERRORS[422]})
    # add_middleware puts the last one outermost: the Gate, the body Guard, then headers
    edge.install(app, settings, auth, host=host)
    errors.install(app, engine)
    edge.add_outer(app)
    # Routes go straight on the app: an included APIRouter costs ~25 µs more per request.
    chat_route(app, engine, turns)
    stream_routes(app, engine, turns, ping_seconds)
    completed_route(app, engine)
    if settings.dev_mode:
        debug_route(app, engine)
    delete_route(app, engine)
    admin_routes(app, engine, settings.admin_key)
    session_routes(app, auth)
    page_routes(app, engine, settings)
    if turns.observers.metrics is not None:
        metrics_route(app, turns.observers.metrics)
    a2a_routes.mount(app, engine, principal=principal)  # A2A card + JSON-RPC
    playground_api.install(app, engine.service, engine=engine)
    runs_api.serve(app, engine, settings, ping_seconds, SHUTDOWN_GRACE_SECONDS)  # engine/runs
    if supervised(engine.service):  # /api/health, /api/tools/*: a service with local actions
        from engine.transports.http import supervisor  # its models: only where it serves

        supervisor.install(app, engine)
    app.mount("/playground", StaticFiles(directory=PLAYGROUND), name="playground")
    if auth.enabled:
        document_security(app)
    document_context(app, engine.about.context_schema)
    document_errors(app)
    return app


async def finish_pending(engine: TurnEngine) -> None:
    """Before the first request: finish every irreversible action a dead process left
    pending, so its outcome is recorded even if the user never writes again."""
    try:
        finished = await engine.finish_all_pending()
    except Exception as err:  # the store cannot say: each session's next turn still will
        log.error("could not look for pending actions: %s: %s", type(err).__name__, err)
        return
    if finished:
        log.warning("finished %d action(s) a stopped process left pending", finished)


async def retention(engine: TurnEngine, days: float | None, *, every: float = 3600.0) -> None:
    """Delete sessions and completed tasks older than ``days``, now and then every hour."""
    while days is not None:
        try:
            gone = await engine.store.expire(days * 86400)
            if gone:
                log.info("retention: deleted %d session(s) older than %g days", gone, days)
        except Exception as err:
            log.error("retention failed: %s: %s", type(err).__name__, err)
        await asyncio.sleep(every)


def not_found(session_id: str) -> JSONResponse:
    """The answer for a session that does not exist, or is not the caller's to see."""
    return error(404, "not_found", f"no session {session_id!r}")


async def refuse_turn(engine: TurnEngine, body: ChatRequest, who: str | None) -> Response | None:
    """The answer to a turn the engine does not admit (``errors.refusal_response``), or None.
    Another key's session is not a refusal: every key names its own sessions
    (``owned_key``), so it is simply a session of the caller's that is new."""
    session_id = owned_key(body.session_id, who)
    return await refusal_response(engine, engine.admit(body.message, body.context,
                                                       session_id=session_id, owner=who),
                                  session_id, who)


def chat_route(app: FastAPI, engine: TurnEngine, turns: Turns) -> None:
    @app.post(f"{PREFIX}/chat", response_model=ChatResponse, tags=["agent"],
              responses={**ERRORS, **AUTH_ERRORS})
    async def chat(request: Request, body: ChatRequest) -> Response:
        """Run one turn; answer with its DONE payload as `interaction` and its hooks."""
        return await answer(body, principal(request.scope), request.is_disconnected)

    async def answer(body: ChatRequest, who: str | None,
                     gone: Callable[[], Awaitable[bool]]) -> Response:
        refused = await refuse_turn(engine, body, who)
        if refused is not None:
            return refused
        done = await turns.reply(owned_key(body.session_id, who), body.message, owner=who,
                                  context=body.context)
        if done.refusal is not None and done.refusal.kind == "forbidden":  # claimed since
            return not_found(body.session_id)
        # marked told once the answer was written to a client still there (after the write:
        # a process killed before it leaves the outcome to be told by the next turn)
        told = BackgroundTask(done.delivered) if done.delivered is not None and \
            not await gone() else None
        return FastJSONResponse({"interaction": done.payload(), "hooks": done.hooks},
                                background=told)

    lane.install(app, f"{PREFIX}/chat", answer)  # the plain request skips FastAPI's work


def stream_routes(app: FastAPI, engine: TurnEngine, turns: Turns,
                  ping_seconds: float) -> None:
    async def stream(request: Request, body: ChatRequest) -> Response:
        who = principal(request.scope)
        last = request.headers.get("last-event-id")
        if last is not None:  # a reconnect: the rest of that stream; never run a message twice
            return await resume(owned_key(body.session_id, who), last, who)
        refused = await refuse_turn(engine, body, who)
        if refused is not None:
            return refused
        # runs even if the client leaves; its events are kept under the stream's id
        stream_id = uuid.uuid4().hex[:12]
        queue = turns.start(owned_key(body.session_id, who), body.message, owner=who,
                            stream=stream_id,
                            context=body.context)
        # At shutdown the stream goes on to its DONE (the turn finishes anyway).
        return EventSourceResponse(sse_frames(engine, queue, stream_id),
                                   ping=ping_seconds, headers={"Cache-Control": "no-cache"},
                                   shutdown_grace_period=STREAM_GRACE_SECONDS)

    async def resume(session_id: str, last: str, who: str | None) -> Response:
        parsed = parse_event_id(last)
        missed = await engine.replay(session_id, *parsed, owner=who) if parsed else []
        if not missed:
            return Response(status_code=204)  # nothing (more) to send: a browser stops
        stream_id = parsed[0] if parsed else ""
        frames = (wire_frame(name, payload, stream_id=stream_id, index=i)
                  for i, name, payload in missed)
        return EventSourceResponse(_iterate(frames), ping=ping_seconds,
                                   headers={"Cache-Control": "no-cache"})

    @app.post(f"{PREFIX}/chat/stream", response_class=EventSourceResponse, tags=["agent"],
              responses={**ERRORS, **AUTH_ERRORS, **SSE_DOC})
    async def stream_post(request: Request, body: ChatRequest) -> Response:
        """Run one turn and stream its events as Server-Sent Events."""
        return await stream(request, body)

    @app.get(f"{PREFIX}/chat/stream", response_class=EventSourceResponse, tags=["agent"],
             responses={**ERRORS, **AUTH_ERRORS, **SSE_DOC})
    async def stream_get(request: Request, query: Annotated[ChatRequest, Query()]) -> Response:
        """The same, with `session_id` and `message` as query parameters (`EventSource`)."""
        return await stream(request, query)


async def _iterate(frames: Iterable[ServerSentEvent]) -> AsyncIterator[ServerSentEvent]:
    for item in frames:
        yield item


def completed_route(app: FastAPI, engine: TurnEngine) -> None:
    @app.get(f"{PREFIX}/completed", response_model=CompletedResponse, tags=["agent"],
             responses={**ERRORS, **AUTH_ERRORS})
    async def completed(request: Request,
                        session_id: Annotated[SessionId, Query()]) -> Response:
        """Finished tasks of a session (executed, cancelled, failed...), oldest first; a
        session nobody started answers exactly as another caller's does (404), so the
        endpoint tells no one which sessions exist."""
        who = principal(request.scope)
        key = owned_key(session_id, who)
        record = await engine.store.load(key)
        if record is None or record.data.get("owner") != who:
            return not_found(session_id)
        return JSONResponse({"session_id": session_id,
                             "completed": await engine.store.completed(key)})


def debug_route(app: FastAPI, engine: TurnEngine) -> None:
    store = engine.store

    @app.get(f"{PREFIX}/debug/{{session_id}}", response_model=DebugResponse,
             tags=["debug (FLOWCTL_DEV_MODE only)"],
             responses={404: error_doc(), **AUTH_ERRORS})
    async def debug(request: Request, session_id: str) -> Response:
        """The stored session (state, memory) and its completed tasks."""
        who = principal(request.scope)
        key = owned_key(session_id, who)
        record = await store.load(key)
        if record is None or record.data.get("owner") != who:
            return not_found(session_id)
        state = dict(record.data)
        memory = state.pop("memory", {})
        # sensitive slots are masked here too, wherever their values appear
        secrets = secrets_of(state.get("slots") or {}, engine.service.sensitive)
        body = {"session_id": session_id, "version": record.version, "state": state,
                "memory": {"raw_history": [], "summary_text": "", **memory},
                "completed": await store.completed(key)}
        return JSONResponse(scrubbed(body, secrets))


def delete_route(app: FastAPI, engine: TurnEngine) -> None:
    @app.delete(f"{PREFIX}/sessions/{{session_id}}", status_code=204, tags=["agent"],
                responses={404: error_doc(), **AUTH_ERRORS})
    async def delete_session(request: Request, session_id: str) -> Response:
        """Forget a session of the caller's and its completed tasks (404 for any other)."""
        who = principal(request.scope)
        if not await engine.delete(owned_key(session_id, who), who):
            return not_found(session_id)
        return Response(status_code=204)


def session_routes(app: FastAPI, auth: Auth) -> None:
    @app.post(f"{PREFIX}/sessions", status_code=201, response_model=SessionCreated,
              tags=["agent"], responses=AUTH_ERRORS)
    async def new_session() -> Response:
        """A fresh session id (192 random bits): the session is the caller's from its first
        turn on."""
        return JSONResponse({"session_id": secrets.token_urlsafe(24)}, status_code=201)

    @app.post(LOGIN, response_model=LoginResponse, tags=["auth"],
              responses={200: {"description": "Logged in: the cookie is set. A server "
                                    "without keys has nothing to log in to: 200 with "
                                    "principal and expires_in null, whatever was sent."},
                         401: error_doc("Not a valid key."),
                         422: error_doc("A server with keys got no key."),
                         403: AUTH_ERRORS[403], 429: AUTH_ERRORS[429]},
              openapi_extra={"requestBody": {"required": False, "content": {
                  "application/json": {"schema": {
                      "type": "object", "properties": {"key": {"type": "string"}},
                      "required": ["key"]}},
                  "application/x-www-form-urlencoded": {"schema": {
                      "type": "object", "properties": {"key": {"type": "string"}},
                      "required": ["key"]}}}}})
    async def login(request: Request) -> Response:
        """Trade an API key (`Authorization: Bearer KEY`, JSON `{"key"}` or a form field
        `key`) for an HttpOnly cookie, so that a browser's `EventSource` is authenticated."""
        if not auth.enabled:
            return JSONResponse({"principal": None, "expires_in": None})
        key = bearer(request.headers.get("authorization")) or await key_in_body(request)
        if key is None:
            return error(422, "invalid_request", "send the key as 'Authorization: Bearer KEY', "
                         'a JSON body {"key": "..."} or a form field key')
        who = auth.principal_of(key)
        if who is None:
            return error(401, "unauthorized", "that is not a valid API key",
                         headers={"WWW-Authenticate": 'Bearer realm="flowctl"'})
        response = JSONResponse({"principal": who, "expires_in": COOKIE_SECONDS})
        secure = request.url.scheme == "https"
        response.headers["Set-Cookie"] = auth.set_cookie(who, secure=secure)
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.post(LOGOUT, status_code=204, tags=["auth"], responses={403: AUTH_ERRORS[403]})
    async def logout(request: Request) -> Response:
        """Clear the login cookie."""
        return Response(status_code=204, headers={
            "Set-Cookie": clear_cookie(secure=request.url.scheme == "https")})


async def key_in_body(request: Request) -> str | None:
    """The ``key`` of a JSON or form body; None when there is none (or it is no string)."""
    body = await request.body()
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    found: Any = None
    try:
        if kind == "application/json":
            data = json.loads(body)
            found = data.get("key") if isinstance(data, dict) else None
        elif kind == "application/x-www-form-urlencoded":
            found = next(iter(parse_qs(body.decode(), max_num_fields=8).get("key", [])), None)
    except ValueError:  # not JSON, too many fields
        return None
    return found.strip() if isinstance(found, str) and found.strip() else None


def document_context(app: FastAPI, declared: Mapping[str, Any] | None) -> None:
    """OpenAPI: a request's ``context`` is what this service's ``context`` schema declares
    (or null); a service that declares none takes none."""
    make = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = make()
            field = schema["components"]["schemas"]["ChatRequest"]["properties"]["context"]
            field.pop("examples", None)
            field["anyOf"] = [dict(declared), {"type": "null"}] if declared is not None \
                else [{"type": "null"}]
            if declared is None:
                field["description"] = "This service declares no request context: none or null."
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def document_security(app: FastAPI) -> None:
    """OpenAPI: every operation but the open ones wants a Bearer key or the login cookie."""
    make = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = make()
            schema.setdefault("components", {})["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer"},
                "cookie": {"type": "apiKey", "in": "cookie", "name": "flowctl_auth"}}
            for path, operations in schema["paths"].items():
                if path not in edge.PUBLIC:
                    for operation in operations.values():
                        operation["security"] = [{"bearer": []}, {"cookie": []}]
        assert app.openapi_schema is not None  # make() keeps what it made
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def metrics_route(app: FastAPI, metrics: TurnMetrics) -> None:
    @app.get("/metrics", include_in_schema=False)
    async def prometheus() -> Response:
        """Counters of turns, errors, failure tags and model calls (FLOWCTL_METRICS=0: off)."""
        return Response(metrics.exposition(), media_type=metrics.content_type)


def page_routes(app: FastAPI, engine: TurnEngine, settings: Settings) -> None:
    @app.get("/", include_in_schema=False)
    async def playground() -> FileResponse:
        return FileResponse(PLAYGROUND / "index.html")

    @app.get("/healthz", response_model=Health, tags=["ops"])
    async def healthz() -> Response:
        """Liveness, plus what the playground needs to know."""
        return JSONResponse({"status": "ok", "service": engine.about.name,
                             "dev_mode": settings.dev_mode,
                             "max_message_chars": engine.settings.max_message_chars})
