"""Real servers for the app tests: `flowctl serve` subprocesses on loopback ports."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse

from tests.conftest import ROOT

DONE_KEYS = {"message", "next_action", "ui_hint", "state_snapshot", "hooks", "_trace",
             "requires_confirmation", "next_suggested_actions"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[bytes]
    log: Path

    @property
    def agent(self) -> str:
        return f"{self.url}/v1/agent"

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)


def start(path: Path, tmp: Path, env: Mapping[str, str], name: str) -> Server:
    port = free_port()
    full = {**os.environ, "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "50", **env}
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"):
        if var not in env:
            full.pop(var, None)
    log = tmp / f"{name}.log"
    with log.open("w") as out:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "cli.py"), "serve", str(path), "--port", str(port),
             "--store", f"sqlite:///{tmp}/{name}.db"], env=full, cwd=tmp,
            stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        if proc.poll() is not None:
            break
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return Server(url, proc, log)
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    proc.wait()
    pytest.fail(f"flowctl serve {path.name} did not start:\n{log.read_text()}")


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def run(path: Path, env: Mapping[str, str] | None = None, name: str = "server") -> Server:
        server = start(path, tmp_path, env or {}, name)
        started.append(server)
        return server

    yield run
    for server in started:
        if server.proc.poll() is None:
            server.proc.terminate()
            try:
                server.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()


def stream(server: Server, session: str, message: str,
           timeout: float = 30) -> list[tuple[str, Any]]:
    """Every (event, payload) of one streamed turn, DONE last."""
    events: list[tuple[str, Any]] = []
    with httpx.Client(timeout=timeout) as client, connect_sse(
            client, "POST", f"{server.agent}/chat/stream",
            json={"session_id": session, "message": message}) as source:
        assert source.response.status_code == 200, source.response.read()
        for sse in source.iter_sse():
            events.append((sse.event, sse.json()))
            if sse.event == "DONE":
                break
    assert events and events[-1][0] == "DONE", events
    assert set(events[-1][1]) == DONE_KEYS
    return events
