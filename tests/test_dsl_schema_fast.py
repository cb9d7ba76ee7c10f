"""The schema check's fast path: what the spec models accept in strict mode, the JSON
Schema accepts too, so ``check`` may skip jsonschema for such a file and still report
exactly what it reported before.

Held on every flow and app file of the repository (examples, docs, tests, broken ones) and
on thousands of mutations of them (a value of another type, a key dropped, an unknown or
badly named key added); and a valid flow compiles without importing jsonschema at all, while
a broken one still gets its located schema findings.
"""

from __future__ import annotations

import copy
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from engine.app import load as app_load
from engine.app.spec import AppSpec
from engine.dsl import schema
from engine.dsl.load import load_file
from engine.dsl.spec import ServiceSpec
from engine.errors import FlowDefinitionError
from engine.source import SourceMap
from tests.conftest import ROOT

FUZZ = settings(max_examples=600, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def _kind(data: Any) -> type[BaseModel] | None:
    if app_load.is_app_data(data):
        return AppSpec
    return ServiceSpec if isinstance(data, dict) and "service" in data else None


def _corpus() -> list[tuple[Path, Any, type[BaseModel]]]:
    files = []
    for path in sorted(ROOT.glob("**/*.yaml")):
        if ".venv" in path.parts or ".git" in path.parts:
            continue
        try:
            data, _ = load_file(path)
        except FlowDefinitionError:
            continue
        kind = _kind(data)
        if kind is not None:
            files.append((path.relative_to(ROOT), data, kind))
    return files


CORPUS = _corpus()


def schema_errors(kind: type[BaseModel], data: Any) -> list[str]:
    checker = schema.validator() if kind is ServiceSpec else app_load._validator()
    return [error.message for error in checker.iter_errors(data)]


def test_strict_acceptance_implies_schema_acceptance_on_every_file() -> None:
    accepted = refused = 0
    for path, data, kind in CORPUS:
        if schema.accepted(kind, data):
            accepted += 1
            assert schema_errors(kind, data) == [], path
        elif schema_errors(kind, data):
            refused += 1
    # both sides are exercised: valid files, and broken ones the schema explains
    assert accepted >= 40 and refused >= 10, (accepted, refused)
    assert any(kind is AppSpec for _, data, kind in CORPUS if schema.accepted(kind, data))


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*path, index))
    return found


ODD_VALUES = [None, True, False, 0, -1, 1, 2.5, 1.0, math.nan, math.inf, 10**20, "", "x",
              "1", "yes", "abc\n", "9abc", "READY", [], ["x"], [1], {}, {"x": 1},
              {"say": "x"}, {"trigger": "update"}]


def _mutate(data: Any, path: tuple[Any, ...], how: str, value: Any) -> Any:
    data = copy.deepcopy(data)
    if not path:
        return value if how == "set" else data
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if how == "set":
        parent[last] = value
    elif how == "drop":
        del parent[last]
    elif isinstance(parent[last], dict):
        parent[last][value if isinstance(value, str) else "extra_key"] = 1
    return data


VALID = [(path, data, kind) for path, data, kind in CORPUS if schema.accepted(kind, data)]


@FUZZ
@given(st.data())
def test_strict_acceptance_implies_schema_acceptance_on_mutations(data: st.DataObject) -> None:
    path, flow, kind = data.draw(st.sampled_from(VALID))
    where = data.draw(st.sampled_from(_paths(flow)))
    how = data.draw(st.sampled_from(["set", "drop", "add"]))
    value = data.draw(st.sampled_from(ODD_VALUES))
    mutated = _mutate(flow, where, how, value)
    if schema.accepted(kind, mutated):
        assert schema_errors(kind, mutated) == [], (path, where, how, value)


def test_a_valid_flow_compiles_without_jsonschema() -> None:
    script = ("import sys; from engine.compiler import compile_file; "
              "compile_file('flows/transfer.yaml'); "
              "print(sorted(m for m in sys.modules if m.split('.')[0] == 'jsonschema'))")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("text, expected", [
    ("service: s\ndefault_flow: f\nflows:\n  f:\n    initial: A\n    stages:\n"
     "      A: {terminal: 'yes'}\n",
     (7, 21, "FL012", "flows.f.stages.A.terminal must be a boolean, got a string")),
    ("service: s\ndefault_flow: f\nflows:\n  f: {initial: A, stages: {A: {}}}\nflowz: 1\n",
     (5, 1, "FL010", "unknown key `flowz` in the file")),
])
def test_a_file_strict_mode_refuses_is_still_explained_by_the_schema(
        text: str, expected: tuple[int, int, str, str]) -> None:
    from engine.dsl import load_service_text

    with pytest.raises(FlowDefinitionError) as err:
        load_service_text(text, "t.yaml")
    found = err.value.findings[0]
    assert (found.location.line, found.location.column, found.code, found.message) == expected


def test_the_schema_is_still_what_explains_a_strict_refusal() -> None:
    data = {"service": "s", "default_flow": "f",
            "flows": {"f": {"initial": 1, "stages": {"A": {}}}}}
    assert not schema.accepted(ServiceSpec, data)
    source = SourceMap("t.yaml", [])
    assert [f.code for f in schema.check(data, source)] == ["FL012"]
