"""Editor support: every schema property is described, every shipped flow names the schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from engine.dsl.schema import SCHEMA_PATH
from tests.conftest import ROOT

SCHEMA_LINE = "# yaml-language-server: $schema=../schemas/flow.schema.json"


def undescribed(node: Any, path: str = "#") -> Iterator[str]:
    """JSON pointers of properties that carry no description (editors would show nothing)."""
    if isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            if isinstance(prop, dict) and "description" not in prop:
                yield f"{path}/properties/{name}"
        for key, value in node.items():
            yield from undescribed(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from undescribed(value, f"{path}/{i}")


def test_every_schema_property_has_a_description() -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert list(undescribed(schema)) == []


def test_the_walk_notices_a_missing_description() -> None:
    schema = {"properties": {"a": {"type": "string"}, "b": {"description": "x"}}}
    assert list(undescribed(schema)) == ["#/properties/a"]


FLOWS = sorted(p for p in (ROOT / "flows").glob("*.yaml") if not p.name.endswith(".test.yaml"))


@pytest.mark.parametrize("flow", FLOWS, ids=[p.name for p in FLOWS])
def test_every_shipped_flow_starts_with_the_schema_line(flow: Any) -> None:
    assert flow.read_text(encoding="utf-8").splitlines()[0] == SCHEMA_LINE
