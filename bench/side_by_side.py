"""Run one measurement in a fresh interpreter per checkout, alternating run by run, and print
each checkout's median with its range and its ratio to the first (this checkout): what
bench/store_turn.py and bench/classify.py share."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path


def measure(code: str, trees: list[Path], runs: int, *args: str) -> list[list[str]]:
    """Per checkout, the output lines of ``runs`` runs of ``code`` (``python -c code TREE
    *args``), the checkouts taken in turn within each run."""
    outputs: list[list[str]] = [[] for _ in trees]
    for _ in range(runs):
        for tree, out in zip(trees, outputs, strict=True):
            out.append(subprocess.run([sys.executable, "-c", code, str(tree), *args],
                                      capture_output=True, text=True, check=True).stdout)
    return outputs


def table(trees: list[Path], values: list[list[float]], heading: str) -> None:
    """A line per checkout: the median of its values, their range, the ratio to the first."""
    base = statistics.median(values[0])
    print(f"{'checkout':<40}{heading:>38}{'vs this':>10}")
    for tree, mine in zip(trees, values, strict=True):
        mid = statistics.median(mine)
        print(f"{str(tree):<40}{mid:>20.1f} ({min(mine):.1f}–{max(mine):.1f}){'':>4}"
              f"{mid / base:>9.2f}x")
