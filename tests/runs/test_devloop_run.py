"""flows/devloop.yaml as a live background run: a real ``flowctl serve`` over a copy of the
shipped sample workspace (``--workspace-root``, ``--allow-command 'python -m pytest'``), its
Dev and Test agents the real openai SDK talking to a wire-compatible server on loopback
(attempt 1's fix is wrong, attempt 2's right). The turn answers at once with the run's id;
the run's log (``GET /v1/runs/{id}/events``) and the playground's Runs panel (headless
Chromium) show each attempt, the diff of the changed file and pytest's output tail with its
exit code while the run goes on (attempt 2's Dev call is held until the test has looked),
then the summary; after a reload the panel replays the whole run. A cancel word mid-run
stops it in CANCELLED, keeping what attempt 1 wrote."""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.conftest import ROOT
from tests.fakes.llm_servers import FakeLLMServer, FakeReply, RecordedRequest
from tests.runs.test_runs_http import chat
from tests.server.processes import Serve

SAMPLE = ROOT / "tests" / "fixtures" / "devloop_ws"
ORIGINAL = (SAMPLE / "calc" / "__init__.py").read_text()
WRONG = ORIGINAL.replace("return a - b", "return b - a")
RIGHT = ORIGINAL.replace("return a - b", "return a + b")
HEAD = ("--- a/calc/__init__.py\n+++ b/calc/__init__.py\n@@ -2,4 +2,4 @@\n \n \n"
        " def add(a: int, b: int) -> int:\n")
DIFFS = [HEAD + "-    return a - b\n+    return b - a\n",  # attempt 1: the operands swapped
         HEAD + "-    return b - a\n+    return a + b\n"]  # attempt 2: from there to the fix
WORKING = "Working on it in the background; each attempt shows in the run's log."
PASSED = "The tests pass after 2 attempt(s). 1 passed."
HELD = 3
"""The LLM request held until the test lets it go: attempt 2's Dev call."""


def reply(**fields: object) -> FakeReply:
    return FakeReply(text=json.dumps(fields))


REPLIES = [
    reply(message="Swap the operands.", changes=[{"path": "calc/__init__.py", "content": WRONG}]),
    reply(message="Still failing.", summary="add(2, 3) returned 1: the operands are reversed."),
    reply(message="Add instead.", changes=[{"path": "calc/__init__.py", "content": RIGHT}]),
    reply(message="All green.", summary="1 passed."),
]


class GatedLLM(FakeLLMServer):
    """The fake server, holding request number ``HELD`` until ``release``."""

    def __init__(self) -> None:
        super().__init__()
        self.held = threading.Event()
        self.gate = threading.Event()

    def _next(self, recorded: RecordedRequest) -> FakeReply | None:
        if len(self.requests) + 1 == HELD:
            self.held.set()
            self.gate.wait(60)  # blocks only this fake server's own thread
        return super()._next(recorded)

    def release(self) -> None:
        self.gate.set()


@pytest.fixture
def devloop(tmp_path: Path) -> Iterator[tuple[Serve, GatedLLM, Path]]:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    llm = GatedLLM().start()
    llm.enqueue(*REPLIES)
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "OPENAI_API_KEY": "sk-local", "OPENAI_BASE_URL": llm.openai_base_url}
    server = Serve(ROOT / "flows" / "devloop.yaml", "--store",
                   f"sqlite:///{tmp_path / 'runs.db'}", "--workspace-root", str(ws),
                   "--allow-command", "python -m pytest", env=env)
    try:
        yield server.wait_ready(), llm, ws
    finally:
        llm.release()
        server.stop()
        llm.stop()


def events(server: Serve, run_id: str) -> Iterator[tuple[str, Any]]:
    """(event, data) of the run's SSE log as each frame arrives, to its end."""
    with httpx.stream("GET", f"{server.url}/v1/runs/{run_id}/events", timeout=60) as response:
        assert response.status_code == 200
        current: dict[str, str] = {}
        for line in response.iter_lines():
            if line:
                field, _, value = line.partition(": ")
                current[field] = value
                continue
            if "event" in current:
                yield current["event"], json.loads(current["data"])
            current = {}


def run_status(server: Serve, run_id: str) -> dict[str, Any]:
    run: dict[str, Any] = httpx.get(f"{server.url}/v1/runs/{run_id}", timeout=5).json()
    return run


def results(log: list[tuple[str, Any]], agent: str) -> list[Any]:
    return [data.get("result") for name, data in log
            if name == "AGENT_DONE" and data["agent"] == agent]


ATTEMPT = [("TASK_PROGRESS", None), ("AGENT_START", "read_code"), ("AGENT_DONE", "read_code"),
           ("AGENT_START", "dev"), ("LLM_DONE", None), ("AGENT_DONE", "dev"),
           ("AGENT_START", "apply_changes"), ("AGENT_DONE", "apply_changes"),
           ("AGENT_START", "run_tests"), ("AGENT_DONE", "run_tests"),
           ("AGENT_START", "tester"), ("LLM_DONE", None), ("AGENT_DONE", "tester")]


def test_the_devloop_runs_in_the_background_and_its_log_shows_every_attempt(
        devloop: tuple[Serve, GatedLLM, Path]) -> None:
    server, llm, ws = devloop
    started = chat(server, "s1", "fix the failing test")
    assert (started["message"], started["state_snapshot"]["stage"]) == (WORKING, "WORKING")
    run_id = started["state_snapshot"]["meta"]["run"]["id"]
    log: list[tuple[str, Any]] = []
    for name, data in events(server, run_id):
        log.append((name, data))
        if name == "AGENT_START" and data["agent"] == "dev" and len(results(log, "dev")) == 1:
            assert llm.held.wait(30)  # attempt 2's Dev call waits: attempt 1 came in live
            assert run_status(server, run_id)["status"] == "running"
            assert [r["exit_code"] for r in results(log, "run_tests")] == [1]
            llm.release()

    shape = [(name, data.get("agent") if isinstance(data, dict) else None)
             for name, data in log if name not in ("LLM_TOKEN", "RUN_STATUS")]
    assert shape == [*ATTEMPT, *ATTEMPT, ("DONE", None)]
    statuses = [data["status"] for name, data in log if name == "RUN_STATUS"]
    assert statuses == ["pending", "running", "success"]
    assert [(d["index"], d["total"]) for n, d in log if n == "TASK_PROGRESS"] == [(1, 3), (2, 3)]
    read = results(log, "read_code")
    assert [[f["path"] for f in r["files"]] for r in read] == [["calc/__init__.py",
                                                                 "check_calc.py"]] * 2
    assert read[1]["files"][0]["content"] == WRONG  # attempt 2 reads attempt 1's change
    assert results(log, "apply_changes") == [
        {"applied": ["calc/__init__.py"], "count": 1,
         "changes": [{"path": "calc/__init__.py", "diff": diff}]} for diff in DIFFS]
    ran = results(log, "run_tests")
    assert [(r["command"], r["exit_code"]) for r in ran] == [("python -m pytest -q", 1),
                                                             ("python -m pytest -q", 0)]
    assert "assert 1 == 5" in ran[0]["output"] and "1 failed" in ran[0]["output"]
    assert "1 passed" in ran[1]["output"]
    done = next(data for name, data in log if name == "DONE")
    assert done["state_snapshot"]["stage"] == "PASSED" and done["message"].endswith(PASSED)
    assert log[-1][1]["summary"] == done["message"] == run_status(server, run_id)["summary"]
    assert (ws / "calc" / "__init__.py").read_text() == RIGHT

    sent = [json.dumps(r.body) for r in llm.requests]
    assert len(sent) == 4 and all(r.path == "/v1/chat/completions" for r in llm.requests)
    assert "Task: fix the failing test" in sent[0] and "Feedback" not in sent[0]
    for request in llm.requests:  # a run's agents answer the request that started it
        assert request.body["messages"][-1] == {"role": "user",
                                                "content": "fix the failing test"}
    for part in ("Attempt 1 failed.", "Exit code: 1", "the operands are reversed",
                 "assert 1 == 5"):  # the feedback: the Test agent's summary and pytest's tail
        assert part in sent[2]


def test_the_runs_panel_shows_the_attempts_live_and_replays_them_after_a_reload(
        page: Page, problems: list[str], devloop: tuple[Serve, GatedLLM, Path]) -> None:
    server, llm, _ = devloop
    page.goto(server.url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    page.locator("#input").fill("fix the failing test")
    page.locator("#input").press("Enter")
    expect(page.locator(".msg.assistant").last).to_have_text(WORKING)
    assert llm.held.wait(30)  # the run is in attempt 2, its Dev call held
    expect(page.locator("#run-status")).to_have_text("running")
    expect(page.locator("#run-events .ev.TASK_PROGRESS .attempt-no")).to_have_text(
        ["attempt 1", "attempt 2"])
    attempt_shown(page, 1, DIFFS[0], exit_code=1, tail="1 failed")
    expect(page.locator("#run-summary")).to_have_text("")
    expect(page.locator("#run-cancel")).to_be_visible()

    llm.release()
    expect(page.locator("#run-status")).to_have_text("success")
    expect(page.locator("#run-summary")).to_contain_text(PASSED)
    attempt_shown(page, 2, DIFFS[1], exit_code=0, tail="1 passed")
    expect(page.locator("#runs .run.success")).to_have_count(1)
    live = page.locator("#run-events .ev").count()

    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#run-summary")).to_contain_text(PASSED)
    expect(page.locator("#run-events .ev")).to_have_count(live)
    for attempt, diff, code, tail in ((1, DIFFS[0], 1, "1 failed"), (2, DIFFS[1], 0, "1 passed")):
        attempt_shown(page, attempt, diff, exit_code=code, tail=tail)
    assert problems == []


def attempt_shown(page: Page, attempt: int, diff: str, *, exit_code: int, tail: str) -> None:
    """The panel shows attempt ``attempt``'s diff (head, removed and added lines) and its
    test command's exit code and output tail."""
    done = page.locator(f'#run-events .ev.AGENT_DONE[data-attempt="{attempt}"]')
    applied = done.filter(has_text="apply_changes")
    expect(applied.locator(".file")).to_have_text("calc/__init__.py")
    expect(applied.locator(".diff .head")).to_have_text(
        ["--- a/calc/__init__.py\n", "+++ b/calc/__init__.py\n"])
    removed, added = (line for line in diff.splitlines() if line.startswith(("+", "-"))
                      and not line.startswith(("---", "+++")))
    expect(applied.locator(".diff .del")).to_have_text(f"{removed}\n")
    expect(applied.locator(".diff .add")).to_have_text(f"{added}\n")
    expect(applied.locator(".diff")).to_have_text(diff)
    tested = done.filter(has_text="run_tests")
    expect(tested.locator(".file")).to_have_text(f"exit code {exit_code}")
    expect(tested.locator(".tail")).to_contain_text(tail)


def test_a_cancel_word_stops_the_devloop_run_where_it_is(
        devloop: tuple[Serve, GatedLLM, Path]) -> None:
    server, llm, ws = devloop
    started = chat(server, "s1", "fix the failing test")
    run_id = started["state_snapshot"]["meta"]["run"]["id"]
    assert llm.held.wait(30)  # attempt 2's Dev call is out
    answer = chat(server, "s1", "cancel")
    assert answer["message"] == "Stopped; the files keep the changes applied so far."
    assert answer["state_snapshot"]["stage"] == "CANCELLED"
    log = list(events(server, run_id))
    assert log[-1][1]["status"] == "cancelled"
    assert [d["index"] for n, d in log if n == "TASK_PROGRESS"] == [1, 2]
    assert run_status(server, run_id)["status"] == "cancelled"
    assert (ws / "calc" / "__init__.py").read_text() == WRONG  # attempt 1's change stays


def start_with(server: Serve, context: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/agent/chat", timeout=10, json={
        "session_id": "s2", "message": "fix the failing test", "context": context})


def test_a_request_chooses_the_runs_files_command_and_attempts_within_what_is_allowed(
        devloop: tuple[Serve, GatedLLM, Path]) -> None:
    """The run's inputs from the request (its `context`): the files to read, the test
    command and the attempts — the files among those the flow allows, the command one the
    operator's allow-list lets run. The run reads them when it runs, after the turn."""
    server, llm, ws = devloop
    llm.reset()
    llm.enqueue(reply(message="Add.", changes=[{"path": "calc/__init__.py", "content": RIGHT}]),
                reply(message="Green.", summary="1 passed."))
    response = start_with(server, {"files": ["calc/__init__.py"], "max_attempts": 1,
                                   "test_command": ["python", "-m", "pytest", "-q",
                                                    "check_calc.py"]})
    assert response.status_code == 200, response.text
    run_id = response.json()["interaction"]["state_snapshot"]["meta"]["run"]["id"]
    log = list(events(server, run_id))
    assert [[f["path"] for f in r["files"]] for r in results(log, "read_code")] == [
        ["calc/__init__.py"]]
    [ran] = results(log, "run_tests")
    assert (ran["command"], ran["exit_code"]) == ("python -m pytest -q check_calc.py", 0)
    assert [(d["index"], d["total"]) for n, d in log if n == "TASK_PROGRESS"] == [(1, 1)]
    assert run_status(server, run_id)["status"] == "success"


@pytest.mark.parametrize(("context", "refused"), [
    ({"files": ["../secrets.txt"]}, "is not among the files this action reads"),
    ({"test_command": ["rm", "-rf", "calc"]}, "is not an allowed command"),
])
def test_a_request_cannot_choose_beyond_what_the_flow_and_operator_allow(
        devloop: tuple[Serve, GatedLLM, Path], context: dict[str, Any], refused: str) -> None:
    server, llm, ws = devloop
    llm.reset()
    response = start_with(server, {**context, "max_attempts": 1})
    run_id = response.json()["interaction"]["state_snapshot"]["meta"]["run"]["id"]
    log = list(events(server, run_id))
    failed = [d for n, d in log if n == "AGENT_DONE" and not d["success"]]
    assert failed and refused in json.dumps(failed[0], ensure_ascii=False)
    assert run_status(server, run_id)["status"] == "failed"
    assert (ws / "calc" / "__init__.py").read_text() == ORIGINAL  # nothing ran, nothing wrote


def test_a_context_the_flow_does_not_declare_is_refused(
        devloop: tuple[Serve, GatedLLM, Path]) -> None:
    server, _, _ = devloop
    response = start_with(server, {"workspace_root": "/"})
    assert response.status_code == 422
    assert "Additional properties are not allowed" in response.text
