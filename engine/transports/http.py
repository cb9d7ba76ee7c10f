"""Engine -> FastAPI app (JSON, SSE, playground); ``serve``: compile, bind, open store, run.

The wire protocol is the seeds' (DESIGN §4): ``POST /v1/agent/chat`` answers
``{interaction, hooks}`` with the DONE payload as ``interaction``; ``/v1/agent/chat/stream``
(POST body or GET query, for ``EventSource``) streams every event as an SSE frame, DONE
last. docs/server.md is the reference; the decisions it records are made here:

- every turn runs in its own task and its events go to a queue that the response drains,
  so a client that disconnects mid-turn never cuts a turn in half: it commits anyway;
- an empty or blank message is answered by the engine's DONE ("질문을 입력해주세요."), a
  message over ``max_message_chars`` by 413, a malformed request by 422, and a failure of
  the server itself by 503 with a JSON body (nothing was saved; safe to retry) — never a
  500 and never a stack trace;
- a request that carries ``Last-Event-ID`` is an ``EventSource`` reconnecting: it gets
  204 (which stops the browser) instead of running the same message twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import errno
import logging
import socket
import time
import uuid
from collections.abc import AsyncIterator, Coroutine, Mapping
from pathlib import Path
from typing import Annotated, Any, TypeVar

import uvicorn
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.compiler import compile_file
from engine.config import Settings, load_settings
from engine.dsl.spec import NextAction
from engine.errors import FlowRuntimeError
from engine.runtime.engine import Engine
from engine.runtime.events import Done, Event
from engine.runtime.session import SessionState
from engine.runtime.turn import snapshot
from engine.store import SessionStore, open_store
from engine.transports.sse import frame

log = logging.getLogger("flowctl.http")

PLAYGROUND = Path(__file__).with_name("playground")
DEFAULT_STORE = "sqlite:///.flowctl/sessions.db"
PREFIX = "/v1/agent"
SHUTDOWN_GRACE_SECONDS = 30.0
T = TypeVar("T")

__all__ = ["DEFAULT_STORE", "create_app", "run_server", "serve", "server_config"]


# -- request and response models (they are also the OpenAPI docs at /docs) -------------------

def _session_id(value: str) -> str:
    if not value.strip() or value != value.strip():
        raise ValueError("session_id must not be blank nor start or end with a space")
    return value


SessionId = Annotated[str, Field(min_length=1, max_length=128, examples=["user-001"],
                                 description="Any id the client picks; 1-128 characters."),
                      AfterValidator(_session_id)]


class ChatRequest(BaseModel):
    """One user message for one session."""

    session_id: SessionId
    message: str = Field(examples=["엄마한테 1만원 보내줘"],
                         description="Blank -> a DONE asking for a question; longer than "
                                     "max_message_chars (default 4000) -> 413.")


class UiHint(BaseModel):
    buttons: list[str] = Field(description="Texts the client may offer as buttons; sending "
                                           "one is the same as typing it.")


class StateSnapshot(BaseModel):
    model_config = ConfigDict(extra="allow")
    flow: str | None
    stage: str | None
    slots: dict[str, Any]
    missing_required: list[str]
    filling_turns: int
    meta: dict[str, Any] = Field(description="`slot_errors` and batch progress live here.")
    task_queue: list[dict[str, Any]]


class AgentTrace(BaseModel):
    model_config = ConfigDict(extra="allow")
    agent: str
    elapsed_ms: float
    success: bool
    retries: int
    error: str | None


class Trace(BaseModel):
    model_config = ConfigDict(extra="allow")
    turn_id: str
    total_elapsed_ms: float
    agents: list[AgentTrace]
    error: str | None = Field(None, description="Set when the turn failed and saved nothing.")


class Hook(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    data: dict[str, Any]


class Interaction(BaseModel):
    """The DONE payload: always the last event of a turn."""

    model_config = ConfigDict(populate_by_name=True)
    message: str
    next_action: NextAction
    ui_hint: UiHint
    state_snapshot: StateSnapshot
    hooks: list[Hook]
    trace: Trace = Field(alias="_trace")


class ChatResponse(BaseModel):
    interaction: Interaction
    hooks: list[Hook]


class CompletedResponse(BaseModel):
    session_id: str
    completed: list[dict[str, Any]] = Field(description="Finished tasks, oldest first: flow, "
                                                        "outcome, slots, at, result.")


class Memory(BaseModel):
    raw_history: list[dict[str, str]]
    summary_text: str


class DebugResponse(BaseModel):
    session_id: str
    version: int
    state: dict[str, Any]
    memory: Memory
    completed: list[dict[str, Any]]


class Health(BaseModel):
    status: str
    service: str
    dev_mode: bool
    max_message_chars: int


class ErrorBody(BaseModel):
    error: str = Field(examples=["message_too_long"])
    message: str
    detail: list[dict[str, Any]] | None = None


def error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": code, "message": message, **extra}, status_code=status)


ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "The message is longer than max_message_chars."},
    422: {"model": ErrorBody, "description": "Malformed JSON or a missing/empty field."},
    503: {"model": ErrorBody, "description": "The server failed; nothing was saved."},
}


# -- turns run in their own tasks -------------------------------------------------------------

class Turns:
    """Starts each turn as a task feeding a queue; a turn outlives the request that began it."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.running: set[asyncio.Task[Any]] = set()

    def start(self, session_id: str, message: str) -> asyncio.Queue[Event | Exception]:
        """Begin a turn whose events (or the exception that stopped it) go to a queue."""
        queue: asyncio.Queue[Event | Exception] = asyncio.Queue()
        self._spawn(self._pump(self.engine.turn(session_id, message), queue))
        return queue

    async def reply(self, session_id: str, message: str) -> Done:
        """The DONE of a turn; raises what the engine raised if it could not answer."""
        task = self._spawn(_done_of(self.engine.turn(session_id, message)))
        return await asyncio.shield(task)  # a request cancelled mid-turn leaves it running

    def _spawn(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.create_task(work)
        self.running.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self.running.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: whoever awaited it has logged it, or it is gone

    async def drain(self, timeout: float) -> None:
        if self.running:
            log.info("waiting for %d turn(s) to finish", len(self.running))
            await asyncio.wait(set(self.running), timeout=timeout)

    @staticmethod
    async def _pump(events: AsyncIterator[Event], queue: asyncio.Queue[Event | Exception]) -> None:
        try:
            async for event in events:
                queue.put_nowait(event)
        except Exception as err:  # the engine could not even answer (its store failed)
            queue.put_nowait(err)  # the consumer logs it: once, with its request


async def _done_of(events: AsyncIterator[Event]) -> Done:
    async for event in events:
        if isinstance(event, Done):
            return event
    raise RuntimeError("the turn ended without its DONE")


def failed_done(engine: Engine, stream_id: str, started: float) -> Done:
    """The DONE a stream ends with when the engine raised instead of answering."""
    return Done(message=engine.text("turn_failed"), next_action="ASK",
                ui_hint={"buttons": []}, state_snapshot=snapshot(SessionState(), None),
                trace={"turn_id": stream_id, "agents": [], "error": "server_error",
                       "total_elapsed_ms": round((time.perf_counter() - started) * 1000, 3)})


async def sse_frames(engine: Engine, queue: asyncio.Queue[Event | Exception],
                     stream_id: str) -> AsyncIterator[ServerSentEvent]:
    """Drain a turn's queue as SSE frames up to DONE; leaving early leaves the turn running."""
    started = time.perf_counter()
    index = 0
    while True:
        item = await queue.get()
        if isinstance(item, Exception):
            log.error("stream %s: turn failed before its DONE", stream_id, exc_info=item)
        event = failed_done(engine, stream_id, started) if isinstance(item, Exception) else item
        yield frame(event, stream_id=stream_id, index=index)
        index += 1
        if isinstance(event, Done):
            return


# -- the app ----------------------------------------------------------------------------------

def create_app(engine: Engine, *, settings: Settings, ping_seconds: float = 15.0) -> FastAPI:
    """The HTTP API of ``engine``: JSON, SSE, playground; debug routes only in DEV_MODE.

    ``settings.dev_mode`` comes from the environment only (a flow file cannot switch the
    debug endpoint on); the message limit is the engine's, so both always agree. The app
    does not own the store: whoever opened it closes it after the server stopped.

    >>> from engine.compiler import compile_file
    >>> from engine.store import MemoryStore
    >>> app = create_app(Engine(compile_file("flows/transfer.yaml"), store=MemoryStore()),
    ...                  settings=Settings())
    >>> sorted(app.openapi()["paths"])
    ['/healthz', '/v1/agent/chat', '/v1/agent/chat/stream', '/v1/agent/completed']
    """
    turns = Turns(engine)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await turns.drain(SHUTDOWN_GRACE_SECONDS)

    app = FastAPI(title=f"flowctl: {engine.service.name}", lifespan=lifespan,
                  version=str(engine.service.spec.version or "0"),
                  description=engine.service.spec.description or "",
                  responses={422: ERRORS[422]})
    # \uXXXX escapes take 6 bytes a character: no allowed message needs a bigger body
    app.add_middleware(Guard, max_body=6 * engine.settings.max_message_chars + 65536)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(HTTPException, http_error)
    # Routes go straight on the app: an included APIRouter costs ~25 µs more per request.
    agent_routes(app, engine, turns, ping_seconds)
    if settings.dev_mode:
        debug_routes(app, engine.store)
    page_routes(app, engine, settings)
    app.mount("/playground", StaticFiles(directory=PLAYGROUND), name="playground")
    return app


def agent_routes(app: FastAPI, engine: Engine, turns: Turns, ping_seconds: float) -> None:
    limit = engine.settings.max_message_chars

    def too_long(message: str) -> JSONResponse | None:
        if message.strip() and len(message) > limit:
            return error(413, "message_too_long", engine.text("message_too_long",
                                                       limit=limit), limit=limit)
        return None

    @app.post(f"{PREFIX}/chat", response_model=ChatResponse, tags=["agent"], responses=ERRORS)
    async def chat(body: ChatRequest) -> Response:
        """Run one turn; answer with its DONE payload as `interaction` and its hooks."""
        refused = too_long(body.message)
        if refused is not None:
            return refused
        done = await turns.reply(body.session_id, body.message)
        return JSONResponse({"interaction": done.payload(), "hooks": done.hooks})

    def stream(request: Request, body: ChatRequest) -> Response:
        if request.headers.get("last-event-id") is not None:
            return Response(status_code=204)  # a reconnect: never run a message twice
        refused = too_long(body.message)
        if refused is not None:
            return refused
        queue = turns.start(body.session_id, body.message)  # runs even if the client leaves
        return EventSourceResponse(sse_frames(engine, queue, uuid.uuid4().hex[:12]),
                                   ping=ping_seconds, headers={"Cache-Control": "no-cache"})

    sse_doc: dict[int | str, dict[str, Any]] = {
        200: {"content": {"text/event-stream": {}},
              "description": "SSE: AGENT_START, LLM_TOKEN, LLM_DONE, AGENT_DONE, "
                             "TASK_PROGRESS, then DONE (always last; same payload as "
                             "`interaction`)."},
        204: {"description": "The request carried Last-Event-ID (an EventSource "
                             "reconnecting); no turn ran."}}

    @app.post(f"{PREFIX}/chat/stream", response_class=EventSourceResponse, tags=["agent"],
              responses={**ERRORS, **sse_doc})
    async def stream_post(request: Request, body: ChatRequest) -> Response:
        """Run one turn and stream its events as Server-Sent Events."""
        return stream(request, body)

    @app.get(f"{PREFIX}/chat/stream", response_class=EventSourceResponse, tags=["agent"],
             responses={**ERRORS, **sse_doc})
    async def stream_get(request: Request, query: Annotated[ChatRequest, Query()]) -> Response:
        """The same, with `session_id` and `message` as query parameters (`EventSource`)."""
        return stream(request, query)

    @app.get(f"{PREFIX}/completed", response_model=CompletedResponse, tags=["agent"],
             responses=ERRORS)
    async def completed(session_id: Annotated[SessionId, Query()]) -> Response:
        """Finished tasks of a session (executed, cancelled, failed...), oldest first."""
        return JSONResponse({"session_id": session_id,
                             "completed": await engine.store.completed(session_id)})


def debug_routes(app: FastAPI, store: SessionStore) -> None:
    @app.get(f"{PREFIX}/debug/{{session_id}}", response_model=DebugResponse,
             tags=["debug (DEV_MODE only)"], responses={404: {"model": ErrorBody}})
    async def debug(session_id: str) -> Response:
        """The stored session (state, memory) and its completed tasks."""
        record = await store.load(session_id)
        if record is None:
            return error(404, "not_found", f"no session {session_id!r}")
        state = dict(record.data)
        memory = state.pop("memory", {})
        return JSONResponse({"session_id": session_id, "version": record.version,
                             "state": state, "memory": {"raw_history": [], "summary_text": "",
                                                        **memory},
                             "completed": await store.completed(session_id)})


def page_routes(app: FastAPI, engine: Engine, settings: Settings) -> None:
    @app.get("/", include_in_schema=False)
    async def playground() -> FileResponse:
        return FileResponse(PLAYGROUND / "index.html")

    @app.get("/healthz", response_model=Health, tags=["ops"])
    async def healthz() -> Response:
        """Liveness, plus what the playground needs to know."""
        return JSONResponse({"status": "ok", "service": engine.service.name,
                             "dev_mode": settings.dev_mode,
                             "max_message_chars": engine.settings.max_message_chars})


# -- errors as JSON, in one place ------------------------------------------------------------

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


# -- serve ------------------------------------------------------------------------------------

def server_config(app: Any, *, host: str, port: int,
                  max_message_chars: int = 4000) -> uvicorn.Config:
    """The uvicorn configuration of ``flowctl serve`` (bench/http.py serves with it too).

    The HTTP parser's buffer must hold a GET whose query carries the longest message allowed
    (9 bytes per percent-encoded Korean character), so that one too long still reaches the
    app and gets its 413 rather than the parser's bare 400.
    """
    logging_config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    logging_config["loggers"]["flowctl"] = {"handlers": ["default"], "level": "INFO",
                                            "propagate": False}
    return uvicorn.Config(app, host=host, port=port, log_config=logging_config,
                          access_log=False, timeout_graceful_shutdown=int(SHUTDOWN_GRACE_SECONDS),
                          h11_max_incomplete_event_size=max(65536, 9 * max_message_chars + 16384))


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``, or FlowRuntimeError with a one-line reason."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as err:
        raise FlowRuntimeError(f"cannot resolve host {host!r}: {err.strerror}") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise FlowRuntimeError(f"port {port} on {host} is already in use; stop the other "
                                   "server or pick another port with --port") from None
        raise FlowRuntimeError(f"cannot listen on {host}:{port}: {err.strerror}") from None
    return sock


async def serve(flow_path: str, *, host: str = "127.0.0.1", port: int = 8000,
                store_url: str = DEFAULT_STORE, env: Mapping[str, str]) -> None:
    """Compile ``flow_path``, bind ``host:port``, open the store and serve until stopped.

    Raises FlowDefinitionError for an invalid flow and FlowRuntimeError (one line) for a
    bad setting in ``env``, a port in use or a store that cannot be opened or written.
    """
    service = compile_file(flow_path)
    try:
        settings = load_settings(env)
    except ValueError as err:
        raise FlowRuntimeError(str(err)) from None
    sock = bind(host, port)
    try:
        store = open_store(store_url)
    except BaseException:
        sock.close()
        raise
    try:
        engine = Engine(service, store=store, settings=settings)
        try:
            app = create_app(engine, settings=settings)
            port = sock.getsockname()[1]
            server = uvicorn.Server(server_config(
                app, host=host, port=port, max_message_chars=engine.settings.max_message_chars))
            log.info("serving %s from %s with store %s; playground at http://%s:%d/",
                     service.name, flow_path, store_url, host, port)
            await server.serve(sockets=[sock])
        finally:
            await engine.aclose()  # the providers' HTTP clients
    finally:
        sock.close()
        await store.close()


def run_server(flow_path: str, *, host: str = "127.0.0.1", port: int = 8000,
               store_url: str = DEFAULT_STORE, env: Mapping[str, str]) -> None:
    """``serve`` for synchronous callers (the CLI); same arguments, same exceptions."""
    asyncio.run(serve(flow_path, host=host, port=port, store_url=store_url, env=env))
