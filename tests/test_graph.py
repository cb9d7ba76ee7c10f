"""`flowctl graph`: the stage machine as Mermaid stateDiagram-v2 (GitHub renders it) or dot."""

from __future__ import annotations

import pytest

from cli import main
from engine.authoring.diagram import dot, mermaid
from engine.dsl import load_service
from tests.conftest import ROOT

TRANSFER = ROOT / "flows" / "transfer.yaml"


def test_one_flow_as_mermaid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(TRANSFER), "--flow", "transfer"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "stateDiagram-v2"
    assert "    [*] --> INIT" in lines
    assert "    READY --> CONFIRMED: confirm" in lines  # the only way to execute
    assert "    FILLING --> CHECKING: update [not missing]" in lines  # guards on edges
    assert "    INIT --> UNSUPPORTED: update [filling_turns > max_fill_turns]" in lines
    assert "    CONFIRMED --> CANCELLED: cancel" in lines  # `*` expanded
    assert "    EXECUTED --> CANCELLED: cancel" not in lines  # ... to non-terminal stages
    assert "    EXECUTED --> [*]" in lines  # terminal stages end in [*] and are styled
    assert "    class EXECUTED, FAILED, CANCELLED, NOT_ENOUGH, UNSUPPORTED terminal" in lines
    assert "    class READY confirm" in lines


def test_every_flow_by_default_as_composite_states(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(TRANSFER)]) == 0
    out = capsys.readouterr().out
    for flow in ("chat", "history", "transfer"):
        assert f'    state "{flow}" as {flow} {{' in out
    assert '        state "INIT" as transfer_INIT' in out
    assert "        transfer_READY --> transfer_CONFIRMED: confirm" in out


def test_a_semicolon_cannot_end_a_mermaid_statement() -> None:
    spec, _ = load_service(TRANSFER)
    flow = spec.flows["transfer"]
    t = flow.transitions[1].model_copy(update={"when": "filling_turns > 3; x"})
    changed = spec.model_copy(update={"flows": {"transfer": flow.model_copy(
        update={"transitions": [t]})}})
    assert ";" not in mermaid(changed, ["transfer"]).split("classDef")[0]


def test_dot(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(TRANSFER), "--format", "dot", "--flow", "transfer"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('digraph "transfer" {')
    assert '"transfer.READY" -> "transfer.CONFIRMED" [label="confirm"];' in out
    assert '"transfer.EXECUTED" [label="EXECUTED", peripheries=2];' in out
    assert out.count("{") == out.count("}")


def test_dot_escapes_quotes_in_guards() -> None:
    spec, _ = load_service(ROOT / "tests" / "lint" / "cases" / "fl070_duplicate_agent_id"
                           / "flow.yaml")
    assert "[label=\"update ['help' in turn.message]\"]" in dot(spec, ["chat"])


def test_unknown_flow_and_invalid_file_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(TRANSFER), "--flow", "nope"]) == 2
    assert "no flow `nope`" in capsys.readouterr().err
    broken = ROOT / "tests" / "broken_flows" / "12_transition_unknown_dest.yaml"
    assert main(["graph", str(broken)]) == 2
