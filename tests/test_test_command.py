"""`flowctl test -k`, `--junit`, `--json`, the coverage total and `--fail-under`."""

from __future__ import annotations

import doctest
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cli import main
from engine.testing import report as report_module
from engine.testing.suite import run_tests
from tests.conftest import ROOT

TESTS = str(ROOT / "flows" / "transfer.test.yaml")
PIZZA_TESTS = str(ROOT / "flows" / "pizza.test.yaml")
BATCH_NAMES = ["5 batch: two tasks, (1/2) confirmation, TASK_PROGRESS, all done",
               "5b batch: cancelling task 1 moves on to task 2",
               "5c batch: a queued task without its amount goes to FILLING and asks with (2/2)",
               "5d batch without a separator: two recipients make two tasks"]


def broken_copy(tmp_path: Path) -> Path:
    """transfer's tests with one expectation of conversation "2 missing amount" made wrong."""
    flows = tmp_path / "flows"
    flows.mkdir()
    for name in ("transfer.yaml", "transfer.test.yaml"):
        shutil.copy(ROOT / "flows" / name, flows / name)
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")
    tests = flows / "transfer.test.yaml"
    text = tests.read_text(encoding="utf-8")
    good = "{user: 3만원, stage: READY, slots: {amount: 30000}"
    assert good in text
    tests.write_text(text.replace(good, "{user: 3만원, stage: READY, slots: {amount: 3000}"),
                     encoding="utf-8")
    return tests


def test_k_runs_the_conversations_whose_name_contains_a_pattern(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", "-k", "BATCH", TESTS]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.removeprefix(f"PASS {TESTS} :: ") for line in out[:-1]] == BATCH_NAMES
    assert out[-1] == "4 passed, 0 failed, 24 deselected"


def test_k_matching_nothing_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", "-k", "no such conversation", TESTS]) == 2
    assert "no conversation's name contains 'no such conversation'" in capsys.readouterr().err


def test_junit_has_a_testcase_per_conversation_and_the_failure(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tests = broken_copy(tmp_path)
    out = tmp_path / "report.xml"
    assert main(["test", "--junit", str(out), str(tests)]) == 1
    assert "FAIL" in capsys.readouterr().out  # the terminal output stays
    root = ET.parse(out).getroot()
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "28", "1")
    (suite,) = root
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == (str(tests), "28",
                                                                              "1")
    failed = [case for case in suite if case.find("failure") is not None]
    assert [case.get("name") for case in failed] == ["2 missing amount: FILLING asks, then READY"]
    failure = failed[0].find("failure")
    assert failure is not None
    assert failure.get("message") == "turn 2 3만원 — slots.amount: expected 3000, got 30000"
    assert failure.text is not None and ":37:9 turn 2 3만원 — slots.amount" in failure.text
    assert failed[0].get("line") == "30" and float(failed[0].get("time") or -1) >= 0


def test_a_junit_file_that_cannot_be_written_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    where = tmp_path / "no" / "such" / "dir" / "report.xml"
    assert main(["test", "--junit", str(where), TESTS]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"error: cannot write {where}: No such file or directory"


def test_json_is_one_document_with_results_and_coverage(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tests = broken_copy(tmp_path)
    assert main(["test", "--json", "--coverage", "-k", "missing", str(tests)]) == 1
    document = json.loads(capsys.readouterr().out)  # nothing but the document
    assert (document["passed"], document["failed"]) == (1, 1)  # 2 and 2b
    assert document["deselected"] == 26
    (failed,) = [c for c in document["conversations"] if not c["passed"]]
    assert failed["mismatches"] == [{
        "turn": 2, "user": "3만원", "field": "slots.amount", "expected": 3000,
        "actual": 30000, "location": f"{tests}:37:9"}]
    coverage = document["coverage"]
    assert coverage["total"] == 37 and 0 < coverage["covered"] < 37
    assert coverage["percent"] == round(100 * coverage["covered"] / 37, 2)
    flows = {f["flow"]: f for f in coverage["flows"]}
    lines = (ROOT / "flows" / "transfer.yaml").read_text(encoding="utf-8").splitlines()
    filling = next(i for i, line in enumerate(lines, 1) if line.strip().startswith("FILLING:"))
    assert {"kind": "stage", "label": "FILLING", "line": filling, "covered": True} in \
        flows["transfer"]["items"]


def test_the_coverage_ends_with_a_total(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", "--coverage", TESTS]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == [
        "coverage total: stages 16/16, transitions 12/12, slot branches 9/9 — 100.0% (37/37)",
        "28 passed, 0 failed"]


@pytest.mark.parametrize("gate, code", [("80", 0), ("80.4", 0), ("80.5", 1), ("100", 1)])
def test_fail_under_gates_on_the_total(gate: str, code: int,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", "--fail-under", gate, PIZZA_TESTS]) == code  # 80.4% covered
    captured = capsys.readouterr()
    assert "coverage total:" in captured.out  # implies --coverage
    said = f"coverage 80.4% is under --fail-under {gate}"
    assert (said in captured.err) == bool(code)


def test_fail_under_takes_a_percentage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", "--fail-under", "120", TESTS]) == 2
    assert "120" in capsys.readouterr().err


def test_docstring_examples() -> None:
    result = doctest.testmod(report_module)
    assert (result.failed, result.attempted > 0) == (0, True)


def test_run_tests_hands_each_file_over_and_measures_when_gated() -> None:
    handed: list[int] = []
    run = run_tests([TESTS], patterns=["batch"], fail_under=100,
                    on_file=lambda results: handed.append(len(results)))
    assert (handed, run.deselected, run.unusable) == ([len(BATCH_NAMES)], 28 - 4, None)
    assert run.coverage is not None and run.under and run.failed  # --fail-under: coverage


def test_run_tests_says_why_nothing_ran(tmp_path: Path) -> None:
    assert run_tests([str(tmp_path)]).unusable == f"no .test.yaml files found in {tmp_path}"
    picked = run_tests([TESTS], patterns=["no such name"], with_coverage=True)
    assert picked.unusable == "no conversation's name contains 'no such name'"
    assert (picked.deselected, picked.coverage, picked.failed) == (28, None, False)
