"""``flowctl serve --workers N``: N real worker processes share one port and one store; a
worker killed with SIGKILL is replaced; SIGTERM stops them all; a store the workers cannot
share, or cannot open, is one error before any worker starts."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.pg_cluster import free_port
from tests.store.test_pg_instances import Instance, chat, user_messages

ROOT = Path(__file__).resolve().parents[2]


def children(pid: int) -> set[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return {int(p) for p in text.split()}


def wait_for(check: object, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
async def test_workers_share_the_port_and_the_sessions(
        flow: Path, kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    url = request.getfixturevalue("pg_url") if kind == "postgresql" else \
        f"sqlite:///{tmp_path}/s.db"
    server = Instance(flow, url, "--workers", "2").wait_ready()
    try:
        workers = children(server.proc.pid)
        assert len(workers) == 2
        messages = [f"메시지 {i}" for i in range(60)]
        # a connection per request: the kernel spreads them over both workers
        async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(
                max_keepalive_connections=0)) as client:
            dones = await asyncio.gather(*(chat(client, server.url, "shared", m)
                                           for m in messages))
            debug = (await client.get(f"{server.url}/v1/agent/debug/shared")).json()
        assert [d["_trace"].get("error") for d in dones] == [None] * 60
        assert sorted(user_messages(debug)) == sorted(messages)
        assert debug["state"]["turns"] == 60

        victim = sorted(workers)[0]
        os.kill(victim, signal.SIGKILL)
        wait_for(lambda: len(children(server.proc.pid) - {victim}) == 2)
        async with httpx.AsyncClient(timeout=30) as client:
            assert (await chat(client, server.url, "after", "안녕"))["_trace"].get("error") is None
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(timeout=30) == 0
    finally:
        log = server.stop()
    assert "Traceback" not in log, log
    assert "starting another" in log, log


@pytest.mark.parametrize("store, message", [
    ("memory://", "needs a store every worker shares"),
    ("postgresql://flowctl:secret@127.0.0.1:{port}/flowctl", "cannot open session store"),
])
def test_an_unshared_or_unusable_store_is_one_error(store: str, message: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "cli", "serve", "flows/transfer.yaml", "--workers", "2",
         "--port", str(free_port()), "--store", store.format(port=free_port())],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
        text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    assert message in run.stderr and "secret" not in run.stderr
    assert "Traceback" not in run.stderr and run.stderr.count("\n") == 1, run.stderr


def test_workers_stop_when_their_supervisor_is_killed(tmp_path: Path, flow: Path) -> None:
    server = Instance(flow, f"sqlite:///{tmp_path}/s.db", "--workers", "2").wait_ready()
    workers = children(server.proc.pid)
    server.proc.kill()
    server.proc.wait(timeout=10)

    def running(pid: int) -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0] != "Z"
        except (FileNotFoundError, ProcessLookupError):
            return False

    try:
        wait_for(lambda: not any(running(pid) for pid in workers))  # no orphans on the port
    finally:
        for pid in workers:
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        server.stop()
