"""bench/http_layers.py takes an HTTP turn apart: each layer answers every request of the
conversations with a 200 (the script stops on any other answer) and gets a median a round."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["engine", "Turns.reply", "app", "app, stored DONE", "bare FastAPI"]


def test_every_layer_is_measured_each_round() -> None:
    ran = subprocess.run([sys.executable, str(ROOT / "bench" / "http_layers.py"),
                          "--rounds", "2", "--repeat", "1"],
                         capture_output=True, text=True, timeout=120, check=True, cwd=ROOT)
    rows = {line[:20].strip(): [float(m) for m in line[20:].split(" / ")]
            for line in ran.stdout.splitlines()[1:]}  # the layer's name in 20 columns
    assert list(rows) == LAYERS
    assert all(len(medians) == 2 and min(medians) > 0 for medians in rows.values())
