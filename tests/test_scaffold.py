"""`flowctl new`: the three service shapes, lint-clean and passing their tests at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml

from cli import main
from engine.testing import run_file
from tests.conftest import ROOT


@pytest.mark.parametrize("shape", ["chat", "intent", "slots"])
def test_a_new_service_passes_lint_strict_and_its_tests(
        shape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flows = tmp_path / "flows"
    assert main(["new", "my_service", "--shape", shape, "--dir", str(flows)]) == 0
    tests = flows / "my_service.test.yaml"
    assert (flows / "my_service.yaml").is_file() and tests.is_file()
    assert (flows / "prompts" / "my_service.j2").is_file()
    suite = yaml.safe_load(tests.read_text(encoding="utf-8"))
    conversations = suite["conversations"]
    assert conversations and all(c["turns"] for c in conversations)
    names = [c["name"] for c in conversations]
    capsys.readouterr()
    assert main(["lint", "--strict", str(flows)]) == 0, capsys.readouterr().out
    assert main(["test", str(flows)]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith(("PASS", "FAIL"))] == [
        f"PASS {tests} :: {name}" for name in names]
    assert out[-1] == f"{len(names)} passed, 0 failed"

    # The same conversations with an expectation no reply can meet on every turn: each turn
    # of each conversation must be run, and fail, for the tests above to mean anything.
    for conversation in conversations:
        for turn in conversation["turns"]:
            turn["not_say"] = ""
    probe = tmp_path / "probe.test.yaml"
    suite["flow"] = "flows/my_service.yaml"
    probe.write_text(yaml.safe_dump(suite, allow_unicode=True), encoding="utf-8")
    results = asyncio.run(run_file(probe))
    ran = [(r.name, m.turn) for r in results for m in r.mismatches if m.field == "not_say"]
    assert ran == [(c["name"], t) for c in conversations for t in range(1, len(c["turns"]) + 1)]


def test_the_flow_names_the_schema_for_editors(tmp_path: Path) -> None:
    assert main(["new", "svc", "--dir", str(tmp_path / "flows")]) == 0
    first = (tmp_path / "flows" / "svc.yaml").read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# yaml-language-server: $schema=")
    schema = (tmp_path / "flows" / first.split("=", 1)[1]).resolve()
    assert schema.name == "flow.schema.json" and schema.is_file()


def test_the_prompt_goes_to_the_projects_prompts_directory(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    assert main(["new", "svc", "--dir", str(tmp_path / "flows")]) == 0
    assert (tmp_path / "prompts" / "svc.j2").is_file()
    assert not (tmp_path / "flows" / "prompts").exists()


def test_existing_files_are_never_overwritten(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    (flows / "svc.test.yaml").write_text("mine\n", encoding="utf-8")
    assert main(["new", "svc", "--dir", str(flows)]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert (flows / "svc.test.yaml").read_text(encoding="utf-8") == "mine\n"
    assert not (flows / "svc.yaml").exists()  # nothing written at all


def test_a_name_must_be_an_identifier(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "2fast", "--dir", str(tmp_path)]) == 2
    assert "not a valid service name" in capsys.readouterr().err


@pytest.mark.parametrize("shape", ["chat", "intent", "slots"])
def test_no_scaffolded_action_points_at_flowctls_own_port(shape: str, tmp_path: Path) -> None:
    """``flowctl serve`` listens on 8000: an action sent there would reach flowctl itself."""
    from engine.compiler import compile_file

    assert main(["new", "svc", "--shape", shape, "--dir", str(tmp_path / "flows")]) == 0
    service = compile_file(tmp_path / "flows" / "svc.yaml")
    urls = [str(action.url.render({"env": {}, "slots": {}}))
            for action in service.actions.values() if action.url is not None]
    assert bool(urls) == (shape == "slots")  # the slots shape submits to a backend
    assert not [url for url in urls if ":8000" in url], urls


def test_the_tests_name_their_schema_for_editors(tmp_path: Path) -> None:
    assert main(["new", "svc", "--dir", str(tmp_path / "flows")]) == 0
    first = (tmp_path / "flows" / "svc.test.yaml").read_text(encoding="utf-8").splitlines()[0]
    schema = (tmp_path / "flows" / first.split("=", 1)[1]).resolve()
    assert schema.name == "test.schema.json" and schema.is_file()


@pytest.mark.parametrize(("pattern", "schema"), [("*.test.yaml", "test.schema.json"),
                                                  ("*.eval.yaml", "eval.schema.json")])
def test_the_shipped_tests_and_eval_sets_fit_their_schemas(pattern: str, schema: str) -> None:
    import json

    import jsonschema

    checker = jsonschema.Draft202012Validator(
        json.loads((ROOT / "schemas" / schema).read_text(encoding="utf-8")))
    files = sorted((ROOT / "flows").glob(pattern))
    assert files
    for path in files:
        # as an editor's YAML server reads it: a date is a string
        data = json.loads(json.dumps(yaml.load(path.read_text(encoding="utf-8"),
                                               Loader=yaml.CSafeLoader), default=str))
        problems = [e.message for e in checker.iter_errors(data)]
        assert problems == [], path
    bad = {"conversations": [{"name": "x", "turns": [{"usr": "hi"}]}]} \
        if schema == "test.schema.json" else {"cases": [{"message": "hi", "expect": {"x": 1}}]}
    assert list(checker.iter_errors(bad))  # a misspelt key is refused
