"""docs/Dockerfile, as far as a machine with no container runtime can check it: the files it
copies exist, the extra it installs is declared, its port is the one it serves and probes,
and its command, environment and health check run as they are (on loopback)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT
from tests.server.conftest import free_port

DOCKERFILE = ROOT / "docs" / "Dockerfile"
KEY = "docker-test-key-0123456789abcdef"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text(encoding="utf-8"))
    found = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            word, _, rest = line.strip().partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def arguments(name: str) -> list[str]:
    return [rest for word, rest in instructions() if word == name]


def environment() -> dict[str, str]:
    env: dict[str, str] = {}
    for rest in arguments("ENV"):
        env.update(word.split("=", 1) for word in shlex.split(rest))  # type: ignore[misc]
    return env


def command() -> list[str]:
    words: list[str] = json.loads(arguments("CMD")[-1])
    return words


def health_check() -> list[str]:
    words: list[str] = json.loads(arguments("HEALTHCHECK")[0].split("CMD", 1)[1])
    return words


def test_every_copied_file_exists_and_the_extra_is_declared() -> None:
    for rest in arguments("COPY"):
        for source in shlex.split(rest)[:-1]:
            assert (ROOT / source).exists(), source
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    for rest in arguments("RUN"):
        for extra in re.findall(r"'\.\[([\w,]+)\]'", rest):
            assert set(extra.split(",")) <= set(extras), extra


def test_the_port_is_the_one_served_probed_and_documented() -> None:
    port = arguments("EXPOSE")[0]
    served = command()
    assert served[:3] == ["flowctl", "serve", "flows/transfer.yaml"]
    assert served[served.index("--port") + 1] == port
    assert f"127.0.0.1:{port}/healthz" in " ".join(health_check())
    docs = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    assert f"docker run -p {port}:{port}" in docs and "docker build -f docs/Dockerfile" in docs


def run_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOWCTL_", "OPENAI_"))}
    env.update(environment(), PYTHONPATH=str(ROOT), **extra)
    env["FLOWCTL_STORE"] = env["FLOWCTL_STORE"].replace(":////data/", f":///{tmp_path}/")
    return env


def test_without_keys_the_command_refuses_to_start(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "cli", *command()[1:]], cwd=ROOT,
                          env=run_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "refusing to listen on 0.0.0.0 without API keys" in done.stderr


@pytest.fixture
def served(tmp_path: Path) -> tuple[subprocess.Popen[str], int]:
    port = free_port()
    args = command()[1:]
    args[args.index("--host") + 1] = "127.0.0.1"
    args[args.index("--port") + 1] = str(port)
    proc = subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=ROOT, text=True,
                            env=run_env(tmp_path, FLOWCTL_API_KEYS=KEY),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return proc, port


def test_the_command_serves_and_the_health_check_passes(
        served: tuple[subprocess.Popen[str], int], tmp_path: Path) -> None:
    proc, port = served
    try:
        probe = [sys.executable if word == "python" else word for word in health_check()]
        probe = [word.replace(":8000/", f":{port}/") for word in probe]
        deadline = time.monotonic() + 30
        while subprocess.run(probe, capture_output=True, timeout=10).returncode != 0:
            assert proc.poll() is None, proc.communicate()[0]
            assert time.monotonic() < deadline, "the health check never passed"
            time.sleep(0.1)
        answer = httpx.post(f"http://127.0.0.1:{port}/v1/agent/chat", timeout=10,
                            headers={"Authorization": f"Bearer {KEY}"},
                            json={"session_id": "d1", "message": "엄마한테 1만원 보내줘"})
        assert answer.json()["interaction"]["next_action"] == "CONFIRM"
        assert (tmp_path / "sessions.db").exists()  # the volume's store
    finally:
        proc.terminate()
        proc.communicate(timeout=20)
