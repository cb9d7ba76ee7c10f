"""A server with metrics off never loads prometheus_client, and one without OpenTelemetry
variables never loads the OpenTelemetry SDK (each is loaded only by what uses it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

BUILD = """
import sys
from engine.compiler import compile_file
from engine.config import Settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from engine.transports.http import create_app
create_app(Engine(compile_file("flows/transfer.yaml"), store=MemoryStore()),
           settings=Settings(metrics=sys.argv[1] == "on"))
print(",".join(sorted({m.split(".")[0] for m in sys.modules if m.startswith("prometheus_client")}
                      | {"otel-sdk" for m in sys.modules if m.startswith("opentelemetry.sdk")})))
"""


@pytest.mark.parametrize("metrics, loaded", [("off", ""), ("on", "prometheus_client")])
def test_only_what_is_switched_on_is_imported(metrics: str, loaded: str) -> None:
    done = subprocess.run([sys.executable, "-c", BUILD, metrics], cwd=ROOT, text=True,
                          capture_output=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == loaded
