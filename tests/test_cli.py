"""The CLI: exit codes 0/1/2, located errors instead of tracebacks, readable test diffs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli import main, serve
from engine.transports.http.reload import child_command
from tests.conftest import ROOT


def test_lint_shipped_flows_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(ROOT / "flows")]) == 0
    assert "0 with errors" in capsys.readouterr().out


def test_lint_reports_located_findings(capsys: pytest.CaptureFixture[str]) -> None:
    broken = ROOT / "tests" / "broken_flows" / "12_transition_unknown_dest.yaml"
    assert main(["lint", str(broken)]) == 1
    out = capsys.readouterr().out
    assert "12_transition_unknown_dest.yaml:8:47: unknown stage `REDY`" in out
    assert "did you mean `READY`?" in out
    assert "Traceback" not in out


def test_missing_path_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "no/such/dir"]) == 2


def test_conversation_tests_pass(capsys: pytest.CaptureFixture[str]) -> None:
    """The command on several files (CI's own step runs it over all of flows/)."""
    assert main(["test", str(ROOT / "flows" / "transfer.test.yaml"),
                 str(ROOT / "flows" / "pizza.test.yaml")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\b[1-9]\d* passed, 0 failed", out)
    assert not [line for line in out.splitlines() if line.startswith("FAIL")]


def copy_flows(tmp_path: Path) -> Path:
    for name in ("transfer.yaml", "transfer.test.yaml"):
        shutil.copy(ROOT / "flows" / name, tmp_path / name)
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")  # beside the flow, not shared
    return tmp_path / "transfer.test.yaml"


def test_a_failing_expectation_prints_a_diff_and_exits_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tests = copy_flows(tmp_path)
    text = tests.read_text(encoding="utf-8")
    tests.write_text(text.replace("stage: READY\n        slots: {target: 엄마, amount: 10000}",
                                  "stage: FILLING\n        slots: {target: 엄마, amount: 10000}",
                                  1), encoding="utf-8")
    assert main(["test", str(tests)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "turn 1" in out
    assert "- expected: FILLING" in out and "+ actual:   READY" in out


def test_a_test_naming_an_unknown_stage_is_invalid_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tests = copy_flows(tmp_path)
    tests.write_text("conversations:\n  - name: x\n    turns:\n      - {user: 안녕, stage: REDY}\n",
                     encoding="utf-8")
    assert main(["test", str(tests)]) == 2
    assert "transfer.test.yaml:4:27: unknown stage `REDY`" in capsys.readouterr().err


def test_schema_check_passes() -> None:
    assert main(["schema", "--check"]) == 0


def scrubbed_env() -> dict[str, str]:
    """os.environ without model keys, endpoints, model overrides, flowctl settings or forced
    colours, so a subprocess runs offline, on the flow's own settings, printing plain text,
    whatever the developer exported."""
    drop = ("OPENAI_", "ANTHROPIC_", "FLOWCTL_", "MEMORY_", "TTY_")
    return {k: v for k, v in os.environ.items()
            if not k.startswith(drop) and not k.endswith("_API_KEY")
            and k not in ("DEV_MODE", "MAX_FILL_TURNS", "FORCE_COLOR")}


def test_chat_reads_piped_messages() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "chat", str(ROOT / "flows" / "transfer.yaml")],
        input="엄마한테 만원, 용걸이한테 5만원 보내줘\n확인\n확인\n", capture_output=True,
        text=True, timeout=60, cwd=ROOT, env=scrubbed_env())
    assert run.returncode == 0, run.stderr
    out = run.stdout.splitlines()
    assert any(line.startswith("model fast runs offline:") for line in out), run.stdout
    transcript = ("you>", "bot ", "flow=", "stage=", "task ")
    assert [line.rstrip() for line in out if line.startswith(transcript)] == [
        "you> 엄마한테 만원, 용걸이한테 5만원 보내줘",
        "bot 총 2건이 요청됐어요. 먼저 엄마에게 1만원 보낼까요? (1/2)",
        'flow=transfer stage=READY next=CONFIRM slots={"target": "엄마", "amount": 10000} queued=1',
        "you> 확인",
        "task 1/2",
        "bot 완료! 다음으로 용걸이에게 5만원 보낼까요? (2/2)",
        'flow=transfer stage=READY next=CONFIRM slots={"target": "용걸이", "amount": 50000}',
        "you> 확인",
        "task 2/2",
        "bot 2건 이체가 모두 완료됐어요.",
        "flow=transfer stage=EXECUTED next=DONE",
    ]


def test_chat_on_an_invalid_flow_exits_2_with_the_location() -> None:
    broken = ROOT / "tests" / "broken_flows" / "06_unknown_stage_key.yaml"
    run = subprocess.run([sys.executable, str(ROOT / "cli.py"), "chat", str(broken)],
                         input="", capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 2
    assert "06_unknown_stage_key.yaml:7:11: unknown key `sai`" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("argv, child", [
    (["f.yaml", "--reload"], ["f.yaml"]),
    (["f.yaml", "--reload", "--port", "8001", "--allow-anonymous"],
     ["f.yaml", "--port", "8001", "--allow-anonymous"]),
    (["--cors-origin", "https://a", "f.yaml", "--reload", "--cors-origin", "https://b",
      "--store", "memory://", "--allow-command", "python -m pytest"],
     ["f.yaml", "--store", "memory://", "--cors-origin", "https://a", "--cors-origin",
      "https://b", "--allow-command", "python -m pytest"]),
])
def test_serve_reload_runs_the_options_given_without_reload(argv: list[str],
                                                            child: list[str]) -> None:
    """Every option given passes to the server child, none listed by hand; defaults stay
    the child's own."""
    with serve.make_context("serve", argv) as ctx:
        assert child_command(ctx) == [sys.executable, "-m", "cli", "serve", *child]
