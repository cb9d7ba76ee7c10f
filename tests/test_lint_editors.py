"""Editor support: every schema property is described, every shipped flow names the schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from engine.app.load import is_app_file
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


FLOWS = sorted(p for p in (ROOT / "flows").glob("*.yaml")  # apps: tests/app
               if not p.name.endswith((".test.yaml", ".eval.yaml")) and not is_app_file(p))


@pytest.mark.parametrize("flow", FLOWS, ids=[p.name for p in FLOWS])
def test_every_shipped_flow_starts_with_the_schema_line(flow: Any) -> None:
    assert flow.read_text(encoding="utf-8").splitlines()[0] == SCHEMA_LINE


DOCS = ROOT / "docs"


def test_every_code_is_documented_with_its_severity() -> None:
    from engine.lint import CATALOGUE

    text = (DOCS / "lint.md").read_text(encoding="utf-8")
    for code in CATALOGUE:
        assert f"### {code.code} — {code.title} ({code.severity})" in text, code.code


def test_the_vscode_problem_matcher_reads_lint_output() -> None:
    import re

    from engine.errors import Finding, SourceLocation
    from engine.lint.formats import line

    text = (DOCS / "editors.md").read_text(encoding="utf-8")
    raw = re.search(r'"regexp": "(.+)",', text).group(1)  # type: ignore[union-attr]
    pattern = re.compile(json.loads(f'"{raw}"'))
    finding = Finding(SourceLocation("flows/x.yaml", 8, 47), "unknown stage `REDY`", "FL022",
                      hint="did you mean `READY`?")
    match = pattern.match(line(finding))
    assert match is not None
    assert match.groups() == ("flows/x.yaml", "8", "47",
                              "unknown stage `REDY` (did you mean `READY`?)", "error", "FL022")


def test_the_pre_commit_hook_runs_flowctl_lint() -> None:
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "flowctl-lint")
    assert hook["entry"] == "flowctl lint" and hook["language"] == "python"


def test_ci_doc_runs_lint_in_github_format_and_the_tests() -> None:
    text = (DOCS / "ci.md").read_text(encoding="utf-8")
    assert "flowctl lint --format github" in text and "flowctl test" in text
