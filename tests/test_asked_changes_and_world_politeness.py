"""From a fourth blind set of pizza orders (2026-11-29: the world's Englishes deciding), each
fixed as a class:

- a change of a named value asked for or wanted ("I want to change the size", "can I change
  the size?", "we need to change the size", and as learners say it, "I want change the
  size") takes that value back and asks it again, as "change the size" does — never another
  flow's request (it started a feedback);
- politeness of the world's Englishes around a yes ("Yes, kindly place it").

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from engine.nlu.resets import named_resets
from tests.test_plain_amounts import conversation

AT_ORDER = ("a medium pizza", "no extra cheese")
"""Two messages that leave an order at its confirmation (medium, no extra cheese)."""


@pytest.mark.parametrize("message", [
    "I'd like to change the size please", "could we change the size?", "i wanna change the size",
    "I want change size pls", "let me redo the size",
])
async def test_a_change_asked_for_takes_the_value_back_and_asks_it(message: str) -> None:
    *_, (_, state, said) = await conversation(*AT_ORDER, message, flow="pizza.yaml")
    assert state["flow"] == "order" and state["stage"] == "FILLING"
    assert state["slots"]["size"] is None and "What size" in said


@pytest.mark.parametrize("message", ["I want to change the size to large",
                                     "can I change the size and add a drink"])
def test_a_change_with_more_in_it_is_no_reset(message: str) -> None:
    assert named_resets(message, {"size": ["size"]}) == []


@pytest.mark.parametrize("message", ["Kindly place the order", "yes kindly proceed",
                                     "ok kindly go ahead please"])
async def test_kindly_around_a_yes_is_the_yes(message: str) -> None:
    *_, (reading, state, said) = await conversation(*AT_ORDER, message, flow="pizza.yaml")
    assert reading["decision"] == "confirm" and state["flow"] == "payment" and \
        "Card or cash?" in said
