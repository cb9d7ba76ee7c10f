"""What a second set of pizza conversations written blind found.

- A request said by its values alone, without the intent's keyword ("medium, no extra
  cheese"), where the values are every one the flow requires (two or more) and one flow
  alone takes them all, starts that flow as if the keyword had been said: its confirmation
  still asks. One value alone ("large please"), a question or a hedge is still asked about
  ("Did you mean order a pizza?").
- The pizza flow's card number may be written in groups of four with spaces, and a longer
  run of digits is no card number (never its first sixteen).

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.test_plain_amounts import FLOWS


async def pizza(*messages: str) -> list[dict[str, Any]]:
    """The state snapshot after each message, one session of the pizza shop."""
    engine = Engine(compile_file(FLOWS / "pizza.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    try:
        return [(await engine.reply("p", m)).state_snapshot for m in messages]
    finally:
        await engine.aclose()


@pytest.mark.parametrize(("message", "size", "cheese"), [
    ("small w/o extra cheese", "small", False), ("big one, extra cheese please", "large", True),
    ("uh regular size and extra cheese", "medium", True),
])
async def test_every_value_the_order_needs_starts_it_at_its_confirmation(
        message: str, size: str, cheese: bool) -> None:
    said = (await pizza(message))[0]
    assert (said["flow"], said["stage"]) == ("order", "READY")
    assert said["slots"] == {"size": size, "cheese": cheese}


@pytest.mark.parametrize("message", ["large please", "small with extra cheese?",
                                     "maybe a small with extra cheese"])
async def test_one_value_a_question_or_a_hedge_starts_nothing_at_once(message: str) -> None:
    said = (await pizza(message))[0]
    assert said["stage"] != "READY"


@pytest.mark.parametrize("number", ["5500 0000 0000 0004", "5500-0000-0000-0004",
                                    "it's 5500000000000004"])
async def test_a_card_number_in_groups_or_whole_is_taken(number: str) -> None:
    said = await pizza("large extra cheese", "yes", "card", number)
    assert (said[-1]["flow"], said[-1]["stage"]) == ("payment", "READY")


@pytest.mark.parametrize("number", ["55000000000000041", "5500 0000 0000 0004 9",
                                    "123 5500000000000004"])
async def test_a_longer_run_of_digits_is_no_card_number(number: str) -> None:
    said = await pizza("large extra cheese", "yes", "card", number)
    assert (said[-1]["stage"], said[-1]["slots"]["card_number"]) == ("FILLING", None)


async def test_the_documented_examples() -> None:  # docs/understanding.md
    said = await pizza("medium, no extra cheese")
    assert (said[0]["stage"], said[0]["slots"]) == ("READY", {"size": "medium", "cheese": False})
    assert (await pizza("large please"))[0]["stage"] is None  # "did you mean …?"
