"""The `loop` step over real workspace and command actions: feedback carried from a failed
attempt into the next, the outcome when attempts run out, attempts beyond the turn's
stage-move limit, the JSON repair retry, and the compile errors of loops and actions."""

from __future__ import annotations

import shutil
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.errors import FlowDefinitionError
from engine.lint import lint_paths
from engine.providers.scripted import ScriptedProvider
from engine.runtime.calls.models import ModelPool
from engine.runtime.engine import Engine
from engine.runtime.turn_run import MAX_HOPS
from engine.runtime.values.events import AgentDone, Done, Event, TaskProgress
from engine.store import MemoryStore
from engine.testing.spec import load_tests
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "devloop_ws"
WRONG = {"message": "Swap them.", "changes": [
    {"path": "calc/__init__.py", "content": "def add(a, b):\n    return b - a\n"}]}
RIGHT = {"message": "Add.", "changes": [
    {"path": "calc/__init__.py", "content": "def add(a, b):\n    return a + b\n"}]}


def summary(text: str) -> dict[str, Any]:
    return {"json": {"message": text, "summary": text}}


def devloop(tmp_path: Path, dev: list[Any], tester: list[Any], *,
            root: bool = True) -> tuple[Engine, ScriptedProvider, Path]:
    service = compile_file(ROOT / "flows" / "devloop.yaml")
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    settings = load_settings({})
    if root:
        settings = replace(settings, workspace_root=str(ws), allowed_commands=("python -m pytest",),
                           command_programs={"python": sys.executable})
    dev_model = ScriptedProvider(dev)
    models = ModelPool(service, {}, providers={"dev": dev_model,
                                               "tester": ScriptedProvider(tester)})
    return Engine(service, store=MemoryStore(), settings=settings, models=models), dev_model, ws


async def turn(engine: Engine, message: str) -> tuple[list[Event], Done]:
    events = [e async for e in engine.turn("s1", message)]
    done = events[-1]
    assert isinstance(done, Done)
    return events, done


async def test_a_failed_attempt_s_feedback_reaches_the_next_attempt(tmp_path: Path) -> None:
    engine, dev, ws = devloop(tmp_path, [{"json": WRONG}, {"json": RIGHT}],
                              [summary("add(2, 3) returned 1: reversed."), summary("1 passed.")])
    events, done = await turn(engine, "fix the failing test")
    assert done.state_snapshot["stage"] == "PASSED"
    assert (ws / "calc" / "__init__.py").read_text() == RIGHT["changes"][0]["content"]
    first, second = (r.system for r in dev.requests)
    assert "Feedback from the previous attempt" not in first
    assert "def add(a: int, b: int)" in first  # the read action's files reach the prompt
    for part in ("Attempt 1 failed.", "Exit code: 1", "add(2, 3) returned 1: reversed.",
                 "assert 1 == 5"):  # the tester's summary and pytest's own output tail
        assert part in second
    progress = [(e.index, e.total) for e in events if isinstance(e, TaskProgress)]
    assert progress == [(1, 3), (2, 3)]
    runs = [e.result for e in events if isinstance(e, AgentDone) and e.agent == "run_tests"]
    assert [r["exit_code"] for r in runs] == [1, 0]  # type: ignore[index]


async def test_an_exhausted_loop_ends_failed_with_the_last_summary(tmp_path: Path) -> None:
    engine, dev, _ = devloop(tmp_path, [{"json": WRONG, "repeat": True}],
                             [{**summary("still reversed"), "repeat": True}])
    _, done = await turn(engine, "fix the failing test in 2 attempts")
    assert done.state_snapshot["stage"] == "FAILED" and len(dev.requests) == 2
    assert "still fail after 2 attempt(s). Last summary: Attempt 2 failed." in done.message
    assert "still reversed" in done.message


async def test_without_an_operator_root_every_attempt_fails_saying_so(tmp_path: Path) -> None:
    engine, dev, ws = devloop(tmp_path, [], [], root=False)
    _, done = await turn(engine, "fix the failing test in 1 attempt")
    assert done.state_snapshot["stage"] == "FAILED" and dev.requests == []
    assert "read_code: no workspace root is configured" in done.message


async def test_a_change_out_of_the_root_fails_the_attempt_only(tmp_path: Path) -> None:
    escape = {"message": "x", "changes": [{"path": "../outside.txt", "content": "x"}]}
    engine, dev, ws = devloop(tmp_path, [{"json": escape}, {"json": RIGHT}],
                              [summary("1 passed.")])
    _, done = await turn(engine, "fix the failing test")
    assert done.state_snapshot["stage"] == "PASSED"
    assert not (tmp_path / "outside.txt").exists()
    assert "apply_changes: change 1: path `../outside.txt` has `..`" in dev.requests[1].system


async def test_an_unusable_json_reply_is_repaired_once(tmp_path: Path) -> None:
    engine, dev, _ = devloop(tmp_path, ["Sure! I would swap the operands.", {"json": RIGHT}],
                             [summary("1 passed.")])
    _, done = await turn(engine, "fix the failing test in 1 attempt")
    assert done.state_snapshot["stage"] == "PASSED" and len(dev.requests) == 2
    assert "Your previous reply could not be used: no JSON object found" in dev.requests[1].system
    assert '"required":["message","changes"]' in dev.requests[1].system


COUNTER = """\
service: counter
locale: en
default_flow: count
slots:
  n: {type: integer}
flows:
  count:
    slots: [n]
    initial: RUN
    stages:
      RUN:
        steps:
          - loop:
              max_attempts: ATTEMPTS
              steps: [{set: {n: "(slots.n or 0) + 1"}}]
              until: "slots.n >= 40"
              feedback: "n is {{ slots.n }}"
              ok: counted
              exhausted: gave_up
      COUNTED: {terminal: true, say: counted}
      GAVE_UP: {terminal: true, say: gave_up}
    transitions:
      - {trigger: counted, source: RUN, dest: COUNTED}
      - {trigger: gave_up, source: RUN, dest: GAVE_UP}
messages:
  counted: "counted in {{ loop.attempts }} attempts"
  gave_up: "gave up after {{ loop.attempts }}: {{ loop.summary }}"
"""


@pytest.mark.parametrize(("attempts", "said"), [
    ("40", "counted in 40 attempts"),
    ("39", "gave up after 39: n is 39"),
    ("500 * 2", "counted in 40 attempts"),  # an expression is capped at run time at 50
    ("1000", "greater than the maximum of 50"),  # a constant is refused when compiled
])
async def test_attempts_are_not_capped_by_the_stage_move_limit(tmp_path: Path, attempts: str,
                                                              said: str) -> None:
    assert MAX_HOPS < 40
    path = tmp_path / "counter.yaml"
    path.write_text(COUNTER.replace("ATTEMPTS", attempts))
    if said.startswith("greater"):
        with pytest.raises(FlowDefinitionError, match=said):
            compile_file(path)
        return
    engine = Engine(compile_file(path), store=MemoryStore())
    _, done = await turn(engine, "go")
    assert done.message == said


BAD = {
    "FL115": ("actions: {t: {command: [python, '-c', 'x; y']}}", "holds the shell operator `;`"),
    "FL116": ("actions: {r: {workspace: read, files: ['../*.py']}}", "has `..`"),
    "FL117": ("steps: [{trigger: done}]", "a loop body cannot `trigger`"),
    "FL119": ("steps: [{loop: {max_attempts: 2, steps: [{say: hi}]}}]", "loops do not nest"),
}


def bad_flow(tmp_path: Path, code: str) -> Path:
    extra, _ = BAD[code]
    actions = extra if extra.startswith("actions") else "actions: {}"
    body = extra.removeprefix("steps: ") if extra.startswith("steps") else "[{say: hi}]"
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent(f"""\
        service: bad
        locale: en
        default_flow: f
        {actions}
        flows:
          f:
            initial: A
            stages:
              A: {{steps: [{{loop: {{max_attempts: 2, steps: {body}, ok: done}}}}]}}
              B: {{terminal: true}}
            transitions: [{{trigger: done, source: A, dest: B}}]
        messages: {{hi: hi}}
        """))
    return path


@pytest.mark.parametrize("code", sorted(BAD))
def test_loops_and_local_actions_are_checked_when_compiled(tmp_path: Path, code: str) -> None:
    with pytest.raises(FlowDefinitionError) as caught:
        compile_file(bad_flow(tmp_path, code))
    found = [(f.code, f.message) for f in caught.value.findings]
    assert any(c == code and BAD[code][1] in m for c, m in found), found


@pytest.mark.parametrize("yaml_text", [
    "settings: {workspace_root: /}",
    "actions: {r: {workspace: read, files: ['*'], root: /}}",
    "actions: {t: {command: [ls], allow: [ls]}}",
    "actions: {t: {command: [ls], env: [OPENAI_API_KEY]}}",
])
def test_a_flow_file_cannot_name_a_root_an_allow_list_or_secrets(tmp_path: Path,
                                                                  yaml_text: str) -> None:
    path = tmp_path / "f.yaml"
    path.write_text(f"service: f\ndefault_flow: f\n{yaml_text}\n"
                    "flows: {f: {initial: A, stages: {A: {terminal: true}}}}\n")
    findings = lint_paths([path]).findings
    assert findings and all(f.severity == "error" for f in findings), findings


@pytest.mark.parametrize("name", ["FLOWCTL_WORKSPACE_ROOT", "FLOWCTL_ALLOW_COMMANDS",
                                  "FLOWCTL_COMMAND_ENV"])
def test_a_test_file_cannot_set_the_operator_s_variables(tmp_path: Path, name: str) -> None:
    (tmp_path / "x.yaml").write_text("")
    path = tmp_path / "x.test.yaml"
    path.write_text(f"env: {{{name}: /}}\nconversations: []\n")
    with pytest.raises(FlowDefinitionError, match="the operator's to set"):
        load_tests(path)


@pytest.mark.parametrize(("options", "status", "stage", "said"), [
    (["--allow-command", "python -m pytest"], "success", "PASSED", "after 2 attempt(s)"),
    ([], "failed", "FAILED", "run_tests: no command is allowed here"),
])
def test_flowctl_serve_takes_the_root_and_allow_list_from_its_operator(
        tmp_path: Path, options: list[str], status: str, stage: str, said: str) -> None:
    import os

    from tests.runs.test_runs_http import chat, sse
    from tests.server.processes import Serve

    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    replies = ROOT / "tests" / "fixtures"
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "FLOWCTL_MODEL_DEV": f"scripted:{replies / 'devloop.serve.dev.replies.yaml'}",
           "FLOWCTL_MODEL_TESTER": f"scripted:{replies / 'devloop.serve.tester.replies.yaml'}"}
    server = Serve(ROOT / "flows" / "devloop.yaml", "--store", "memory://",
                   "--workspace-root", str(ws), *options, env=env)
    try:
        server.wait_ready()
        started = chat(server, "s1", "fix the failing test")  # the loop runs as a run
        assert started["state_snapshot"]["stage"] == "WORKING", started
        frames = sse(server, started["state_snapshot"]["meta"]["run"]["id"])
    finally:
        server.stop()
    done = next(data for _, event, data in frames if event == "DONE")
    final = frames[-1][2]
    assert done["state_snapshot"]["stage"] == stage and said in done["message"], done
    assert final["status"] == status and said in final["summary"], final
    assert "return a + b" in (ws / "calc" / "__init__.py").read_text()  # applied either way
    # commands run with PYTHONDONTWRITEBYTECODE: no bytecode that a later attempt's change of
    # the same size in the same second would leave stale (that failed attempt 2 at random)
    assert not (ws / "calc" / "__pycache__").exists()
