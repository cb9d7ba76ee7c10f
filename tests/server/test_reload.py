"""``flowctl serve --reload`` as a user runs it: a real process, real file edits, real HTTP."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import ROOT, free_port

FLOW = """\
service: hello
description: reload test
default_flow: chat
flows:
  chat:
    initial: CHAT
    stages:
      CHAT: {say: greeting}
messages:
  greeting: "{GREETING}"
"""


def flow_text(greeting: str) -> str:
    return FLOW.replace("{GREETING}", greeting)


class Reloading:
    def __init__(self, flow: Path, preexec: Callable[[], None] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = flow.parent / "serve.log"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "cli", "serve", str(flow), "--reload", "--port",
                 str(self.port), "--store", "memory://"], cwd=ROOT, env=env,
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=preexec)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def says(self, session: str = "s") -> str | None:
        try:
            answer = httpx.post(f"{self.url}/v1/agent/chat", timeout=5,
                                json={"session_id": session, "message": "안녕"})
        except httpx.TransportError:
            return None
        return str(answer.json()["interaction"]["message"])

    def until(self, check: Callable[[], bool], what: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"exited: {self.output()}"
            if check():
                return
            time.sleep(0.1)
        raise AssertionError(f"never: {what}\n{self.output()}")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Reloading, Path]]:
    flow = tmp_path / "hello.yaml"
    flow.write_text(flow_text("first version"), encoding="utf-8")
    server = Reloading(flow)
    yield server, flow
    if server.proc.poll() is None:
        os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait()


def test_an_edit_reloads_and_a_broken_edit_keeps_the_last_good_version(
        served: tuple[Reloading, Path]) -> None:
    server, flow = served
    server.until(lambda: server.says() == "first version", "the first version answers")

    flow.write_text(flow_text("second version"), encoding="utf-8")
    server.until(lambda: server.says() == "second version", "the edit is served")
    assert "reload: changed: hello.yaml" in server.output()

    flow.write_text(flow_text("broken").replace("say: greeting", "say: nowhere"),
                    encoding="utf-8")
    server.until(lambda: "kept the last good version running" in server.output(),
                 "the broken edit is reported")
    assert "hello.yaml:8:" in server.output()  # located, as `flowctl lint` says it
    assert server.says() == "second version"

    flow.write_text(flow_text("third version"), encoding="utf-8")
    server.until(lambda: server.says() == "third version", "the fix is served")


def test_editing_the_tests_beside_the_flow_restarts_nothing(
        served: tuple[Reloading, Path]) -> None:
    server, flow = served
    server.until(lambda: server.says() == "first version", "the first version answers")
    (flow.parent / "hello.test.yaml").write_text("conversations: []\n", encoding="utf-8")
    (flow.parent / "hello.eval.yaml").write_text("cases: []\n", encoding="utf-8")
    flow.write_text(flow_text("second version"), encoding="utf-8")  # a change that counts
    server.until(lambda: server.says() == "second version", "the edit is served")
    assert "changed: hello.yaml" in server.output()
    assert "test.yaml" not in server.output() and "eval.yaml" not in server.output()


def test_stopping_the_watcher_stops_the_server(served: tuple[Reloading, Path]) -> None:
    server, _ = served
    server.until(lambda: server.says() is not None, "the server answers")
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=20) == 0
    assert server.says() is None  # the child is gone with it


def test_an_interrupt_to_the_watcher_stops_it_even_started_in_the_background(
        tmp_path: Path) -> None:
    """A shell starts a background job with SIGINT ignored; `kill -INT` still stops it."""
    flow = tmp_path / "hello.yaml"
    flow.write_text(flow_text("x"), encoding="utf-8")
    def ignore_interrupts() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    server = Reloading(flow, preexec=ignore_interrupts)
    try:
        server.until(lambda: server.says() is not None, "the server answers")
        server.proc.send_signal(signal.SIGINT)
        assert server.proc.wait(timeout=20) == 0
        assert server.says() is None  # the child is gone with it
    finally:
        if server.proc.poll() is None:
            os.killpg(server.proc.pid, signal.SIGKILL)


def test_reload_refuses_several_workers(tmp_path: Path) -> None:
    flow = tmp_path / "hello.yaml"
    flow.write_text(flow_text("x"), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "cli", "serve", str(flow), "--reload",
                           "--workers", "2"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert "--reload runs one worker" in done.stderr
