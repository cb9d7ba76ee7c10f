"""The benchmarks that measure one checkout beside another run: a line each, a ratio to this
one (bench/store_turn.py, bench/classify.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("argv", [["store_turn.py", "--runs", "1", "--turns", "40"],
                                  ["classify.py", "--passes", "1", "--flow", "pizza"]])
def test_a_side_by_side_bench_measures_each_checkout(argv: list[str]) -> None:
    ran = subprocess.run([sys.executable, str(ROOT / "bench" / argv[0]), *argv[1:],
                          "--checkout", str(ROOT)],
                         capture_output=True, text=True, timeout=120, check=True)
    rows = [line.split() for line in ran.stdout.splitlines() if line.startswith(str(ROOT))]
    assert [row[0] for row in rows] == [str(ROOT), str(ROOT)]
    assert all(float(row[1]) > 0 and row[-1].endswith("x") for row in rows)
