"""Flows compiled ahead of time (``flowctl build``, the build ``serve`` keeps): a built flow
answers every conversation test with the same events as the flow compiled from its YAML,
and a build is refused, rebuilt or kept exactly when it should be."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.compiler import artefact, compile_file
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.nlu.intents import _trained, model_of
from engine.runtime.calls.actions import ActionStub
from engine.runtime.engine import Engine
from engine.runtime.values.events import wire
from engine.runtime.values.session import SessionState
from engine.store import MemoryStore
from engine.testing.evaluate import load_eval, run_eval
from engine.testing.spec import load_tests

ROOT = Path(__file__).resolve().parents[1]
TEST_FILES = sorted(p for p in (ROOT / "flows").glob("*.test.yaml")
                    if "app:" not in p.read_text(encoding="utf-8").split("conversations:")[0])
VOLATILE = frozenset({"turn_id", "elapsed_ms", "total_elapsed_ms", "at", "started_at",
                      "seconds", "ttft_ms", "first_token_ms", "transaction_id"})


def steady(value: Any) -> Any:
    """An event's payload without what differs between two runs of the same turn (ids,
    times)."""
    if isinstance(value, dict):
        return {k: steady(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [steady(v) for v in value]
    return value


async def events_of(service: CompiledService, test_file: Path) -> list[Any]:
    spec, _, _ = load_tests(test_file)
    clock = dt.datetime.combine(spec.today, dt.time(9, 0)).astimezone()
    out: list[Any] = []
    for c, conversation in enumerate(spec.conversations):
        store = MemoryStore()
        engine = Engine(service, store=store, settings=load_settings(spec.env),
                        clock=lambda: clock,
                        stubs={name: ActionStub(stub.result, stub.error)
                               for name, stub in conversation.stubs.items()})
        if conversation.slots:
            await store.commit(f"c{c}", SessionState(slots=dict(conversation.slots)).to_json(),
                               expected_version=0)
        try:
            for turn in conversation.turns:
                async for event in engine.turn(f"c{c}", turn.user, context=conversation.context):
                    out.append(steady(json.loads(json.dumps(wire(event), default=str))))
        finally:
            await engine.aclose()
    return out


@pytest.mark.parametrize("test_file", TEST_FILES, ids=lambda p: p.name)
async def test_a_built_flow_answers_every_conversation_test_alike(test_file: Path,
                                                                  tmp_path: Path) -> None:
    if "workspace:" in test_file.read_text(encoding="utf-8"):
        pytest.skip("a workspace fixture: the runner copies it per conversation")
    _, _, flow = load_tests(test_file)
    built = artefact.build(flow, tmp_path / "flow.flowc")
    header, loaded = artefact.read(built)  # a build through its file, as serve loads it
    assert header.flow == str(flow.resolve())
    assert await events_of(loaded, test_file) == await events_of(compile_file(flow), test_file)


@pytest.mark.parametrize("eval_file", sorted((ROOT / "flows").glob("*.eval.yaml")),
                         ids=lambda p: p.name)
async def test_a_built_flow_reads_every_eval_case_alike(eval_file: Path, tmp_path: Path) -> None:
    _, _, flow = load_eval(eval_file)
    built = artefact.read(artefact.build(flow, tmp_path / "flow.flowc"))[1]
    as_built, as_compiled = await run_eval(eval_file, compiled=built), await run_eval(eval_file)
    assert len(as_built.results) == len(as_compiled.results) > 0
    assert [(r.reading, r.problems, r.harmful) for r in as_built.results] == \
        [(r.reading, r.problems, r.harmful) for r in as_compiled.results]


def flow_dir(tmp_path: Path) -> Path:
    """transfer.yaml in ``tmp_path/flows``, its prompts in ``tmp_path/prompts``."""
    (tmp_path / "flows").mkdir()
    shutil.copy(ROOT / "flows" / "transfer.yaml", tmp_path / "flows" / "transfer.yaml")
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")
    return tmp_path / "flows" / "transfer.yaml"


def kept(flow: Path) -> list[Path]:
    return sorted((flow.parent / ".flowctl" / "build").glob("*.flowc"))


def test_serve_keeps_one_build_per_flow_and_builds_anew_on_any_edit(tmp_path: Path) -> None:
    flow = flow_dir(tmp_path)
    assert artefact.prebuilt(flow, {}) is None  # nothing built yet
    artefact.load(flow, {})
    first = kept(flow)
    assert len(first) == 1 and artefact.prebuilt(flow, {}) is not None
    (flow.parent / "notes.md").write_text("a file beside the flow", encoding="utf-8")
    assert artefact.prebuilt(flow, {}) is None  # anything the compile could read changed
    artefact.load(flow, {})
    assert len(kept(flow)) == 1 and kept(flow) != first  # the old build is gone
    chat = tmp_path / "prompts" / "chat.j2"  # the prompts/ above the flow's directory
    chat.write_text(chat.read_text(encoding="utf-8") + "\nBe brief.", encoding="utf-8")
    assert artefact.prebuilt(flow, {}) is None
    assert "Be brief." in artefact.load(flow, {}).prompts["chat"].source


def test_nothing_is_kept_when_the_cache_is_off(tmp_path: Path) -> None:
    flow = flow_dir(tmp_path)
    artefact.load(flow, {"FLOWCTL_BUILD_CACHE": "off"})
    assert kept(flow) == []


def test_a_damaged_kept_build_is_compiled_again(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    flow = flow_dir(tmp_path)
    artefact.load(flow, {})
    [build] = kept(flow)
    build.write_bytes(build.read_bytes()[:-500])  # cut short, as a full disk leaves it
    assert artefact.prebuilt(flow, {}) is None
    assert "cannot be loaded" in caplog.text
    assert artefact.load(flow, {}).flows.keys() >= {"transfer"}
    assert artefact.prebuilt(flow, {}) is not None  # written whole again


@pytest.mark.parametrize("content, says", [
    (b"service: not a build\n", "not a flowctl build"),
    (artefact.MAGIC + b"{not json\n", "its header is damaged"),
    (artefact.MAGIC + b'{"flow": "f.yaml", "key": "", "engine": "0000"}\n',
     "built by another version of flowctl: run `flowctl build f.yaml` again"),
])
def test_what_is_no_build_of_this_engine_is_refused_in_one_line(
        tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "x.flowc"
    path.write_bytes(content)
    with pytest.raises(artefact.ArtefactError, match="^" + str(path)) as caught:
        artefact.read(path)
    assert says in str(caught.value)


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_flowctl_build_writes_what_serve_and_chat_start_from(tmp_path: Path) -> None:
    flow = flow_dir(tmp_path)
    done = cli("build", str(flow), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    built = flow.with_suffix(".flowc")
    assert f"-> {built}" in done.stdout
    assert artefact.read(built)[1].flows.keys() >= {"transfer"}
    flow.write_text("service: [broken", encoding="utf-8")  # the build no longer needs it
    assert artefact.read(built)[1].flows.keys() >= {"transfer"}


def test_flowctl_build_of_a_broken_flow_prints_its_findings(tmp_path: Path) -> None:
    flow = tmp_path / "broken.yaml"
    flow.write_text("service: x\nversion: '1'\n", encoding="utf-8")
    done = cli("build", str(flow), cwd=tmp_path)
    assert done.returncode == 2
    assert f"{flow}:" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "broken.flowc").exists()


def test_serve_refuses_a_build_of_another_engine_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "old.flowc"
    path.write_bytes(artefact.MAGIC + b'{"flow": "f.yaml", "key": "", "engine": "0000"}\n')
    done = cli("serve", str(path), "--port", "0", cwd=tmp_path)
    assert done.returncode != 0
    assert "built by another version of flowctl" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_build_whose_flow_changed_since_still_serves_as_built_and_says_so(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    flow = flow_dir(tmp_path)
    built = artefact.build(flow, tmp_path / "shipped.flowc")
    assert artefact.prebuilt(built, {}) is not None and "changed" not in caplog.text
    flow.write_text(flow.read_text(encoding="utf-8").replace("transfer", "transfer2", 1),
                    encoding="utf-8")
    service = artefact.prebuilt(built, {})
    assert service is not None and "transfer" in service.flows  # as built
    assert f"{built} was built before {flow.resolve()} (or a file beside it) changed" \
        in caplog.text


@pytest.mark.parametrize("name", ["transfer", "cards", "commerce"])
def test_a_build_carries_the_intent_model_a_server_would_train(name: str, tmp_path: Path) -> None:
    """Loading a build gives its flow's rules the model trained when it was built, equal
    to the one training them now would give (so a server starts without training)."""
    flow = ROOT / "flows" / f"{name}.yaml"
    service = artefact.read(artefact.build(flow, tmp_path / "f.flowc"))[1]
    assert model_of(service.intents) == _trained.__wrapped__(service.intents)
    assert model_of(service.intents) is not None


def test_flowctl_serve_answers_from_a_shipped_build_without_its_flow(tmp_path: Path) -> None:
    from tests.server.processes import Serve

    flow = flow_dir(tmp_path)
    built = artefact.build(flow, tmp_path / "shipped.flowc")
    shutil.rmtree(flow.parent)  # only the build is shipped
    server = Serve(built, "--store", "memory://", cwd=tmp_path).wait_ready()
    try:
        answer = httpx.post(f"{server.url}/v1/agent/chat", timeout=20,
                            json={"session_id": "s-1", "message": "엄마한테 1만원 보내줘"})
    finally:
        server.stop()
    assert answer.status_code == 200, answer.text
    assert answer.json()["interaction"]["message"] == "엄마에게 1만원을 이체할까요?"


def test_flowctl_build_of_an_app_file_says_what_to_build(tmp_path: Path) -> None:
    done = cli("build", str(ROOT / "flows" / "bank.yaml"), cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "an app file" in done.stderr and "flowctl build" in done.stderr
