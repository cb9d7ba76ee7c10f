"""`flowctl test --coverage`: which stages, transitions and slot branches the tests exercised."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from cli import main
from engine.testing.coverage import FlowCoverage, coverage
from engine.testing.runner import run_file
from tests.conftest import ROOT

CASES = ROOT / "tests" / "lint" / "cases"
TESTS = """conversations:
  - name: an amount at once
    turns:
      - {user: 30 dollars, stage: DONE}
"""


def covered(report: list[FlowCoverage], flow: str) -> dict[str, tuple[int, bool]]:
    (found,) = [f for f in report if f.flow == flow]
    return {f"{i.kind} {i.label}": (i.line, i.covered) for i in found.items}


def test_the_transfer_tests_cover_every_stage_and_transition() -> None:
    results = asyncio.run(run_file(ROOT / "flows" / "transfer.test.yaml"))
    report = coverage(results)
    transfer = [f for f in report if f.flow == "transfer"][0]
    assert transfer.count("stage") == (10, 10)
    assert transfer.count("transition") == (9, 9)
    items = covered(report, "transfer")
    assert items["slot amount rejected"][1] and items["slot amount corrected"][1]
    lines = (ROOT / "flows" / "transfer.yaml").read_text(encoding="utf-8").splitlines()
    when = next(i for i, line in enumerate(lines, 1) if line.startswith("  when:"))
    confirm = next(i for i, line in enumerate(lines, 1)
                   if "{trigger: confirm, source: READY, dest: CONFIRMED}" in line)
    assert items["slot when rejected"] == (when, True)  # a time that names no date
    assert items["transition READY -confirm-> CONFIRMED"] == (confirm, True)


def test_what_a_test_file_misses_is_reported_with_lines(tmp_path: Path) -> None:
    shutil.copy(CASES / "clean_task.yaml", tmp_path / "task.yaml")
    (tmp_path / "task.test.yaml").write_text(TESTS, encoding="utf-8")
    items = covered(coverage(asyncio.run(run_file(tmp_path / "task.test.yaml"))), "main")
    assert items["stage INIT"] == (10, True) and items["stage DONE"] == (12, True)
    assert items["stage FILLING"] == (11, False) and items["stage CANCELLED"] == (13, False)
    assert items["transition * -cancel-> CANCELLED"] == (15, False)
    assert items["transition INIT,FILLING -update-> DONE [not missing]"] == (16, True)
    assert items["slot amount filled"] == (4, True)
    assert items["slot amount rejected"] == (4, False)


def test_a_correction_and_a_rejection_count_as_branches(tmp_path: Path) -> None:
    flow = (CASES / "clean_confirm.yaml").read_text(encoding="utf-8")
    (tmp_path / "pay.yaml").write_text(flow.replace("ask: ask_amount}", "ask: ask_amount, "
                                                    "minimum: 1}"), encoding="utf-8")
    (tmp_path / "pay.test.yaml").write_text("""conversations:
  - name: corrected at the confirmation, then a rejected value
    turns:
      - {user: 30 dollars, stage: READY}
      - {user: 40 dollars, stage: READY, slots: {amount: 40}}
      - {user: 취소, stage: CANCELLED}
  - name: rejected
    turns:
      - {user: hello, stage: FILLING}
      - {user: -5 dollars, stage: FILLING, errors: {amount: ''}}
      - {user: 5 dollars, stage: READY}
""", encoding="utf-8")
    items = covered(coverage(asyncio.run(run_file(tmp_path / "pay.test.yaml"))), "main")
    assert items["slot amount corrected"][1] and items["slot amount rejected"][1]
    assert items["transition * -cancel-> CANCELLED"] == (22, True)
    assert not items["stage PAY"][1]


def test_the_cli_prints_coverage_before_the_closing_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", "--coverage", str(ROOT / "flows" / "transfer.test.yaml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "coverage of flow `transfer` (transfer.yaml): stages 10/10, transitions 9/9, " \
           "slot branches 9/9" in lines
    assert any(line.endswith("flows/transfer.yaml:82: slot when rejected — covered")
               for line in lines)
    assert lines[-1].endswith("passed, 0 failed")
