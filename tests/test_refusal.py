"""serve, chat and test refuse an invalid flow with exactly the findings lint prints (exit 2),
and a bad setting with one line naming it; never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

CASES = ROOT / "tests" / "lint" / "cases"
MINIMAL = (ROOT / "flows" / "minimal.yaml").read_text(encoding="utf-8")


def flowctl(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT,
            stdin: str = "") -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("OPENAI_", "ANTHROPIC_", "FLOWCTL_", "MAX_", "MEMORY_"))}
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=cwd, text=True,
                          input=stdin, capture_output=True, timeout=60,
                          env={**clean, "COLUMNS": "400", **(env or {})})


def invalid_flows(tmp: Path) -> dict[str, Path]:
    (tmp / "prompts").mkdir()
    (tmp / "prompts" / "chat.j2").write_text("You are helpful.", encoding="utf-8")
    tools = tmp / "tools.yaml"
    tools.write_text(MINIMAL.replace("fallback: chat_offline}",
                                     "fallback: chat_offline, tools: [rm_rf]}"), encoding="utf-8")
    fixture = tmp / "fixture.yaml"
    fixture.write_text(MINIMAL.replace("fallback: chat_offline}",
                                       "fallback: chat_offline, model: fast}")
                       + "models:\n  fast: {provider: scripted, fixture: replies/nope.yaml}\n",
                       encoding="utf-8")
    field = tmp / "field.yaml"
    field.write_text(MINIMAL.replace("turn.message", "turn.alternatives"), encoding="utf-8")
    return {"unconfirmed-irreversible": CASES / "fl046_irreversible_without_confirmation.yaml",
            "unknown-tool": tools, "missing-fixture": fixture, "unknown-field": field}


@pytest.mark.parametrize("kind", ["unconfirmed-irreversible", "unknown-tool", "missing-fixture",
                                  "unknown-field"])
def test_an_invalid_flow_is_refused_with_lints_findings(kind: str, tmp_path: Path) -> None:
    flow = invalid_flows(tmp_path)[kind]
    lint = flowctl("lint", str(flow))
    assert lint.returncode == 1
    findings = lint.stdout.splitlines()[:-1]  # the last line is lint's summary
    assert any("[error FL" in line for line in findings)
    for command in (["serve", str(flow), "--port", "0"], ["chat", str(flow)],
                    ["test", str(flow)]):
        refused = flowctl(*command, stdin="hello\n")
        assert refused.returncode == 2, (command, refused.stdout, refused.stderr)
        assert refused.stderr.splitlines() == findings, command
        assert "Traceback" not in refused.stdout + refused.stderr


def test_a_bad_setting_is_one_line_naming_it() -> None:
    done = flowctl("chat", "flows/transfer.yaml", env={"FLOWCTL_MAX_FILL_TURNS": "abc"})
    assert done.returncode == 2
    assert done.stderr == "error: FLOWCTL_MAX_FILL_TURNS='abc' is not a whole number\n"


# (`flowctl test` runs each test file with the environment the file declares, not the shell's)
@pytest.mark.parametrize("command", [["chat", "flows/transfer.yaml"],
                                     ["serve", "flows/transfer.yaml", "--port", "0"]])
def test_a_missing_scripted_model_file_is_one_line(command: list[str]) -> None:
    done = flowctl(*command, env={"FLOWCTL_MODEL_FAST": "scripted:nope.yaml"})
    assert done.returncode == 2
    assert done.stderr.startswith("error: FLOWCTL_MODEL_FAST='scripted:nope.yaml': replies "
                                  "file nope.yaml not found")
    assert len(done.stderr.splitlines()) == 1
