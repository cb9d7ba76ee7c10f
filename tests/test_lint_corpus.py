"""Every lint check has a fixture under tests/lint/cases/ whose golden holds its exact findings.

A case is a flow file (``<code>_<what>.yaml``) or a directory (``<code>_<what>/flow.yaml``
with its prompts or conversation tests); ``<case>.expected`` holds one rendered finding per
line: ``file:line:col: message (hint) [severity CODE]``. Paths are relative to the cases
directory, where the test runs lint.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cli import main
from engine.compiler import compile_file
from engine.errors import FlowDefinitionError
from engine.lint import CATALOGUE, lint_paths
from engine.lint.formats import line
from tests.conftest import ROOT

CASES_DIR = Path(__file__).parent / "lint" / "cases"
CASES = sorted(p for p in CASES_DIR.iterdir()
               if p.is_dir() or (p.suffix == ".yaml" and not p.name.endswith(".test.yaml")))


def golden(case: Path) -> Path:
    return CASES_DIR / f"{case.stem if case.is_file() else case.name}.expected"


def rendered(case: Path) -> str:
    return "".join(line(f) + "\n" for f in lint_paths([case.name]).findings)


@pytest.mark.parametrize("case", CASES, ids=[p.stem for p in CASES])
def test_case_reports_its_golden_findings(case: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES_DIR)
    assert rendered(case) == golden(case).read_text(encoding="utf-8")


@pytest.mark.parametrize("code", [c.code for c in CATALOGUE])
def test_every_code_has_a_failing_fixture(code: str) -> None:
    cases = [c for c in CASES if c.name.startswith(code.lower() + "_")]
    assert cases, f"no fixture named {code.lower()}_*"
    assert all(f" {code}]" in golden(c).read_text(encoding="utf-8") for c in cases)


def test_clean_cases_are_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES_DIR)
    for case in (c for c in CASES if c.name.startswith("clean_")):
        assert main(["lint", "--strict", case.name]) == 0


BROKEN = sorted((ROOT / "tests" / "broken_flows").glob("*.yaml"))


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_lint_reports_every_compile_finding(path: Path) -> None:
    with pytest.raises(FlowDefinitionError) as caught:
        compile_file(path)
    linted = {(f.location, f.code, f.message) for f in lint_paths([path]).findings}
    assert {(f.location, f.code, f.message) for f in caught.value.findings} <= linted


def test_shipped_flows_are_clean_in_strict_mode(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--strict", str(ROOT / "flows")]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out


def test_exit_codes(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(CASES_DIR)
    assert main(["lint", "clean_task.yaml"]) == 0
    assert main(["lint", "fl022_unknown_dest_stage.yaml"]) == 1
    assert main(["lint", "fl061_unused_message.yaml"]) == 0  # a warning only
    assert main(["lint", "--strict", "fl061_unused_message.yaml"]) == 1
    assert main(["lint", "fl001_not_utf8.yaml"]) == 2  # unreadable: unusable input
    assert main(["lint", "no/such/path.yaml"]) == 2


def test_a_directory_is_linted_with_its_test_files(capsys: pytest.CaptureFixture[str]) -> None:
    report = lint_paths([CASES_DIR / "fl091_test_names_unknown"])
    assert [Path(f).name for f in report.files] == ["flow.yaml", "flow.test.yaml"]
    assert {f.code for f in report.findings} == {"FL091"}


def test_a_flow_file_brings_its_sibling_tests() -> None:
    report = lint_paths([ROOT / "flows" / "transfer.yaml"])
    assert [Path(f).name for f in report.files][:2] == ["transfer.yaml", "transfer.test.yaml"]
