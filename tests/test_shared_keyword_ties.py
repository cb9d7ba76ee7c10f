"""Intents tied by one keyword they share ("card": a replacement's and a card order's) are
told apart by a value only one of their flows takes ("my card is broken": a replacement's
reason), instead of asking "which one?". Said at a distance — a question, someone else's
card, a contrast — or with nothing either flow takes, the question stays; intents each
named by words of their own ("이어폰 찾아서 추천해줘") are still asked about
(flows/commerce.test.yaml)."""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def cards() -> CompiledService:
    return compile_file(ROOT / "flows" / "cards.yaml")


async def first(cards: CompiledService, message: str) -> tuple[object, str]:
    done = await Engine(cards, store=MemoryStore()).reply("s", message)
    return done.state_snapshot.get("flow"), done.message


@pytest.mark.parametrize("message", ["my card's broken", "card is scratched and bent",
                                     "my card got wet and stopped working",
                                     "card snapped in two, need another"])
async def test_a_value_only_one_tied_flow_takes_picks_it(cards: CompiledService,
                                                         message: str) -> None:
    flow, _ = await first(cards, message)
    assert flow == "verify"  # the replacement calls verification first


@pytest.mark.parametrize("message", ["my card", "my son's card broke",
                                     "my card is cracked but I also want my balance"])
async def test_without_such_a_value_or_at_a_distance_it_asks_which_one(
        cards: CompiledService, message: str) -> None:
    flow, said = await first(cards, message)
    assert flow is None and "Which one do you mean" in said


@pytest.mark.parametrize("message", ["is my card broken?",
                                     "card was damaged once but now I want to track my order"])
async def test_a_question_or_a_value_left_behind_starts_no_replacement(
        cards: CompiledService, message: str) -> None:
    flow, _ = await first(cards, message)
    assert flow != "verify"
