"""A compiled service -> what the playground shows around the conversation; API docs offline.

``GET /v1/agent/service`` (read-only, built once): what the service does (description,
locale), what to try saying (its intents' examples) and the stage graph of each flow, laid
out in columns -- a stage's column is its distance from the initial stage -- so the page
draws it as plain SVG with no layout library. It needs a key like the rest of the API.

``GET /v1/agent/reload`` says whether the server runs under ``flowctl serve --reload`` and,
if the last edit of its files did not compile, the findings (reload_status.py): the page
shows them in a banner while the last good version keeps answering. Given the engine,
``install`` also adds the FLOWCTL_DEV_MODE-only ``POST /v1/agent/playground/edit``
(playground_edit.py: a slot changed in a fork of the session, held for the user's yes).

``/docs`` and ``/redoc`` serve Swagger UI and ReDoc from the files the ``fastapi-offline``
package ships (under ``/docs/assets/``) instead of FastAPI's CDN links, so they work on a
machine without internet.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from engine.compiler.compiled import CompiledService
from engine.dsl.records import spec_of
from engine.transports.http import playground_edit, reload_status
from engine.transports.http.edge import PREFIX
from engine.transports.http.reload_status import ReloadState
from engine.transports.http.schemas import AUTH_ERRORS

if TYPE_CHECKING:
    from engine.dsl import spec as s
    from engine.runtime.serving import TurnEngine

ASSETS = Path(fastapi_offline.__file__).parent / "static"
ASSETS_URL = "/docs/assets"
# Both pages run one inline script (FastAPI's) and load everything else from here: nothing
# may come from elsewhere (ReDoc would fetch its logo from cdn.redoc.ly).
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline'; worker-src 'self' blob:; "
            "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
            "base-uri 'none'; frame-ancestors 'none'")
MAX_EXAMPLES = 8  # "try saying" chips: enough to show the range, few enough to read

__all__ = ["ServiceView", "install", "service_view"]


class Stage(BaseModel):
    name: str
    column: int = Field(description="Distance from the initial stage (unreachable: last).")
    row: int = Field(description="Position within the column, in the file's order.")
    terminal: bool
    confirm: bool = Field(description="A `decide: confirm` stage: only the user's yes leaves "
                                      "it for the action.")


class Edge(BaseModel):
    source: str
    dest: str
    labels: list[str] = Field(description="Each transition between the two: trigger [guard].")


class Graph(BaseModel):
    name: str
    description: str
    initial: str
    columns: int
    rows: int
    stages: list[Stage]
    edges: list[Edge]


class Intent(BaseModel):
    name: str
    description: str
    examples: list[str]


class ServiceView(BaseModel):
    service: str
    description: str
    locale: str = Field(description="The language of the service (ko, en): the page's too.")
    default_flow: str
    examples: list[str] = Field(description="Things to try saying: the intents' examples.")
    intents: list[Intent]
    flows: list[Graph]
    runs: bool = Field(description="Some stage runs in the background: the Runs panel has "
                                   "something to show (else the page never asks for runs).")
    irreversible: list[str] = Field(description="Actions that move money or change the "
                                                "world: a rewound conversation is never "
                                                "replayed through a turn that ran one.")


def service_view(service: CompiledService) -> ServiceView:
    """What the playground shows of ``service`` besides the conversation."""
    spec = service.spec
    intents = [Intent(name=name, description=intent.description,
                      examples=list(intent.examples))
               for name, intent in spec.intents.items()]
    return ServiceView(service=spec.service, description=spec.description,
                       locale=spec.locale, default_flow=spec.default_flow,
                       examples=_examples(intents), intents=intents,
                       flows=[graph(name, spec_of(spec)) for name in spec.flows],
                       runs=any(stage.background for flow in service.flows.values()
                                for stage in flow.stages.values()),
                       irreversible=[name for name, action in spec.actions.items()
                                     if getattr(action, "irreversible", False)])


def _examples(intents: Sequence[Intent]) -> list[str]:
    """Round-robin over the intents (each one's first example first), at most MAX_EXAMPLES."""
    found: list[str] = []
    for depth in range(max((len(i.examples) for i in intents), default=0)):
        found += [i.examples[depth] for i in intents if depth < len(i.examples)]
    return list(dict.fromkeys(found))[:MAX_EXAMPLES]


def graph(name: str, service: s.ServiceSpec) -> Graph:
    """The stage graph of flow ``name``: stages in columns, one edge per (source, dest)."""
    from engine.compiler.checks.model import FlowModel  # lint's: imported when a page asks

    model = FlowModel(name, service.flows[name], service)
    flow = model.flow
    labelled: dict[tuple[str, str], list[str]] = {}
    for t in flow.transitions:
        if t.dest in flow.stages:
            # as `flowctl graph` labels an edge (authoring is beside transports, not below)
            label = t.trigger + (f" [{' '.join(t.when.split())}]" if t.when else "")
            for source, _ in model.sources(t):
                labelled.setdefault((source, t.dest), []).append(label)
    column = columns(flow.initial, flow.stages, labelled, terminals=model.terminals)
    rows: dict[int, int] = {}
    stages = []
    for stage, st in flow.stages.items():
        row = rows[column[stage]] = rows.get(column[stage], -1) + 1
        stages.append(Stage(name=stage, column=column[stage], row=row, terminal=st.terminal,
                            confirm=st.decide == "confirm"))
    return Graph(name=name, description=flow.description, initial=flow.initial,
                 columns=max(column.values()) + 1, rows=max(rows.values()) + 1,
                 stages=stages, edges=[Edge(source=a, dest=b, labels=labels)
                                       for (a, b), labels in labelled.items()])


def columns(initial: str, stages: Iterable[str], edges: Mapping[tuple[str, str], object], *,
            terminals: Collection[str] = ()) -> dict[str, int]:
    """Each stage's distance from ``initial`` along ``edges``; unreachable ones after all, and
    terminal stages in the columns after every other stage (where a conversation ends).

    >>> columns("A", "ABCX", {("A", "B"): 1, ("B", "C"): 1, ("A", "X"): 1}, terminals="X")
    {'A': 0, 'B': 1, 'C': 2, 'X': 3}
    """
    following: dict[str, list[str]] = {}
    for source, dest in edges:
        following.setdefault(source, []).append(dest)
    distance = {initial: 0}
    queue = deque([initial])
    while queue:
        stage = queue.popleft()
        for dest in following.get(stage, []):
            if dest not in distance:
                distance[dest] = distance[stage] + 1
                queue.append(dest)
    stages = list(stages)
    unreachable = max(distance.values()) + 1
    placed = {stage: distance.get(stage, unreachable) for stage in stages}
    ends = max((placed[s] for s in stages if s not in terminals), default=-1) + 1
    return {stage: max(placed[stage], ends) if stage in terminals else placed[stage]
            for stage in stages}


def install(app: FastAPI, service: CompiledService, *, engine: TurnEngine | None = None) -> None:
    """Add ``GET /v1/agent/service``, ``GET /v1/agent/reload`` and the offline API docs to
    ``app``; with ``engine`` (the one serving ``service``), the slot editing route too."""
    # built on the first ask: the stage graph is lint's, which a server need not import
    described = functools.cache(lambda: service_view(service).model_dump(mode="json"))
    flow_file = service.source.file
    gated = {k: v for k, v in AUTH_ERRORS.items() if k != 404}

    @app.get(f"{PREFIX}/service", response_model=ServiceView, tags=["playground"],
             responses=gated)
    async def describe() -> Response:
        """What the service does, what to try saying, and the stage graph of each flow."""
        return JSONResponse(described())

    # Out of the OpenAPI document: the page's own question, answered alike by every server
    # (a client of the API has no use for it; docs/server.md describes it).
    @app.get(f"{PREFIX}/reload", response_model=ReloadState, include_in_schema=False)
    async def reloaded() -> Response:
        """Under `flowctl serve --reload`: whether the last edit compiled, and if not the
        findings (file, line, column, message) while the last good version answers."""
        return JSONResponse(reload_status.read(flow_file).model_dump(mode="json"),
                            headers={"Cache-Control": "no-store"})

    if engine is not None:
        playground_edit.install(app, engine)
    offline_docs(app)


def offline_docs(app: FastAPI) -> None:
    """Swagger UI at /docs and ReDoc at /redoc from local files, replacing FastAPI's pages
    (which load their scripts from a CDN)."""
    replaced = {app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url}
    app.router.routes[:] = [r for r in app.router.routes
                            if getattr(r, "path", None) not in replaced]
    openapi_url = app.openapi_url or "/openapi.json"
    oauth2 = app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect"

    @app.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        return local_only(get_swagger_ui_html(
            openapi_url=openapi_url, title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=oauth2, swagger_js_url=f"{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS_URL}/favicon.png",
            swagger_ui_parameters=app.swagger_ui_parameters))

    @app.get(oauth2, include_in_schema=False)
    async def swagger_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return local_only(get_redoc_html(openapi_url=openapi_url, title=f"{app.title} - ReDoc",
                                         redoc_js_url=f"{ASSETS_URL}/redoc.standalone.js",
                                         redoc_favicon_url=f"{ASSETS_URL}/favicon.png",
                                         with_google_fonts=False))

    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS), name="docs-assets")


def local_only(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = DOCS_CSP
    return page
