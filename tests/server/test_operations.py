"""Operating `flowctl serve`: log level and access log, a bad level refused in one line, and
the FLOWCTL_DEV_MODE warning for a server listening beyond loopback."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from engine.config import load_settings
from engine.transports.http.server import dev_mode_warning, logging_options
from tests.conftest import ROOT
from tests.server.conftest import free_port

FLOWCTL = Path(sys.executable).parent / "flowctl"


def serve(tmp_path: Path, *options: str, env: dict[str, str] | None = None) -> str:
    """Start `flowctl serve`, GET /healthz once ready, stop it; everything it logged."""
    port = free_port()
    proc = subprocess.Popen(
        [str(FLOWCTL), "serve", str(ROOT / "flows" / "transfer.yaml"), "--port", str(port),
         "--store", "memory://", *options], cwd=tmp_path, text=True,
        env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    return out


def test_access_log_is_off_by_default_and_on_with_the_option(tmp_path: Path) -> None:
    quiet = serve(tmp_path)
    assert "serving transfer" in quiet and "GET /healthz" not in quiet
    loud = serve(tmp_path, "--access-log", "--log-level", "debug")
    assert '"GET /healthz HTTP/1.1" 200' in loud


def test_warning_level_hides_the_start_up_lines(tmp_path: Path) -> None:
    out = serve(tmp_path, env={"FLOWCTL_LOG_LEVEL": "warning"})
    assert "serving transfer" not in out and "Traceback" not in out


def test_a_bad_log_level_is_one_line(tmp_path: Path) -> None:
    out = serve(tmp_path, env={"FLOWCTL_LOG_LEVEL": "loud"})
    assert "FLOWCTL_LOG_LEVEL='loud'" in out and "Traceback" not in out
    assert logging_options({"FLOWCTL_ACCESS_LOG": "true"}) == {"log_level": "info",
                                                               "access_log": True}


def test_dev_mode_off_loopback_is_warned_about() -> None:
    dev = load_settings({"FLOWCTL_DEV_MODE": "true"})
    assert dev_mode_warning("127.0.0.1", dev) is None
    assert dev_mode_warning("::1", dev) is None
    assert "FLOWCTL_DEV_MODE is on" in (dev_mode_warning("0.0.0.0", dev) or "")
    assert dev_mode_warning("0.0.0.0", load_settings({})) is None


def test_dot_env_is_read_and_the_environment_wins(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("FLOWCTL_LOG_LEVEL=loud\n", encoding="utf-8")
    monkeypatch.delenv("FLOWCTL_LOG_LEVEL", raising=False)
    assert "FLOWCTL_LOG_LEVEL='loud'" in serve(tmp_path)  # read from .env
    out = serve(tmp_path, env={"FLOWCTL_LOG_LEVEL": "info"})
    assert "serving transfer" in out and "loud" not in out  # the environment wins
