"""A yes/no slot said in passing, read as a careful clerk would: its bare name inside a
thing's name gives nothing ("a cheese pizza", "three-cheese"), said as the usual or as less it
is false ("normal cheese", "easy on the cheese"), and the last mention wins over one taken
back ("extra cheese, no wait, no extra cheese")."""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.nlu.flags import find_flag
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT

WORDS = ("extra cheese", "cheese")


def read(message: str) -> bool | None:
    found = find_flag(message, WORDS)
    return found[0].value if found else None


@pytest.mark.parametrize("message", ["a small cheese pie please", "large three-cheese",
                                     "can I get a cheese pizza, medium", "2 cheese blend"])
def test_the_name_inside_a_things_name_gives_nothing(message: str) -> None:
    assert read(message) is None


@pytest.mark.parametrize("message", ["normal cheese is fine", "easy on the cheese please",
                                     "standard cheese, medium", "not much cheese"])
def test_the_usual_or_less_is_no_extra(message: str) -> None:
    assert read(message) is False


@pytest.mark.parametrize(("message", "value"), [
    ("extra cheese — actually no extra cheese", False),
    ("no extra cheese... actually yes, extra cheese", True),
    ("medium with double cheese", True), ("add cheese please", True),
    ("large, cheese on top", True), ("without cheese", False)])
def test_the_last_mention_wins_and_plain_ones_still_read(message: str, value: bool) -> None:
    assert read(message) is value


async def test_a_first_order_reads_it_so() -> None:
    engine = Engine(compile_file(ROOT / "flows" / "pizza.yaml"), store=MemoryStore())
    done = await engine.reply("s", "one large cheese pizza please")
    assert done.state_snapshot["slots"].get("cheese") is None
    assert done.state_snapshot["slots"]["size"] == "large"
    done = await engine.reply("t", "a medium pizza, go easy on the cheese")
    assert done.state_snapshot["slots"]["cheese"] is False
