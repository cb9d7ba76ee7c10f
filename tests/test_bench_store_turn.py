"""bench/store_turn.py runs: one checkout beside another, a line each, ratios to this one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_store_bench_measures_each_checkout_side_by_side() -> None:
    ran = subprocess.run([sys.executable, str(ROOT / "bench" / "store_turn.py"), "--runs", "1",
                          "--turns", "40", "--checkout", str(ROOT)],
                         capture_output=True, text=True, timeout=120, check=True)
    rows = [line.split() for line in ran.stdout.splitlines()[1:]]
    assert [row[0] for row in rows] == [str(ROOT), str(ROOT)]
    assert all(float(row[1]) > 0 and row[-1].endswith("x") for row in rows)
