"""Engine + Settings -> the FastAPI app: routes (JSON, SSE, playground, debug) and lifespan.

``POST /v1/agent/chat`` answers ``{interaction, hooks}`` with the DONE payload as
``interaction``; ``/v1/agent/chat/stream`` (POST body or GET query, for ``EventSource``)
streams every event as an SSE frame, DONE last. An empty or blank message is answered by
the engine's DONE ("질문을 입력해주세요."); a request that carries ``Last-Event-ID`` is an
``EventSource`` reconnecting and gets 204 (which stops the browser) instead of running the
same message twice.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated

from fastapi import FastAPI, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sse_starlette import EventSourceResponse

from engine.config import Settings
from engine.runtime.engine import Engine
from engine.store import SessionStore
from engine.transports.http import errors
from engine.transports.http.errors import error, too_long
from engine.transports.http.schemas import (
    ERRORS,
    SSE_DOC,
    ChatRequest,
    ChatResponse,
    CompletedResponse,
    DebugResponse,
    ErrorBody,
    Health,
    SessionId,
)
from engine.transports.http.turns import Turns, sse_frames

PLAYGROUND = Path(__file__).parents[1] / "playground"
PREFIX = "/v1/agent"
SHUTDOWN_GRACE_SECONDS = 30.0

__all__ = ["PLAYGROUND", "PREFIX", "SHUTDOWN_GRACE_SECONDS", "create_app"]


def create_app(engine: Engine, *, settings: Settings, ping_seconds: float = 15.0) -> FastAPI:
    """The HTTP API of ``engine``: JSON, SSE, playground; debug routes only in DEV_MODE.

    ``settings.dev_mode`` comes from the environment only (a flow file cannot switch the
    debug endpoint on); the message limit is the engine's, so both always agree. The app
    does not own the store: whoever opened it closes it after the server stopped.

    >>> from engine.compiler import compile_file
    >>> from engine.config import Settings
    >>> from engine.runtime.engine import Engine
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
    errors.install(app, engine)
    # Routes go straight on the app: an included APIRouter costs ~25 µs more per request.
    chat_route(app, engine, turns)
    stream_routes(app, engine, turns, ping_seconds)
    completed_route(app, engine.store)
    if settings.dev_mode:
        debug_route(app, engine.store)
    page_routes(app, engine, settings)
    app.mount("/playground", StaticFiles(directory=PLAYGROUND), name="playground")
    return app


def chat_route(app: FastAPI, engine: Engine, turns: Turns) -> None:
    @app.post(f"{PREFIX}/chat", response_model=ChatResponse, tags=["agent"], responses=ERRORS)
    async def chat(body: ChatRequest) -> Response:
        """Run one turn; answer with its DONE payload as `interaction` and its hooks."""
        refused = too_long(engine, body.message)
        if refused is not None:
            return refused
        done = await turns.reply(body.session_id, body.message)
        return JSONResponse({"interaction": done.payload(), "hooks": done.hooks})


def stream_routes(app: FastAPI, engine: Engine, turns: Turns, ping_seconds: float) -> None:
    def stream(request: Request, body: ChatRequest) -> Response:
        if request.headers.get("last-event-id") is not None:
            return Response(status_code=204)  # a reconnect: never run a message twice
        refused = too_long(engine, body.message)
        if refused is not None:
            return refused
        queue = turns.start(body.session_id, body.message)  # runs even if the client leaves
        return EventSourceResponse(sse_frames(engine, queue, uuid.uuid4().hex[:12]),
                                   ping=ping_seconds, headers={"Cache-Control": "no-cache"})

    @app.post(f"{PREFIX}/chat/stream", response_class=EventSourceResponse, tags=["agent"],
              responses={**ERRORS, **SSE_DOC})
    async def stream_post(request: Request, body: ChatRequest) -> Response:
        """Run one turn and stream its events as Server-Sent Events."""
        return stream(request, body)

    @app.get(f"{PREFIX}/chat/stream", response_class=EventSourceResponse, tags=["agent"],
             responses={**ERRORS, **SSE_DOC})
    async def stream_get(request: Request, query: Annotated[ChatRequest, Query()]) -> Response:
        """The same, with `session_id` and `message` as query parameters (`EventSource`)."""
        return stream(request, query)


def completed_route(app: FastAPI, store: SessionStore) -> None:
    @app.get(f"{PREFIX}/completed", response_model=CompletedResponse, tags=["agent"],
             responses=ERRORS)
    async def completed(session_id: Annotated[SessionId, Query()]) -> Response:
        """Finished tasks of a session (executed, cancelled, failed...), oldest first."""
        return JSONResponse({"session_id": session_id,
                             "completed": await store.completed(session_id)})


def debug_route(app: FastAPI, store: SessionStore) -> None:
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
