"""A value YAML cut at a comma inside ``{...}`` is named as such, not only as an unknown key:
``{say: A checkup costs 30,000 won}`` reads as the keys ``say`` and ``000 won``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.lint.run import lint_paths
from tests.conftest import ROOT

CUT = "looks like the rest of a value cut at a comma"


@pytest.fixture
def pizza(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")
    flow = tmp_path / "flows" / "pizza.yaml"
    flow.parent.mkdir()
    shutil.copy(ROOT / "flows" / "pizza.yaml", flow)
    return flow


@pytest.mark.parametrize(("turn", "tail"), [
    ("{user: I want a large pizza, for Kim, say: Extra cheese?}", "for Kim"),
    ("{user: a small one, say: It costs 12,000 won}", "000 won"),
])
def test_a_test_turn_cut_at_a_comma_says_so(pizza: Path, turn: str, tail: str) -> None:
    tests = pizza.with_name("pizza.test.yaml")
    tests.write_text(f"flow: pizza.yaml\nconversations:\n  - name: cut\n    turns:\n"
                     f"      - {turn}\n", encoding="utf-8")
    found = [f for f in lint_paths([tests], jobs=1).findings if f.code == "FL090"]
    assert [f.message for f in found] == [f"unknown key `{tail}`"]
    assert found[0].hint is not None and CUT in found[0].hint


def test_a_flow_value_cut_at_a_comma_says_so(pizza: Path) -> None:
    text = pizza.read_text(encoding="utf-8")
    pizza.write_text(text.replace("CHAT: {say: chat}", "CHAT: {say: chat, reprompt: Hi, there}"),
                     encoding="utf-8")
    found = [f for f in lint_paths([pizza], jobs=1).findings if f.code == "FL010"]
    cut = sorted(f.message.split("`")[1] for f in found if f.hint and CUT in f.hint)
    assert cut == ["there"], [f.message for f in found]


def test_a_misspelt_key_is_still_a_misspelt_key(pizza: Path) -> None:
    pizza.write_text(pizza.read_text(encoding="utf-8").replace(
        "CHAT: {say: chat}", "CHAT: {sya: chat}"), encoding="utf-8")
    (finding,) = [f for f in lint_paths([pizza], jobs=1).findings if f.code == "FL010"]
    assert finding.hint is not None and CUT not in finding.hint and "say" in finding.hint
