"""A service with workspace or command actions -> its supervisor routes: liveness, the run
configuration, a model ping, one allow-listed command (flows/devloop.yaml is such a
service; its background runs are ``/v1/runs``, runs.py).

- ``GET /api/health`` -> ``{ok, service}``; with ``?models=1`` also ``models: {name:
  reachable | unreachable | offline}``, each live model asked one short question (a
  liveness probe without the parameter never calls a provider)
- ``GET /api/tools/overview`` -> the run configuration: the models (provider, model and
  whether they are live; never a key or a URL), the workspace root, the allowed commands,
  the workspace and command actions, the loops and their attempts
- ``POST /api/tools/llm/ping`` ``{prompt, model?}`` -> ``{ok, model, provider, status, reply,
  latency_ms, reason}``: one completion (offline: ``ok`` false and the reason, nothing sent);
  a provider that fails is a 502 ``provider_error`` saying why
- ``POST /api/tools/command`` ``{command}`` -> ``{command, exit_code, output, timed_out,
  seconds}``, only when the operator configured a workspace root and allowed commands: the
  command line is split into words (never run by a shell) and checked by the same policy as
  a flow's command actions; refused -> 403 ``command_refused`` with the reason

The routes sit behind the edge's ``Gate`` like every other one: the same keys, login cookie
and loopback-only default as ``/v1/runs``.
"""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Query
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from engine.compiler.compiled import Argv, CompiledAction, CompiledService
from engine.config import Settings
from engine.dsl import spec as s
from engine.dsl.records import spec_of
from engine.runtime.calls.local import LOCAL_KINDS, supervised
from engine.runtime.calls.probe import probe
from engine.runtime.serving import TurnEngine
from engine.transports.http.errors import error
from engine.transports.http.runs import hosted
from engine.transports.http.schemas import AUTH_ERRORS, ResponsesDoc, error_doc
from engine.workspace import CommandPolicy, CommandRefused, run_command

API = "/api"
TOOLS = f"{API}/tools"
# A command sent here gets what a flow's command action gets by default.
COMMAND_TIMEOUT_SEC = float(s.CommandAction.model_fields["timeout_sec"].default)
COMMAND_OUTPUT_CHARS = int(s.CommandAction.model_fields["output_tail"].default)
MAX_COMMAND_CHARS = 1000
MAX_PROMPT_CHARS = 2000
HEALTH_PROMPT = "Answer with one word: pong"
HEALTH_MAX_TOKENS = 8
GATE: ResponsesDoc = {code: AUTH_ERRORS[code] for code in (401, 403, 429)}

__all__ = ["API", "COMMAND_OUTPUT_CHARS", "COMMAND_TIMEOUT_SEC", "Overview", "install",
           "overview", "supervised"]


# -- the bodies -------------------------------------------------------------------------------

class SupervisorHealth(BaseModel):
    ok: bool
    service: str
    models: dict[str, Literal["reachable", "unreachable", "offline"]] | None = Field(
        None, description="Only with `?models=1`: each model of the service, asked one short "
                          "question (offline: it has no provider, nothing is sent).")


class ModelView(BaseModel):
    name: str
    provider: str
    model: str
    status: Literal["live", "offline"] = Field(
        description="live: calls go to the provider; offline: there is none (see reason), "
                    "the flow's fallbacks answer.")
    reason: str | None = Field(description="Why it is offline, and what would make it live.")
    timeout_sec: float
    max_retry: int


class ActionView(BaseModel):
    name: str
    kind: Literal["read", "apply", "command"]
    files: list[str] = Field(description="read: the globs read; apply: the only globs it may "
                                         "write (none: any file under the root).")
    command: str | None = Field(description="command: its argv, as one line.")


class LoopView(BaseModel):
    flow: str
    stage: str
    background: bool = Field(description="The stage runs as a background run (`/v1/runs`).")
    max_attempts: int | str = Field(description="A number, or the expression that gives it.")


class CommandTool(BaseModel):
    enabled: bool = Field(description="`POST /api/tools/command` exists: the operator "
                                      "configured a workspace root and allowed commands.")
    timeout_sec: float
    output_chars: int = Field(description="Characters of the output kept, from the end.")


class Overview(BaseModel):
    service: str
    description: str
    models: list[ModelView]
    workspace_root: str | None = Field(description="The one directory actions may touch "
                                                   "(null: workspace actions fail).")
    allowed_commands: list[str] = Field(description="Command prefixes that may run.")
    command_env: list[str] = Field(description="Variables a command gets besides PATH, LANG, "
                                               "LC_ALL and TZ (names only).")
    actions: list[ActionView]
    loops: list[LoopView]
    max_attempts_limit: int = Field(description="No loop runs more attempts than this.")
    background_runs: bool = Field(description="Background stages run as runs (`/v1/runs`).")
    command_tool: CommandTool


class PingRequest(BaseModel):
    prompt: str = Field(min_length=1, max_length=MAX_PROMPT_CHARS,
                        examples=["Respond with one short line: ping accepted"])
    model: str | None = Field(None, description="A name under the service's `models:` "
                                                "(default: the first one).")


class PingReply(BaseModel):
    ok: bool = Field(description="The model answered.")
    model: str
    provider: str
    status: Literal["reachable", "offline"]
    reply: str | None
    latency_ms: float | None
    reason: str | None = Field(description="offline: why, and what would make it live.")


class CommandRequest(BaseModel):
    command: str = Field(min_length=1, max_length=MAX_COMMAND_CHARS,
                         examples=["python -m pytest -q"],
                         description="One command line: split into words as a shell would "
                                     "(quotes keep words together), never run by a shell.")


class CommandReply(BaseModel):
    command: str
    exit_code: int | None = Field(description="null: killed at the timeout.")
    output: str = Field(description="The end of stdout and stderr together.")
    timed_out: bool
    seconds: float


PROVIDER_ERROR: ResponsesDoc = {502: error_doc(
    "The provider failed (`provider_error`): `message` says why, `kind` is connection, "
    "timeout, rate_limit, server, client or malformed.")}
REFUSED: ResponsesDoc = {403: error_doc(
    "`command_refused`: not an allowed command, or a shell operator (; & | > < ` $); no "
    "process started. (Also a cross-site request or a client the server does not answer.)")}
INVALID: ResponsesDoc = {422: error_doc("Malformed request.")}


# -- the routes -------------------------------------------------------------------------------

def install(app: FastAPI, engine: TurnEngine) -> None:
    """Add the supervisor routes for ``engine``'s service, if it supervises local work; the
    workspace root and allowed commands are the engine's settings, as its actions see them."""
    if not supervised(engine.service):
        return
    health_route(app, engine)
    overview_route(app, engine)
    ping_route(app, engine)
    if commands_enabled(engine.settings):
        command_route(app, engine.settings)


def commands_enabled(settings: Settings) -> bool:
    """Whether ``POST /api/tools/command`` exists: a workspace root and allowed commands."""
    return settings.workspace_root is not None and bool(settings.allowed_commands)


def health_route(app: FastAPI, engine: TurnEngine) -> None:
    @app.get(f"{API}/health", response_model=SupervisorHealth, tags=["supervisor"],
             responses={**INVALID, **GATE})
    async def health(models: Annotated[bool, Query(description="Also ask each model one short "
                                                   "question.")] = False) -> Response:
        """Liveness of the service; with `?models=1`, whether each model answers."""
        body: dict[str, Any] = {"ok": True, "service": engine.about.name}
        if models:
            found = await asyncio.gather(*(
                probe(engine.models, name, HEALTH_PROMPT, max_tokens=HEALTH_MAX_TOKENS)
                for name in engine.service.models))
            body["models"] = {p.model: p.status for p in found}
        return JSONResponse(body)


def overview_route(app: FastAPI, engine: TurnEngine) -> None:
    summary = overview(engine, engine.settings).model_dump()  # fixed while the server runs

    @app.get(f"{TOOLS}/overview", response_model=Overview, tags=["supervisor"],
             responses=GATE)
    async def tools_overview() -> Response:
        """The run configuration: models, workspace root, allowed commands, actions, loops."""
        return JSONResponse(summary)


def ping_route(app: FastAPI, engine: TurnEngine) -> None:
    declared = list(engine.service.models)

    @app.post(f"{TOOLS}/llm/ping", response_model=PingReply, tags=["supervisor"],
              responses={**PROVIDER_ERROR, **INVALID, **GATE})
    async def ping(body: PingRequest) -> Response:
        """Send one short completion to a model of the service and answer what came back."""
        name = body.model or next(iter(declared), None)
        if name not in declared:
            return error(422, "invalid_request", f"model: {name!r} is not a model of this "
                         f"service (its models: {', '.join(declared)})" if declared else
                         "this service declares no model to ping")
        found = await probe(engine.models, name, body.prompt)
        provider = provider_of(engine, name)
        if found.status == "unreachable":
            return error(502, "provider_error", found.reason or "the provider failed",
                         model=name, provider=provider, kind=found.kind,
                         latency_ms=found.latency_ms)
        return JSONResponse({"ok": found.status == "reachable", "model": name,
                             "provider": provider, "status": found.status,
                             "reply": found.reply, "latency_ms": found.latency_ms,
                             "reason": found.reason})


def command_route(app: FastAPI, settings: Settings) -> None:
    policy = CommandPolicy.of(settings.allowed_commands, settings.command_env,
                              executables=settings.command_programs)
    root = Path(settings.workspace_root or ".")

    @app.post(f"{TOOLS}/command", response_model=CommandReply, tags=["supervisor"],
              responses={**REFUSED, **INVALID, **GATE})
    async def command(body: CommandRequest) -> Response:
        """Run one allowed command in the workspace root, without a shell."""
        try:
            argv = shlex.split(body.command)
        except ValueError as err:  # an unclosed quote
            return error(422, "invalid_request", f"command: cannot split it into words ({err})")
        try:
            result = await run_command(argv, policy, cwd=root, env=settings.env,
                                       timeout=COMMAND_TIMEOUT_SEC, tail=COMMAND_OUTPUT_CHARS)
        except CommandRefused as err:
            return error(403, "command_refused", str(err))
        return JSONResponse(result.as_data())


# -- the overview -----------------------------------------------------------------------------

def overview(engine: TurnEngine, settings: Settings) -> Overview:
    """What a user of the service needs to know of its run configuration; nothing secret."""
    service = engine.service
    return Overview(
        service=engine.about.name, description=engine.about.description,
        models=[model_view(engine, name) for name in service.models],
        workspace_root=settings.workspace_root,
        allowed_commands=list(settings.allowed_commands),
        command_env=list(settings.command_env),
        actions=[action_view(a) for a in service.actions.values() if a.kind in LOCAL_KINDS],
        loops=loops(service), max_attempts_limit=s.MAX_LOOP_ATTEMPTS,
        background_runs=hosted(engine),
        command_tool=CommandTool(enabled=commands_enabled(settings),
                                 timeout_sec=COMMAND_TIMEOUT_SEC,
                                 output_chars=COMMAND_OUTPUT_CHARS))


def model_view(engine: TurnEngine, name: str) -> ModelView:
    live = engine.models.get(name)
    spec = live.spec if live else engine.service.models[name]  # live: as the operator set it
    return ModelView(name=name, provider=spec.provider, model=spec.model,
                     status="live" if live else "offline",
                     reason=None if live else engine.models.offline.get(name),
                     timeout_sec=spec.timeout_sec, max_retry=spec.max_retry)


def provider_of(engine: TurnEngine, name: str) -> str:
    live = engine.models.get(name)
    return (live.spec if live else engine.service.models[name]).provider


def action_view(action: CompiledAction) -> ActionView:
    argv = dict(action.args).get("argv")
    command = shlex.join(item.source for item in argv.items) if isinstance(argv, Argv) \
        else None
    return ActionView(name=action.name, kind=action.kind, files=list(action.files),
                      command=command)


def loops(service: CompiledService) -> list[LoopView]:
    return [LoopView(flow=flow, stage=stage, max_attempts=step.loop.max_attempts,
                     background=service.flows[flow].stages[stage].background)
            for flow, stage, _, step in s.service_steps(spec_of(service.spec))
            if isinstance(step, s.LoopStep)]
