"""bench/local_model.py measures the understanding path against an OpenAI-compatible
server; run here against flowctl's own fake server (``--fake``), since model weights are
never part of flowctl or its tests."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "bench/local_model.py", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_the_bench_reports_every_measure_of_a_model_run() -> None:
    done = run("--fake", "--limit", "30", "flows/transfer.eval.yaml", "flows/pizza.eval.yaml")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "flows/pizza.eval.yaml: skipped, its flow has no understanding model" in lines
    header = next(line for line in lines if line.startswith("| eval file"))
    for measure in ("calls/turn", "schema-valid", "outside enum", "ungrounded dropped",
                    "timeouts", "first byte ms"):
        assert measure in header
    (row,) = [line for line in lines if line.startswith("| flows/transfer.eval.yaml")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "30" and int(cells[3]) >= 1  # 30 cases, the model asked at least once
    valid, answered = cells[6].split("/")
    assert int(answered) >= 1 and valid == answered  # the fake's replies all fit the schema


def test_the_bench_needs_a_server_or_the_fake() -> None:
    done = run()
    assert done.returncode == 2 and "--base-url" in done.stderr
