"""bench/render.py runs: every transfer message it renders gives the same text from its plan
and from jinja2's code (it asserts that), and it prints both timings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_render_benchmark_runs_and_compares_like_with_like() -> None:
    done = subprocess.run([sys.executable, "bench/render.py", "--repeat", "1", "--number", "5"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "transfer.yaml: 19 messages rendered" in done.stdout
    assert "median over with {% %} blocks" in done.stdout
    assert "counting one turn: plain numbers" in done.stdout
