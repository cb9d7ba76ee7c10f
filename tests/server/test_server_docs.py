"""Every ``console`` example of docs/server.md runs against a real ``flowctl serve`` and
prints what the page says.

The examples are one walkthrough, run in order: ``export NAME=VALUE`` sets the environment
of the servers started after it; ``[NAME=VALUE ...] flowctl serve ...`` with no output shown
starts a server in the background (on a free loopback port instead of 8000, replacing the
one before), and with output shown runs to its end and must print exactly that; ``curl``
runs through httpx (``-s -i -N -X -H -d -c -b``; ``localhost:8000`` is the running server;
``$RUN`` is the id of the last background run a response showed).
In the output shown, ``...`` stands for any text, lines included.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import ROOT, free_port
from tests.server.processes import Serve, flowctl

DOC = ROOT / "docs" / "server.md"


@dataclass
class Step:
    command: str
    expected: str  # "" when the page shows no output


def console_steps(text: str) -> list[Step]:
    steps: list[Step] = []
    for block in re.findall(r"```console\n(.*?)\n```", text, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append(Step(line[2:], ""))
            else:
                steps[-1].expected += ("\n" if steps[-1].expected else "") + line
    return steps


def matches(expected: str, actual: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in expected.strip().split("..."))
    return re.fullmatch(pattern, actual.strip(), re.S) is not None


@dataclass
class Walkthrough:
    tmp: Path
    env: dict[str, str] = field(default_factory=dict)
    server: Serve | None = None
    jars: dict[str, httpx.Cookies] = field(default_factory=dict)
    run_id: str = ""

    def run(self, step: Step) -> str | None:
        """The output of the step (None: nothing to compare)."""
        words = shlex.split(step.command.replace("$RUN", self.run_id))
        if words[0] == "export":
            name, _, value = words[1].partition("=")
            self.env[name] = value
            return None
        env = dict(self.env)
        while re.fullmatch(r"[A-Z_]+=.*", words[0]):
            name, _, value = words.pop(0).partition("=")
            env[name] = value
        if words[:2] == ["flowctl", "serve"]:
            return self.serve(words[2:], env, step.expected)
        assert words[0] == "curl", f"no runner for {step.command!r}"
        out = self.curl(words[1:])
        started = re.search(r'"run":\{"id":"(\w+)"', out)  # a run's id, as $RUN from now on
        self.run_id = started[1] if started else self.run_id
        return out

    def serve(self, args: list[str], env: dict[str, str], expected: str) -> str | None:
        if expected:
            done = flowctl("serve", *args, "--port", str(free_port()), env=env)
            assert done.returncode == 2
            return done.stdout + done.stderr
        self.stop()
        self.server = Serve(args[0], *args[1:], env=env).wait_ready()
        return None

    def curl(self, args: list[str]) -> str:
        assert self.server is not None, "curl before any flowctl serve"
        method, headers, data, include = None, [], None, False
        url, save, send = "", None, None
        words = iter(args)
        for word in words:
            if word in ("-s", "-N"):
                continue
            if word == "-i":
                include = True
            elif word == "-X":
                method = next(words)
            elif word == "-H":
                name, _, value = next(words).partition(":")
                headers.append((name.strip(), value.strip()))
            elif word in ("-d", "--data-binary"):
                data = next(words).encode()
            elif word == "-c":
                save = next(words)
            elif word == "-b":
                send = next(words)
            else:
                url = word
        assert url.startswith("localhost:8000/"), url
        url = url.replace("localhost:8000", self.server.url, 1)
        if data is not None and not any(n.lower() == "content-type" for n, _ in headers):
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        cookies = self.jars.get(send or "", httpx.Cookies())
        with httpx.Client(timeout=20, cookies=cookies) as client:
            response = client.request(method or ("POST" if data is not None else "GET"), url,
                                      headers=headers, content=data)
            if save:
                self.jars[save] = httpx.Cookies(client.cookies)
        body = response.text.replace("\r\n", "\n")
        if not include:
            return body
        lines = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}"]
        lines += [f"{k.decode()}: {v.decode()}" for k, v in response.headers.raw]
        return "\n".join(lines) + "\n\n" + body

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


@pytest.fixture
def walkthrough(tmp_path: Path) -> Iterator[Walkthrough]:
    walk = Walkthrough(tmp_path)
    yield walk
    walk.stop()


def test_every_console_example_of_server_md(walkthrough: Walkthrough) -> None:
    steps = console_steps(DOC.read_text(encoding="utf-8"))
    assert len(steps) >= 19 and sum(s.command.startswith("curl") for s in steps) >= 14
    for step in steps:
        actual = walkthrough.run(step)
        if step.expected:
            assert actual is not None and matches(step.expected, actual), \
                f"$ {step.command}\n--- the page says:\n{step.expected}\n--- it printed:\n{actual}"


def test_the_matcher() -> None:
    assert matches('{"session_id":"..."}', '{"session_id":"abc"}')
    assert matches("HTTP/1.1 200 OK\n...\nx: 1\n...", "HTTP/1.1 200 OK\na: 2\nx: 1\nb: 3")
    assert not matches('{"a":1}', '{"a":2}')
    assert not matches("HTTP/1.1 200 OK\n...\nx: 1", "HTTP/1.1 200 OK\na: 2")
