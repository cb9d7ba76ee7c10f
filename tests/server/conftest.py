"""Fixtures of the server tests: real uvicorn servers on free loopback ports, in a thread
(same process, so a test can hand the app a wrapped store or engine) or in a subprocess
(``run_server``, as ``flowctl serve`` runs it). The network beyond loopback is blocked by
tests/conftest.py."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from httpx_sse import aconnect_sse

from engine.compiler import compile_service
from engine.compiler.compiled import CompiledService
from engine.config import Settings
from engine.dsl import load_service_text
from engine.runtime.engine import Engine
from engine.store import SessionStore, SqliteStore
from engine.transports.http import bind, create_app, server_config

ROOT = Path(__file__).resolve().parents[2]
TRANSFER = ROOT / "flows" / "transfer.yaml"
BATCH = "엄마한테 만원, 용걸이한테 5만원 보내줘"
ALL_DONE = "2건 이체가 모두 완료됐어요."
# History long enough to hold every turn a test sends (the shipped flow keeps 6 turns).
LONG_MEMORY = "memory: {enabled: false, summarize_threshold: 200}\n"

def long_memory_text() -> str:
    """transfer.yaml with a raw history long enough for the concurrency tests."""
    text = TRANSFER.read_text(encoding="utf-8")
    text = "\n".join(line for line in text.splitlines() if not line.startswith("memory:"))
    return text.replace("\nintents:", f"\n{LONG_MEMORY}\nintents:", 1)


@pytest.fixture(scope="session")
def transfer() -> CompiledService:
    spec, source = load_service_text(long_memory_text(), str(TRANSFER))
    return compile_service(spec, source, base_dir=TRANSFER.parent)


@pytest.fixture
def long_memory_flow(tmp_path: Path) -> Path:
    """The same flow as a file (with its prompts) for servers in subprocesses."""
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")
    path = tmp_path / "transfer.yaml"
    path.write_text(long_memory_text(), encoding="utf-8")
    return path


# -- servers in a thread ----------------------------------------------------------------------

class ServerThread:
    """uvicorn serving ``app`` with flowctl's config on a free port, in its own loop."""

    def __init__(self, app: Any) -> None:
        self.sock = bind("127.0.0.1", 0)
        port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.server = uvicorn.Server(server_config(app, host="127.0.0.1", port=port))
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.run(self.server.serve(sockets=[self.sock]))

    def start(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.sock.close()


@dataclass
class Running:
    url: str
    engine: Engine
    store: SessionStore
    thread: ServerThread

    def client(self, **kw: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.url, timeout=20, **kw)

    def stop(self) -> None:
        self.thread.stop()


MakeServer = Callable[..., Running]


@pytest.fixture
def make_server(transfer: CompiledService, tmp_path: Path) -> Iterator[MakeServer]:
    """Start a server over the transfer flow; every one started is stopped at teardown."""
    started: list[Running] = []

    def make(*, store: SessionStore | None = None, engine: Engine | None = None,
             dev_mode: bool = True, ping_seconds: float = 15.0,
             settings: Settings | None = None, engine_class: type[Engine] = Engine) -> Running:
        settings = settings or Settings(dev_mode=dev_mode)
        if engine is None:
            store = store or SqliteStore(tmp_path / f"sessions-{len(started)}.db")
            engine = engine_class(transfer, store=store, settings=settings)
        app = create_app(engine, settings=settings, ping_seconds=ping_seconds)
        thread = ServerThread(app)
        running = Running(thread.url, engine, engine.store, thread)
        thread.start()
        started.append(running)
        return running

    yield make
    for running in started:
        running.stop()


@pytest.fixture
async def server(make_server: MakeServer) -> AsyncIterator[Running]:
    yield make_server()


@pytest.fixture
async def client(server: Running) -> AsyncIterator[httpx.AsyncClient]:
    async with server.client() as c:
        yield c


# -- servers in subprocesses ------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


_SERVE = "import os, sys; from engine.transports.http import run_server; " \
         "run_server(sys.argv[1], port=int(sys.argv[2]), store_url=sys.argv[3], env=os.environ)"


class ServerProcess:
    """``run_server`` in a subprocess, as ``flowctl serve`` runs it."""

    def __init__(self, flow: Path, store_url: str, *, cwd: Path,
                 env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        full_env = {**os.environ, "PYTHONPATH": str(ROOT), "FLOWCTL_DEV_MODE": "1", **(env or {})}
        self.proc = subprocess.Popen([sys.executable, "-c", _SERVE, str(flow), str(self.port),
                                      store_url], cwd=cwd, env=full_env, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 20) -> ServerProcess:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited: {self.proc.stdout.read()}")  # type: ignore[union-attr]
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.05)
        raise AssertionError("server did not become ready")

    def stop(self) -> str:
        self.proc.terminate()
        out, _ = self.proc.communicate(timeout=20)
        return out


# -- an SSE client ----------------------------------------------------------------------------

async def sse(client: httpx.AsyncClient, method: str, url: str,
              **kw: Any) -> list[tuple[str, Any]]:
    """Every (event, JSON data) of one stream, in order."""
    async with aconnect_sse(client, method, url, **kw) as source:
        assert source.response.status_code == 200, await source.response.aread()
        return [(e.event, json.loads(e.data)) async for e in source.aiter_sse()]


async def chat(client: httpx.AsyncClient, session_id: str, message: str) -> dict[str, Any]:
    """POST /v1/agent/chat; the interaction (DONE payload)."""
    response = await client.post("/v1/agent/chat",
                                 json={"session_id": session_id, "message": message})
    assert response.status_code == 200, response.text
    return response.json()["interaction"]
