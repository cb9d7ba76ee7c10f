"""A server loads prometheus_client only when it is first scraped (never with metrics off),
and one without OpenTelemetry variables never loads the OpenTelemetry SDK (each is loaded
only by what uses it)."""

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
from fastapi.testclient import TestClient
app = create_app(Engine(compile_file("flows/transfer.yaml"), store=MemoryStore()),
                 settings=Settings(metrics=sys.argv[1] != "off", allow_anonymous=True))
with TestClient(app, base_url="http://127.0.0.1") as client:
    answer = client.post("/v1/agent/chat", json={"session_id": "s", "message": "잔액 알려줘"})
    assert answer.status_code == 200, answer.text
    if sys.argv[1] == "scraped":
        scraped = client.get("/metrics")
        assert scraped.status_code == 200 and "flowctl_turns_total{" in scraped.text
print(",".join(sorted({m.split(".")[0] for m in sys.modules if m.startswith("prometheus_client")}
                      | {"otel-sdk" for m in sys.modules if m.startswith("opentelemetry.sdk")})))
"""


@pytest.mark.parametrize("metrics, loaded", [("off", ""), ("on", ""),
                                             ("scraped", "prometheus_client")])
def test_only_what_is_switched_on_is_imported(metrics: str, loaded: str) -> None:
    done = subprocess.run([sys.executable, "-c", BUILD, metrics], cwd=ROOT, text=True,
                          capture_output=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == loaded
