"""The supervisor endpoints of a service with workspace or command actions (flows/devloop.yaml)
against real uvicorn servers: liveness without a model call, model probes, the run
configuration with nothing secret in it, the ping (live, offline, a dead provider), one
allow-listed command (and every refusal), the same auth as ``/v1/runs``, and the routes of a
real ``flowctl serve`` started with the operator's options."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from engine.transports.http import create_app
from engine.transports.http.supervisor import COMMAND_OUTPUT_CHARS
from tests.fakes.llm_servers import FakeLLMServer, FakeReply
from tests.server.conftest import ROOT, TRANSFER, Running, ServerThread, free_port
from tests.server.processes import Serve
from tests.server.test_auth import KEY_A, KEY_B, bearer

DEVLOOP = ROOT / "flows" / "devloop.yaml"
SAMPLE = ROOT / "tests" / "fixtures" / "devloop_ws"
HEALTH, OVERVIEW = "/api/health", "/api/tools/overview"
PING, COMMAND = "/api/tools/llm/ping", "/api/tools/command"
ROUTES = [("GET", HEALTH, None), ("GET", OVERVIEW, None),
          ("POST", PING, {"prompt": "ping"}), ("POST", COMMAND, {"command": "echo hi"})]
SEED_PROMPT = "Respond with one short line: ping accepted"
REMOTE = "203.0.113.9"  # TEST-NET-3: only ever an ASGI scope value here, never dialled

Start = Callable[..., Running]


def operator(workspace: Path | None = None, commands: str = "",
             **env: str) -> dict[str, str]:
    """The operator's environment: a key, and the root and allowed commands if given (the
    interpreter running the tests first on PATH, so `python` has pytest)."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    found = {"PATH": path, "FLOWCTL_API_KEYS": KEY_A, **env}
    if workspace is not None:
        found["FLOWCTL_WORKSPACE_ROOT"] = str(workspace)
    if commands:
        found["FLOWCTL_ALLOW_COMMANDS"] = commands
    return found


@pytest.fixture(scope="module")
def devloop() -> CompiledService:
    return compile_file(DEVLOOP)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A copy of the devloop sample (one failing test): commands may write in it."""
    return Path(shutil.copytree(SAMPLE, tmp_path / "ws"))


@pytest.fixture
def start(devloop: CompiledService) -> Iterator[Start]:
    """Start a server over ``flow`` (default devloop) with the operator's ``env``."""
    started: list[ServerThread] = []

    def make(env: dict[str, str], flow: CompiledService | None = None) -> Running:
        settings = load_settings(env)
        engine = Engine(flow or devloop, store=MemoryStore(), settings=settings)
        thread = ServerThread(create_app(engine, settings=settings)).start()
        started.append(thread)
        return Running(thread.url, engine, engine.store, thread)

    yield make
    for thread in started:
        thread.stop()


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(default=FakeReply(text="pong")) as server:
        yield server


def call(server: Running | Serve, method: str, path: str, body: Any = None,
         key: str | None = KEY_A, **headers: str) -> httpx.Response:
    sent = {**(bearer(key) if key else {}), **headers}
    return httpx.request(method, server.url + path, json=body, headers=sent, timeout=30)


def dead_url() -> str:
    """An OpenAI base URL on a loopback port nothing listens on."""
    return f"http://127.0.0.1:{free_port()}/v1"


class TestTheRoutesExistForSupervisorsOnly:
    def test_a_service_without_local_actions_has_none(self, start: Start) -> None:
        server = start(operator(), compile_file(TRANSFER))
        for method, path, body in ROUTES:
            answer = call(server, method, path, body)
            assert (answer.status_code, answer.json()["error"]) == (404, "not_found"), path

    @pytest.mark.parametrize("commands, rooted", [("", False), ("", True), ("echo", False)])
    def test_no_command_route_without_a_root_and_allowed_commands(
            self, start: Start, workspace: Path, commands: str, rooted: bool) -> None:
        server = start(operator(workspace if rooted else None, commands))
        assert call(server, "GET", HEALTH).status_code == 200
        assert call(server, "GET", OVERVIEW).json()["command_tool"]["enabled"] is False
        assert call(server, "POST", COMMAND, {"command": "echo hi"}).status_code == 404


class TestHealthIsLivenessWithoutAModelCall:
    def test_plain_health_calls_no_provider(self, start: Start,
                                            llm: FakeLLMServer) -> None:
        server = start(operator(**llm.env()))
        answer = call(server, "GET", HEALTH)
        assert (answer.status_code, answer.json()) == (200, {"ok": True, "service": "devloop"})
        assert llm.requests == []

    def test_models_1_asks_each_model_one_short_question(self, start: Start,
                                                         llm: FakeLLMServer) -> None:
        server = start(operator(**llm.env()))
        answer = call(server, "GET", f"{HEALTH}?models=1")
        assert answer.json() == {"ok": True, "service": "devloop",
                                 "models": {"dev": "reachable", "tester": "reachable"}}
        assert len(llm.requests) == 2
        assert all(r.body["max_tokens"] <= 8 for r in llm.requests)

    @pytest.mark.parametrize("env, status", [
        ({}, "offline"), ({"OPENAI_BASE_URL": "dead"}, "unreachable")])
    def test_a_model_that_cannot_answer_is_named(self, start: Start, env: dict[str, str],
                                                 status: str) -> None:
        env = {k: dead_url() if v == "dead" else v for k, v in env.items()}
        answer = call(start(operator(**env)), "GET", f"{HEALTH}?models=1")
        assert answer.status_code == 200
        assert answer.json()["models"] == {"dev": status, "tester": status}


class TestOverviewTellsTheRunConfiguration:
    def test_models_root_commands_actions_and_loops(self, start: Start,
                                                    workspace: Path) -> None:
        server = start(operator(workspace, "python -m pytest,echo",
                                FLOWCTL_COMMAND_ENV="HOME"))
        seen = call(server, "GET", OVERVIEW).json()
        assert [(m["name"], m["provider"], m["model"], m["status"]) for m in seen["models"]] \
            == [("dev", "openai", "gpt-4.1-mini", "offline"),
                ("tester", "openai", "gpt-4.1-mini", "offline")]
        assert "OPENAI_API_KEY" in seen["models"][0]["reason"]
        assert seen["workspace_root"] == os.path.realpath(workspace)
        assert (seen["allowed_commands"], seen["command_env"]) == \
            (["python -m pytest", "echo"], ["HOME"])
        assert [(a["name"], a["kind"], a["files"], a["command"]) for a in seen["actions"]] == [
            ("read_code", "read", ["calc/*.py", "check_*.py"], None),
            ("apply_changes", "apply", ["calc/*.py"], None),
            ("run_tests", "command", [], "python -m pytest -q")]
        assert seen["loops"] == [{
            "flow": "fix", "stage": "WORKING", "background": True,
            "max_attempts": "context.get('max_attempts') or slots.attempts or 3"}]
        assert (seen["max_attempts_limit"], seen["background_runs"]) == (50, True)
        assert seen["command_tool"] == {"enabled": True, "timeout_sec": 60.0,
                                        "output_chars": COMMAND_OUTPUT_CHARS}

    def test_no_key_or_provider_url_appears(self, start: Start) -> None:
        port = free_port()
        server = start(operator(OPENAI_API_KEY="sk-secret-0123456789",
                                OPENAI_BASE_URL=f"http://ops:hunter2@127.0.0.1:{port}/v1"))
        text = call(server, "GET", OVERVIEW).text
        assert '"status":"live"' in text
        for secret in ("sk-secret", "hunter2", str(port), KEY_A):
            assert secret not in text


class TestPingSendsOneCompletion:
    def test_a_live_model_answers_with_its_reply_and_latency(self, start: Start,
                                                             llm: FakeLLMServer) -> None:
        llm.enqueue("ping accepted")
        answer = call(start(operator(**llm.env())), "POST", PING, {"prompt": SEED_PROMPT})
        body = answer.json()
        assert answer.status_code == 200
        assert {k: body[k] for k in ("ok", "model", "provider", "status", "reply", "reason")} \
            == {"ok": True, "model": "dev", "provider": "openai", "status": "reachable",
                "reply": "ping accepted", "reason": None}
        assert body["latency_ms"] >= 0
        [sent] = llm.requests
        messages: Any = sent.body["messages"]
        assert messages[-1]["content"] == SEED_PROMPT
        assert sent.body["max_tokens"] <= 64

    def test_the_model_may_be_named(self, start: Start, llm: FakeLLMServer) -> None:
        answer = call(start(operator(**llm.env())), "POST", PING,
                      {"prompt": "hi", "model": "tester"})
        assert (answer.json()["model"], answer.json()["reply"]) == ("tester", "pong")

    def test_an_offline_model_says_so_and_sends_nothing(self, start: Start) -> None:
        answer = call(start(operator()), "POST", PING, {"prompt": SEED_PROMPT})
        body = answer.json()
        assert (answer.status_code, body["ok"], body["status"], body["reply"]) == \
            (200, False, "offline", None)
        assert body["reason"].startswith("provider 'openai' needs OPENAI_API_KEY")

    def test_a_dead_provider_is_a_clear_502(self, start: Start) -> None:
        server = start(operator(OPENAI_BASE_URL=dead_url()))
        answer = call(server, "POST", PING, {"prompt": SEED_PROMPT})
        body = answer.json()
        assert (answer.status_code, body["error"], body["kind"], body["model"]) == \
            (502, "provider_error", "connection", "dev")
        assert body["message"].startswith("openai: connection failed")
        assert "check OPENAI_BASE_URL" in body["message"]
        assert "Traceback" not in answer.text
        assert server.engine.models.live["dev"].breaker.failures == 0  # turns unaffected

    def test_a_failing_provider_is_tried_once(self, start: Start, llm: FakeLLMServer) -> None:
        llm.enqueue(FakeReply.server_error(500))
        answer = call(start(operator(**llm.env())), "POST", PING, {"prompt": "hi"})
        assert (answer.status_code, answer.json()["kind"]) == (502, "server")
        assert len(llm.requests) == 1

    @pytest.mark.parametrize("body, problem", [
        ({"prompt": "hi", "model": "chef"}, "'chef' is not a model of this service "
                                            "(its models: dev, tester)"),
        ({"prompt": ""}, "prompt: String should have at least 1 character"),
        ({"prompt": "x" * 2001}, "prompt: String should have at most 2000 characters"),
    ])
    def test_a_bad_request_is_422(self, start: Start, body: dict[str, str],
                                  problem: str) -> None:
        answer = call(start(operator()), "POST", PING, body)
        assert (answer.status_code, answer.json()["error"]) == (422, "invalid_request")
        assert problem in answer.json()["message"]


class TestCommandRunsOneAllowListedCommand:
    def test_an_allowed_command_runs_in_the_workspace(self, start: Start,
                                                      workspace: Path) -> None:
        server = start(operator(workspace, "echo,python -m pytest"))
        answer = call(server, "POST", COMMAND, {"command": "echo 'hello there'"})
        assert answer.status_code == 200
        assert {k: v for k, v in answer.json().items() if k != "seconds"} == \
            {"command": "echo 'hello there'", "exit_code": 0, "output": "hello there\n",
             "timed_out": False}
        tests = call(server, "POST", COMMAND, {"command": "python -m pytest -q"}).json()
        assert tests["exit_code"] == 1 and "1 failed" in tests["output"]

    def test_the_output_is_capped_at_its_end(self, start: Start, workspace: Path) -> None:
        answer = call(start(operator(workspace, "seq")), "POST", COMMAND,
                      {"command": "seq 1 5000"})
        output = answer.json()["output"]
        assert len(output) == COMMAND_OUTPUT_CHARS and output.endswith("4999\n5000\n")

    @pytest.mark.parametrize("command, reason", [
        ("ls", "`ls` is not an allowed command (allowed: `echo`)"),
        ("rm -rf .", "`rm -rf .` is not an allowed command"),
        ("echo hi; touch pwned", "holds the shell operator(s) ;"),
        ("echo hi | tee pwned", "holds the shell operator(s) |"),
        ("echo hi && touch pwned", "holds the shell operator(s) &"),
        ("echo hi > pwned", "holds the shell operator(s) >"),
        ("echo $(touch pwned)", "holds the shell operator(s) $"),
        ("echo `touch pwned`", "holds the shell operator(s) `"),
        ("echo 'a;b'", "holds the shell operator(s) ;"),
    ])
    def test_a_refused_command_is_403_and_starts_nothing(
            self, start: Start, workspace: Path, command: str, reason: str) -> None:
        answer = call(start(operator(workspace, "echo")), "POST", COMMAND,
                      {"command": command})
        assert (answer.status_code, answer.json()["error"]) == (403, "command_refused")
        assert reason in answer.json()["message"]
        assert not (workspace / "pwned").exists() and (workspace / "calc").is_dir()

    def test_an_unclosed_quote_is_422(self, start: Start, workspace: Path) -> None:
        answer = call(start(operator(workspace, "echo")), "POST", COMMAND,
                      {"command": "echo 'hi"})
        assert answer.status_code == 422
        assert answer.json()["message"] == \
            "command: cannot split it into words (No closing quotation)"


class TestAuthIsTheSameAsForRuns:
    @pytest.mark.parametrize("method, path, body", ROUTES)
    def test_no_key_or_a_wrong_key_is_refused_as_for_runs(
            self, start: Start, workspace: Path, method: str, path: str,
            body: Any) -> None:
        server = start(operator(workspace, "echo"))
        runs = call(server, "GET", "/v1/runs?session_id=s1", key=None)
        assert runs.status_code == 401
        for key in (None, KEY_B):
            answer = call(server, method, path, body, key=key)
            assert (answer.status_code, answer.json()) == (401, runs.json()), (path, key)
        assert call(server, method, path, body).status_code == 200

    def test_a_cross_site_request_runs_no_command(self, start: Start,
                                                  workspace: Path) -> None:
        server = start(operator(workspace, "touch"))
        answer = call(server, "POST", COMMAND, {"command": "touch pwned"},
                      **{"Sec-Fetch-Site": "cross-site"})
        assert answer.status_code == 403
        assert not (workspace / "pwned").exists()

    @pytest.mark.parametrize("method, path, body", ROUTES)
    async def test_without_keys_only_this_machine_is_answered(
            self, devloop: CompiledService, workspace: Path, method: str, path: str,
            body: Any) -> None:
        env = {k: v for k, v in operator(workspace, "echo").items() if k != "FLOWCTL_API_KEYS"}
        settings = load_settings(env)
        app = create_app(Engine(devloop, store=MemoryStore(), settings=settings),
                         settings=settings)
        for ip, status in ((REMOTE, 403), ("127.0.0.1", 200)):
            transport = httpx.ASGITransport(app=app, client=(ip, 50000))
            async with httpx.AsyncClient(transport=transport,
                                         base_url="http://127.0.0.1") as client:
                answer = await client.request(method, path, json=body)
            assert answer.status_code == status, (ip, path, answer.text)


class TestServedByFlowctl:
    def test_the_operators_options_reach_the_routes(self, workspace: Path) -> None:
        server = Serve(DEVLOOP, "--store", "memory://", "--workspace-root", str(workspace),
                       "--allow-command", "echo", env={"FLOWCTL_API_KEYS": KEY_A})
        try:
            server.wait_ready()
            seen = call(server, "GET", OVERVIEW).json()
            assert (seen["workspace_root"], seen["allowed_commands"]) == \
                (os.path.realpath(workspace), ["echo"])
            assert call(server, "POST", COMMAND, {"command": "echo ok"}).json()["output"] \
                == "ok\n"
            refused = call(server, "POST", COMMAND, {"command": "python -m pytest -q"})
            assert refused.status_code == 403
            assert call(server, "GET", HEALTH, key=None).status_code == 401
        finally:
            server.stop()
