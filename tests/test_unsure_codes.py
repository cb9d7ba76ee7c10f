"""Codes, ids, PINs and phone numbers are taken only when said as themselves: not as a
guess or in part, not someone else's, not negated, not a year, not the pronoun "one"; a
self-correction with nothing after it takes the value back. The cards flow (English), asked
for its customer id, its PIN, a reason and a phone number."""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.nlu import find_numbers
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT

ASK_ID, ASK_PIN = ["verify me"], ["verify me", "u2266"]
ASK_REASON, ASK_PHONE = ["replace my card", "u2266", "5813"], ["replace my card", "u2266",
                                                               "5813", "lost"]


@pytest.fixture(scope="module")
def cards() -> CompiledService:
    return compile_file(ROOT / "flows" / "cards.yaml")


async def after(cards: CompiledService, before: list[str], message: str) -> dict[str, object]:
    engine = Engine(cards, store=MemoryStore())
    for said in before:
        await engine.reply("s", said)
    done = await engine.reply("s", message)
    return {"stage": done.state_snapshot["stage"], **done.state_snapshot["slots"]}


@pytest.mark.parametrize(("before", "message", "slot"), [
    (ASK_ID, "kind of like u77 and then some more digits", "user_id"),
    (ASK_ID, "u91-something, I forget", "user_id"),
    (ASK_PIN, "it begins with 39 but I lost the rest", "pin"),
    (ASK_PHONE, "415-880-12 or something", "phone"),
    (ASK_ID, "maybe u5150", "user_id"),
])
async def test_a_code_said_as_a_guess_or_in_part_is_none(
        cards: CompiledService, before: list[str], message: str, slot: str) -> None:
    read = await after(cards, before, message)
    assert (read["stage"], read.get(slot)) == ("FILLING", None)


@pytest.mark.parametrize(("before", "message"), [
    (ASK_ID, "I'm asking for my grandpa, his customer id is u6044"),
    (ASK_PIN, "my wife's pin code is 2580, not sure about mine"),
    (ASK_ID, "their account id is u3003"),
])
async def test_someone_elses_details_give_no_value(cards: CompiledService, before: list[str],
                                                   message: str) -> None:
    assert (await after(cards, before, message))["stage"] == "FILLING"


@pytest.mark.parametrize(("before", "message"), [
    (ASK_REASON, "it wasn't lost"), (ASK_REASON, "no it isn't damaged"),
    (ASK_PIN, "the pin isn't 7000"),
])
async def test_an_english_negation_with_a_verb_takes_the_value_away(
        cards: CompiledService, before: list[str], message: str) -> None:
    assert (await after(cards, before, message))["stage"] == "FILLING"


@pytest.mark.parametrize(("before", "message"), [
    (ASK_PIN, "I've banked with you since 2011"), (ASK_PIN, "back in 1998 I opened it"),
    (ASK_ID, "u4410 hold on, let me check the letter"), (ASK_PIN, "4410... hang on"),
])
async def test_a_year_or_a_value_taken_back_is_none(cards: CompiledService, before: list[str],
                                                    message: str) -> None:
    assert (await after(cards, before, message))["stage"] == "FILLING"


async def test_a_code_said_plainly_is_still_taken(cards: CompiledService) -> None:
    assert (await after(cards, ASK_ID, "my customer id is u6044"))["user_id"] == "u6044"
    assert (await after(cards, ASK_PIN, "it's 2580"))["stage"] != "FILLING"


@pytest.mark.parametrize(("text", "values"), [
    ("I'd like the red one", []), ("not that, the other one", []), ("a small one please", []),
    ("just one please", [1]), ("one", [1]), ("give me one more", [1]),
])
def test_one_after_a_determiner_is_a_pronoun(text: str, values: list[int]) -> None:
    assert [m.value for m in find_numbers(text)] == values
