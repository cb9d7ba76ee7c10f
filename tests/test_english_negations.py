"""A value said away in English — "not X", "anything but X", "no X", "don't want X" — is
not the value, while a yes/no value keeps its own negation ("without extra cheese" is
false); two values joined by "or" or "이나", two names joined by "랑" or "and", laughter and
"wait a moment" are no answer; "the one" is no number."""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.nlu.numbers import find_numbers
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT

ASK_SIZE = "I'd like to order a pizza"


@pytest.fixture(scope="module")
def pizza() -> CompiledService:
    return compile_file(ROOT / "flows" / "pizza.yaml")


async def slots_after(service: CompiledService, first: str, message: str) -> dict[str, object]:
    engine = Engine(service, store=MemoryStore())
    await engine.reply("s", first)
    done = await engine.reply("s", message)
    assert "error" not in done.trace
    return dict(done.state_snapshot["slots"] or {})


@pytest.mark.parametrize("message", [
    "not medium", "anything but small", "no large please", "I don't want a small one",
    "definitely not the big one", "except medium", "never small, it's tiny",
])
async def test_a_size_said_away_is_no_size(pizza: CompiledService, message: str) -> None:
    assert (await slots_after(pizza, ASK_SIZE, message)).get("size") is None


@pytest.mark.parametrize(("message", "size"), [
    ("medium, no rush", "medium"), ("large. no extra cheese", "large"), ("small please", "small"),
])
async def test_a_negation_in_another_clause_leaves_the_size(pizza: CompiledService,
                                                            message: str, size: str) -> None:
    assert (await slots_after(pizza, ASK_SIZE, message))["size"] == size


async def test_a_yes_no_value_keeps_its_own_negation(pizza: CompiledService) -> None:
    engine = Engine(pizza, store=MemoryStore())
    done = await engine.reply("s", "a medium pizza without extra cheese")
    assert done.state_snapshot["slots"]["cheese"] is False


@pytest.mark.parametrize("message", ["small or medium", "either large or medium I guess",
                                     "bigger than small"])
async def test_alternatives_and_comparisons_are_no_size(pizza: CompiledService,
                                                        message: str) -> None:
    assert (await slots_after(pizza, ASK_SIZE, message)).get("size") is None


@pytest.mark.parametrize("message", ["엄마랑 아빠", "민수하고 지수", "Jenny and Tom",
                                     "ㅋㅋ 잠깐만요", "ㅎㅎ", "잠시만"])
async def test_two_names_laughter_or_waiting_is_no_recipient(transfer: CompiledService,
                                                             message: str) -> None:
    engine = Engine(transfer, store=MemoryStore())
    await engine.reply("s", "송금 좀 하려고요")
    done = await engine.reply("s", message)
    assert done.state_snapshot["slots"]["target"] is None


@pytest.mark.parametrize("text", ["the one in my cart", "that one", "which one is cheaper"])
def test_the_one_is_no_number(text: str) -> None:
    assert find_numbers(text) == []
