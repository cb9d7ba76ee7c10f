"""The understanding call's prompt, rendered for every shipped flow: Hangul as written (no
`\\u` escapes), one rule per line, and the turn's state last, so that consecutive turns at a
stable stage share their whole static prefix byte for byte (a server's prompt cache reuses it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.app.kind import is_app_file
from engine.compiler import compile_file
from engine.runtime.understanding.llm import understanding_request
from tests.conftest import ROOT

FLOWS = sorted(p for p in (ROOT / "flows").glob("*.yaml")
               if not p.name.endswith((".test.yaml", ".eval.yaml")) and not is_app_file(p))


def prompts(path: Path, values: dict[str, object]) -> list[str]:
    service = compile_file(path)
    routed = [service.flows[f] for f in dict.fromkeys(service.routes.values())]
    out = [understanding_request(service, routed, current=None, stage=None, slots={},
                                 message="안녕", today="2026-11-22", raw_history=[]).system]
    for flow in routed:
        if flow.slots:
            slots = {flow.slots[0]: values.get("first")}
            out.append(understanding_request(
                service, [flow], current=flow, stage="FILLING", slots=slots, message="음",
                today="2026-11-22", raw_history=[]).system)
    return out


@pytest.mark.parametrize("path", FLOWS, ids=lambda p: p.name)
def test_the_prompt_reads_as_written_one_rule_a_line_state_last(path: Path) -> None:
    for system in prompts(path, {"first": "엄마"}):
        assert "\\u" not in system
        assert not re.search(r"[.)]- ", system), "two rules run together"
        rules = system[system.index("Rules:"):].splitlines()
        assert all(line.startswith(("- ", "Rules:", "Now:", "The user", "No flow")) or not line
                   for line in rules)
        assert system.rstrip().splitlines()[-1] != ""
        assert system.index("Now:") > system.index("Rules:")


@pytest.mark.parametrize("path", FLOWS, ids=lambda p: p.name)
def test_turns_at_one_stage_share_the_static_prefix(path: Path) -> None:
    first, second = prompts(path, {"first": "엄마"}), prompts(path, {"first": "아빠"})
    for a, b in zip(first, second, strict=True):
        static_a, static_b = a[:a.index("Now:")], b[:b.index("Now:")]
        assert static_a == static_b


@pytest.mark.parametrize("path", FLOWS, ids=lambda p: p.name)
def test_the_request_says_where_the_turns_part_begins(path: Path) -> None:
    """``cache_prefix`` covers exactly the static part, and two turns' prefixes are equal
    byte for byte; the boundary mark itself is never sent."""
    service = compile_file(path)
    for flow in (f for f in service.flows.values() if f.slots):
        made = [understanding_request(service, [flow], current=flow, stage="FILLING",
                                      slots={flow.slots[0]: value}, message=message,
                                      today=today, raw_history=history)
                for value, message, today, history in (
                    ("엄마", "음", "2026-11-22", []),
                    ("아빠", "3만원이요", "2026-11-23", [{"role": "user", "content": "hi"}]))]
        for request in made:
            assert "\ue000" not in request.system
            assert request.cache_prefix == request.system.index("Now:")
        first, second = made
        assert first.system[:first.cache_prefix] == second.system[:second.cache_prefix]
