"""Answers whose value is not meant as the answer: a state said of the speaker ("I'm a bit
lost with this app" while a card's reason is asked), a choice the user says they have not
made ("idk, my wife likes medium"), a value said as a guess ("아마 3만원일걸"). The rules
read no value from them (the model, or the question asked again, settles them); the same
values said plainly still are read.

Every sentence here is new: none is in an eval set or a flow's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore

FLOWS = Path(__file__).resolve().parents[1] / "flows"
AT_THE_REASON = ("cards.yaml", ["I need a new card", "u2044", "3019"])
AT_THE_SIZE = ("pizza.yaml", ["pizza please"])
AT_THE_AMOUNT = ("transfer.yaml", ["엄마한테 보내줘"])
AT_THE_RECIPIENT = ("transfer.yaml", ["5만원 보내줘"])


async def slots_read(at: tuple[str, list[str]], message: str) -> dict[str, Any]:
    """The slots the rules read from ``message`` after the messages of ``at``."""
    flow, before = at
    engine = Engine(compile_file(FLOWS / flow), store=MemoryStore(), settings=load_settings({}))
    try:
        for said in before:
            await engine.reply("t", said)
        done = await engine.reply("t", message)
    finally:
        await engine.aclose()
    return dict(dict(done.trace.get("reading") or {}).get("slots") or {})


@pytest.mark.parametrize("message", ["honestly I'm a bit lost with this app",
                                     "i feel totally lost here",
                                     "I got really lost in your menus"])
async def test_a_state_said_of_the_speaker_is_not_the_things(message: str) -> None:
    assert "reason" not in await slots_read(AT_THE_REASON, message)


@pytest.mark.parametrize(("message", "reason"), [
    ("I'm pretty sure it's lost", "lost"), ("it's cracked, and I'm so done", "damaged")])
async def test_the_things_state_beside_the_speakers_is_read(message: str, reason: str) -> None:
    assert (await slots_read(AT_THE_REASON, message)).get("reason") == reason


@pytest.mark.parametrize(("at", "message"), [
    (AT_THE_SIZE, "idk, my wife likes medium"),
    (AT_THE_SIZE, "dunno, the kids want small"),
    (AT_THE_SIZE, "I don't know which, large is what we usually get"),
    (AT_THE_AMOUNT, "아마 3만원일걸"),
    (AT_THE_AMOUNT, "아마도 5만원"),
    (AT_THE_RECIPIENT, "아마 민수일걸"),
])
async def test_a_choice_not_made_or_a_guess_gives_no_value(at: tuple[str, list[str]],
                                                           message: str) -> None:
    assert await slots_read(at, message) == {}


@pytest.mark.parametrize(("at", "message", "slots"), [
    (AT_THE_SIZE, "medium please", {"size": "medium"}),
    (AT_THE_AMOUNT, "3만원이요", {"amount": 30000}),
])
async def test_the_same_values_said_plainly_are_read(at: tuple[str, list[str]], message: str,
                                                      slots: dict[str, Any]) -> None:
    assert await slots_read(at, message) == slots
