"""Background runs over HTTP: list, show, follow live (SSE, replayable), cancel.

- ``GET /v1/runs?session_id=`` -> the session's recent runs, newest first
- ``GET /v1/runs/{id}`` -> one run
- ``GET /v1/runs/{id}/events`` -> SSE: every event from the start (or after the one named by
  ``Last-Event-ID`` or ``?after=``), live until the run's final ``RUN_STATUS``
- ``POST /v1/runs/{id}/cancel`` -> the run after cancelling it

A run belongs to the principal whose turn started it: anyone else's run, and the runs of a
session that is not the caller's, are answered like ones that do not exist (404), as the
chat API answers a stranger's session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated, Any, TypeGuard

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from engine.config import Settings
from engine.runtime.engine import Engine
from engine.runtime.serving import TurnEngine
from engine.runtime.values.session import owned_key
from engine.transports.http.edge import principal
from engine.transports.http.errors import error
from engine.transports.http.schemas import AUTH_ERRORS, SessionId, error_doc
from engine.transports.sse import RETRY_MS, dumps

if TYPE_CHECKING:
    from engine.runs import Runs
    from engine.runs.log import RunRecord

log = logging.getLogger("flowctl.runs")
RUNS = "/v1/runs"
RECENT = 20


class RunBody(BaseModel):
    """A background run: where it runs, its status and the summary it ended with."""

    id: str
    session_id: str
    flow: str
    stage: str = Field(description="The background stage whose steps the run runs.")
    status: str = Field(description="pending, running, success, failed, cancelled or "
                                    "interrupted.")
    created_at: float
    ended_at: float | None
    summary: str | None = Field(description="What the run said when it ended.")
    cancel_requested: bool


class RunList(BaseModel):
    session_id: str
    runs: list[RunBody]


NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: error_doc("No such run (or not the caller's).")}
SSE: dict[int | str, dict[str, Any]] = {200: {"content": {"text/event-stream": {}},
             "description": "The run's events: the turn's events (AGENT_START, AGENT_DONE, "
                            "TASK_PROGRESS, ..., DONE) between RUN_STATUS events; `id:` is "
                            "the event's number in the run."}}


def host(engine: TurnEngine, keep_days: float | None = None) -> Runs | None:
    """The host of ``engine``'s background runs, their log in its store's database (runs
    that ended ``keep_days`` ago are deleted); None for a service without a background
    stage (its turns then never look for runs, and engine.runs is never imported)."""
    if not hosted(engine):
        return None
    from engine.runs import Runs, open_run_log

    return Runs(engine, open_run_log(engine.store), keep_days=keep_days)


def hosted(engine: TurnEngine) -> TypeGuard[Engine]:
    """Whether ``engine``'s background stages run as runs in the server: it is a flow's
    engine (an app's services run theirs inside the turn) and has a background stage."""
    return isinstance(engine, Engine) and any(
        st.background for f in engine.service.flows.values() for st in f.stages.values())


def serve(app: FastAPI, engine: TurnEngine, settings: Settings, ping_seconds: float = 15.0,
          grace: float = 30.0) -> Runs | None:
    """Host ``engine``'s background runs in ``app`` (None: it has no background stage):
    the routes, and the run host's life wrapped around the app's own lifespan (``grace``:
    how long the runs still going get to end ``interrupted`` at shutdown)."""
    runs = host(engine, settings.retention_days)
    if runs is None:
        return None
    install(app, runs, ping_seconds=ping_seconds)
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        async with hosting(runs, grace), inner(app_) as state:
            yield state

    app.router.lifespan_context = lifespan
    return runs


@contextlib.asynccontextmanager
async def hosting(runs: Runs | None, grace: float) -> AsyncIterator[None]:
    """While the server runs: runs of stopped processes marked interrupted first, then the
    heartbeat; at shutdown the runs still going end ``interrupted``."""
    if runs is None:
        yield
        return
    try:
        await runs.start()
    except Exception as err:  # the sweep runs again at every heartbeat
        log.error("runs: could not look for interrupted runs: %s: %s", type(err).__name__, err)
    watcher = asyncio.create_task(runs.watch())
    try:
        yield
    finally:
        watcher.cancel()
        await runs.stop(grace)
        await runs.log.close()


def install(app: FastAPI, runs: Runs, *, ping_seconds: float = 15.0) -> None:
    """Add the runs routes to ``app``."""
    from engine.runs.log import FINAL

    engine = runs.engine

    async def visible(request: Request, run_id: str) -> RunRecord | None:
        run = await runs.log.get(run_id)
        return run if run is not None and run.owner == principal(request.scope) else None

    @app.get(RUNS, response_model=RunList, tags=["runs"],
             responses={404: error_doc(), **AUTH_ERRORS})
    async def recent(request: Request, session_id: Annotated[SessionId, Query()]) -> Response:
        """The session's recent background runs, newest first."""
        who = principal(request.scope)
        key = owned_key(session_id, who)
        if not await engine.may_use(key, who):
            return error(404, "not_found", f"no session {session_id!r}")
        found = await runs.log.recent(key, RECENT)
        return JSONResponse({"session_id": session_id,
                             "runs": [r.public() for r in found if r.owner == who]})

    @app.get(f"{RUNS}/{{run_id}}", response_model=RunBody, tags=["runs"],
             responses={**NOT_FOUND, **AUTH_ERRORS})
    async def show(request: Request, run_id: str) -> Response:
        """One run."""
        run = await visible(request, run_id)
        return JSONResponse(run.public()) if run else missing(run_id)

    @app.get(f"{RUNS}/{{run_id}}/events", response_class=EventSourceResponse, tags=["runs"],
             responses={**NOT_FOUND, **AUTH_ERRORS, **SSE})
    async def events(request: Request, run_id: str,
                     after: Annotated[int, Query(ge=0, description="Send the events after "
                                                 "this one (Last-Event-ID wins).")] = 0
                     ) -> Response:
        """The run's events as Server-Sent Events: replayed, then live to its end."""
        if await visible(request, run_id) is None:
            return missing(run_id)
        last = request.headers.get("last-event-id", "").strip()
        start = int(last) if last.isdigit() and len(last) < 10 else after
        run = await runs.log.get(run_id)
        if run is not None and run.status in FINAL and not await runs.log.events(run_id, start):
            return Response(status_code=204)  # all sent: a browser's EventSource stops
        return EventSourceResponse(frames(runs, run_id, start), ping=ping_seconds,
                                   headers={"Cache-Control": "no-cache"})

    @app.post(f"{RUNS}/{{run_id}}/cancel", response_model=RunBody, tags=["runs"],
              responses={**NOT_FOUND, **AUTH_ERRORS})
    async def cancel(request: Request, run_id: str) -> Response:
        """Cancel a pending or running run (the flow's `cancel` transition fires, as if the
        user had said a cancel word); a run that has ended is returned as it is."""
        run = await visible(request, run_id)
        if run is None:
            return missing(run_id)
        after = await runs.cancel(run_id) if run.status in ("pending", "running") else run
        return JSONResponse((after or run).public())


def missing(run_id: str) -> JSONResponse:
    return error(404, "not_found", f"no run {run_id!r}")


async def frames(runs: Runs, run_id: str, after: int) -> AsyncIterator[ServerSentEvent]:
    first = True
    async for event in runs.follow(run_id, after):
        data: Any = event.data
        yield ServerSentEvent(dumps(data), event=event.name, id=str(event.seq),
                              retry=RETRY_MS if first else None)
        first = False


__all__ = ["RUNS", "host", "hosted", "install", "serve"]
