"""Compiler: machines built once and shared, templates sandboxed, expressions never imported."""

from __future__ import annotations

import pytest
from jinja2.exceptions import SecurityError

from engine.app.load import is_app_file
from engine.compiler import compile_service
from engine.compiler.compiled import CompiledService
from engine.compiler.templates import compile_template, won
from engine.dsl import load_service_text
from engine.dsl.schema import SCHEMA_PATH, render_schema
from tests.conftest import ROOT

MINIMAL = """
service: demo
default_flow: main
flows:
  main:
    initial: A
    stages:
      A: {say: hello}
      B: {}
    transitions:
      - {trigger: update, source: A, dest: B, when: "WHEN"}
messages:
  hello: "MESSAGE"
"""


def compile_text(when: str = "false", message: str = "hi") -> CompiledService:
    spec, source = load_service_text(MINIMAL.replace("WHEN", when).replace("MESSAGE", message),
                                     "demo.yaml")
    return compile_service(spec, source)


async def test_one_machine_per_flow_shared_by_every_session(transfer: CompiledService) -> None:
    from engine.runtime.engine import Engine
    from engine.store import MemoryStore

    machine = transfer.flows["transfer"].machine
    inner = machine._machine
    engine = Engine(transfer, store=MemoryStore())
    for session in ("a", "b", "c"):
        await engine.reply(session, "엄마한테 1만원 보내줘")
        await engine.reply(session, "확인")
    assert transfer.flows["transfer"].machine is machine and machine._machine is inner
    assert inner.models == []  # sessions carry only their stage string; none is a model
    assert [c["outcome"] for c in await engine.store.completed("b")] == ["EXECUTED"]


@pytest.mark.parametrize("stage", ["INIT", "FILLING", "CONFIRMED", "EXECUTED", "CANCELLED"])
def test_confirm_only_fires_from_ready(transfer: CompiledService, stage: str) -> None:
    assert transfer.flows["transfer"].machine.fire(stage, "confirm", {}) is None


def test_conditions_pick_the_first_matching_transition(transfer: CompiledService) -> None:
    machine = transfer.flows["transfer"].machine
    ctx = {"missing": [], "filling_turns": 0, "max_fill_turns": 5}
    assert machine.fire("FILLING", "update", ctx) == "CHECKING"
    assert machine.fire("FILLING", "update", {**ctx, "missing": ["amount"]}) == "FILLING"
    assert machine.fire("FILLING", "update", {**ctx, "filling_turns": 6}) == "UNSUPPORTED"


def test_a_condition_cannot_name_python_functions() -> None:
    from engine.errors import FlowDefinitionError

    with pytest.raises(FlowDefinitionError, match="`os` is not defined"):
        compile_text(when="os.system('true')")


def test_templates_are_sandboxed() -> None:
    template = compile_template("{{ slots.__class__.__mro__ }}")
    with pytest.raises(SecurityError):
        template.render({"slots": {}})


def test_user_text_is_data_not_template_source() -> None:
    template = compile_template("you said: {{ turn.message }}")
    assert template.render({"turn": {"message": "{{ 7 * 7 }}"}}) == "you said: {{ 7 * 7 }}"


def test_strict_undefined_fails_loudly() -> None:
    from jinja2.exceptions import UndefinedError

    with pytest.raises(UndefinedError):
        compile_template("{{ slots.nope }}").render({"slots": {}})


@pytest.mark.parametrize(("amount", "text"), [
    (10000, "1만원"), (35000, "3만 5,000원"), (1500, "1,500원"), (-1000, "-1,000원"),
    (100000000, "1억원"), (150000000, "1억 5,000만원"), (123456789, "1억 2,345만 6,789원"),
    (200000000, "2억원"), (100000001, "1억 1원"), (0, "0원"), (50000, "5만원"), ("x", "x"),
])
def test_won_filter(amount: object, text: str) -> None:
    assert won(amount) == text


def test_checked_in_schema_matches_the_spec_models() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render_schema(), "run `flowctl schema`"


FLOW_FILES = [p for p in sorted((ROOT / "flows").glob("*.yaml"))
              if not p.name.endswith((".test.yaml", ".eval.yaml")) and not is_app_file(p)]


@pytest.mark.parametrize("path", FLOW_FILES, ids=lambda p: p.name)
def test_shipped_flows_point_editors_at_the_schema(path) -> None:
    assert path.read_text(encoding="utf-8").startswith(
        "# yaml-language-server: $schema=../schemas/flow.schema.json")


def test_templates_cannot_change_session_state() -> None:
    template = compile_template("{{ meta.update({'stage': 'CONFIRMED'}) }}")
    meta: dict[str, str] = {}
    with pytest.raises(SecurityError):
        template.render({"meta": meta})
    assert meta == {}
