"""docs/docker-compose.yaml, as far as this machine allows (no container runtime here): its
flowctl service's command and environment run as they are, but on loopback, as two
instances of ``--workers 2`` on one PostgreSQL database. A conversation alternates between
the instances with the API key, and a login cookie one instance made works on the other
(the shared FLOWCTL_COOKIE_SECRET)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.pg_cluster import free_port

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docs" / "docker-compose.yaml"
KEY = "compose-test-key-0123456789abcdef"
SECRET = "s" * 48


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    return loaded


def serve_args() -> list[str]:
    """The flowctl service's ``flowctl serve`` arguments."""
    script = compose()["services"]["flowctl"]["command"][-1]
    words = shlex.split(script.split("exec ", 1)[1])
    assert words[:2] == ["flowctl", "serve"], words
    return words[2:]


def test_the_compose_file_has_postgres_instances_and_a_load_balancer() -> None:
    services = compose()["services"]
    assert set(services) == {"postgres", "flowctl", "nginx"}
    env = services["flowctl"]["environment"]
    assert env["FLOWCTL_STORE"].startswith("postgresql://")
    assert {"FLOWCTL_API_KEYS", "FLOWCTL_COOKIE_SECRET"} <= set(env)
    assert "proxy_pass http://flowctl;" in compose()["configs"]["nginx"]["content"]
    assert "proxy_buffering off;" in compose()["configs"]["nginx"]["content"]


@pytest.fixture
def instances(pg_url: str) -> Iterator[list[str]]:
    env_of_compose = compose()["services"]["flowctl"]["environment"]
    query = env_of_compose["FLOWCTL_STORE"].partition("?")[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOWCTL_", "OPENAI_"))}
    env.update({k: str(v) for k, v in env_of_compose.items()},
               FLOWCTL_STORE=f"{pg_url}?{query}", FLOWCTL_API_KEYS=KEY,
               FLOWCTL_COOKIE_SECRET=SECRET, PYTHONPATH=str(ROOT))
    procs, urls = [], []
    for _ in range(2):
        args = serve_args()
        port = free_port()
        args[args.index("--host") + 1] = "127.0.0.1"
        args[args.index("--port") + 1] = str(port)
        procs.append(subprocess.Popen([sys.executable, "-m", "cli", "serve", *args], cwd=ROOT,
                                      env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
        urls.append(f"http://127.0.0.1:{port}")
    try:
        for proc, url in zip(procs, urls, strict=True):
            deadline = time.monotonic() + 30
            while True:
                assert proc.poll() is None, proc.communicate()[0]
                assert time.monotonic() < deadline, "no server"
                try:
                    if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.05)
        yield urls
    finally:
        for proc in procs:
            proc.terminate()
        logs = [proc.communicate(timeout=30)[0] for proc in procs]
    assert not any("Traceback" in log for log in logs), logs


def test_the_compose_instances_share_sessions_and_logins(instances: list[str]) -> None:
    a, b = instances
    key = {"Authorization": f"Bearer {KEY}"}
    turns = [(a, "엄마한테 1만원 보내줘"), (b, "확인")]
    with httpx.Client(timeout=30) as client:
        done = [client.post(f"{url}/v1/agent/chat", headers=key,
                            json={"session_id": "c1", "message": m}).json()["interaction"]
                for url, m in turns]
        login = client.post(f"{a}/v1/agent/login", headers=key)
        assert login.status_code == 200, login.text
        with httpx.Client(timeout=30, cookies=login.cookies) as browser:
            completed = browser.get(f"{b}/v1/agent/completed", params={"session_id": "c1"})
    assert [d["state_snapshot"]["stage"] for d in done] == ["READY", "EXECUTED"]
    assert completed.status_code == 200, completed.text
    assert [c["outcome"] for c in completed.json()["completed"]] == ["EXECUTED"]
