"""Transports depend on ``TurnEngine``: a flow's ``Engine`` and an app's ``AppEngine`` both
give every member, each its own way, and what a transport shows (health, OpenAPI, the agent
card) is the engine's ``About`` — for an app the app's name, description and version."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import httpx
import pytest

from engine.app import load_app
from engine.app.engine import AppEngine
from engine.compiler import compile_file
from engine.config import Settings
from engine.runtime.engine import Engine
from engine.runtime.serving import About, TurnEngine
from engine.store import MemoryStore
from engine.transports.http import create_app
from tests.conftest import ROOT

APP = "http://127.0.0.1"


def members() -> list[str]:
    """What the Protocol names: its properties and methods."""
    return sorted(name for name, value in vars(TurnEngine).items()
                  if not name.startswith("_") and (callable(value) or isinstance(value, property)))


def app_file(tmp_path: Path) -> Path:
    for name in ("transfer.yaml", "card.yaml"):
        shutil.copy(ROOT / "flows" / name, tmp_path / name)
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")
    path = tmp_path / "app.yaml"
    path.write_text("app: counter\ndescription: 창구 — 이체와 카드\nversion: 7\nservices:\n"
                    "  transfer: {flow: transfer.yaml, keywords: [보내], description: 이체}\n"
                    "  card: {flow: card.yaml, keywords: [카드]}\ndefault: transfer\n",
                    encoding="utf-8")
    return path


def test_the_protocol_names_what_transports_use() -> None:
    assert {"about", "service", "store", "settings", "turn", "admit", "refused", "text",
            "replay", "finish_pending", "delete", "aclose"} <= set(members())


@pytest.mark.parametrize("member", members())
def test_a_flows_engine_and_an_apps_both_give_every_member(member: str, tmp_path: Path) -> None:
    flow = Engine(compile_file(ROOT / "flows" / "transfer.yaml"), store=MemoryStore())
    app = AppEngine(load_app(app_file(tmp_path), {}), store=MemoryStore())
    assert hasattr(flow, member) and hasattr(app, member)


async def test_preparing_a_service_without_mcp_tools_starts_nothing(tmp_path: Path) -> None:
    flow = Engine(compile_file(ROOT / "flows" / "transfer.yaml"), store=MemoryStore())
    app = AppEngine(load_app(app_file(tmp_path), {}), store=MemoryStore())
    for engine in (flow, app):
        await engine.prepare()
        await engine.aclose()


def test_an_app_is_no_engine_and_builds_no_service_of_its_own(tmp_path: Path) -> None:
    app = AppEngine(load_app(app_file(tmp_path), {}), store=MemoryStore())
    assert not isinstance(app, Engine)
    first = app.services["transfer"]
    assert app.service is first.engine.service  # type: ignore[attr-defined]
    assert app.about == About("counter", "창구 — 이체와 카드", "7", {"type": "object"},
                              app.about.skills)
    assert [(s.id, s.description, s.tags) for s in app.about.skills] == [
        ("transfer", "이체", ("보내",)), ("card", "card", ("카드",))]


def test_a_flows_about_is_its_own() -> None:
    service = compile_file(ROOT / "flows" / "transfer.yaml")
    about = Engine(service, store=MemoryStore()).about
    assert (about.name, about.version) == (service.name, str(service.spec.version or "0"))
    assert about.context_schema == service.context_schema
    assert {s.id for s in about.skills} == {n for n in service.spec.intents
                                            if n in service.spec.routes}


async def test_an_apps_health_openapi_and_card_show_the_app(tmp_path: Path) -> None:
    app = create_app(AppEngine(load_app(app_file(tmp_path), {}), store=MemoryStore()),
                     settings=Settings())
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url=APP) as client:
        health = (await client.get(f"{APP}/healthz")).json()
        card = (await client.get(f"{APP}/.well-known/agent-card.json")).json()
    openapi = app.openapi()["info"]
    assert health["service"] == "counter"
    assert (openapi["title"], openapi["version"], openapi["description"]) == (
        "flowctl: counter", "7", "창구 — 이체와 카드")
    assert (card["name"], card["version"], card["description"]) == ("counter", "7",
                                                                    "창구 — 이체와 카드")
    assert [s["id"] for s in card["skills"]] == ["transfer", "card"]


def test_transports_import_no_engine_class_but_the_run_hosts() -> None:
    """Only the background-run host narrows to a flow's ``Engine``; every other transport
    module takes a ``TurnEngine``."""
    importing = set()
    for path in (ROOT / "engine" / "transports").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "engine.runtime.engine" \
                    and any(alias.name == "Engine" for alias in node.names):
                importing.add(str(path.relative_to(ROOT)))
    assert importing == {"engine/transports/http/runs.py"}
