"""A real ``flowctl serve`` in a subprocess (the CLI's own entry point, ``python -m cli``),
on a free loopback port, with its environment scrubbed of provider keys."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.server.conftest import ROOT, free_port

# Variables that would reach beyond loopback or change what the server does.
SCRUBBED = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
            "DEV_MODE", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")


def flowctl_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in SCRUBBED and not k.startswith("FLOWCTL_")}
    return {**env, "PYTHONPATH": str(ROOT), **(extra or {})}


def flowctl(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT,
            timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """Run ``flowctl ARGS`` to completion."""
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=cwd, env=flowctl_env(env),
                          capture_output=True, text=True, timeout=timeout)


class Serve:
    """``flowctl serve FLOW --port P ARGS`` running until ``stop``."""

    def __init__(self, flow: Path | str, *args: str, env: dict[str, str] | None = None,
                 cwd: Path = ROOT, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", str(flow), "--port", str(self.port), *args],
            cwd=cwd, env=flowctl_env(env), text=True, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 20) -> Serve:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"flowctl serve exited: {self.output()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.05)
        raise AssertionError("flowctl serve did not become ready")

    def status(self) -> dict[str, int]:
        """VmRSS and VmHWM (peak) of the server process, in KiB (Linux /proc)."""
        fields = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0])
        return fields

    def terminate(self) -> None:
        self.proc.send_signal(signal.SIGTERM)

    def output(self) -> str:
        out, _ = self.proc.communicate(timeout=40)
        return out

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.terminate()
        try:
            return self.output()
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.output()
