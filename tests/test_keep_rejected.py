"""A refused value can wait for its own question (``keep_rejected``).

A user who answers ahead ("a table for 20" while the flow asks for the day) gets the
refusal when the flow comes to that slot, beside its question — not in the middle of
another one. By default the refusal is said at once. The service below is written for this
test; its messages show ``errors`` the way a flow author would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.runtime.engine import Engine
from engine.store import MemoryStore

BOOKING = """
service: booking
default_flow: book
intents: {book: {keywords: [book, table]}}
slots:
  day:
    type: enum
    values: {friday: [fri], saturday: [sat]}
    required: true
  guests:
    type: integer
    required: true
    maximum: 10
    keep_rejected: KEEP
    error: too_many
flows:
  book:
    slots: [day, guests]
    initial: INIT
    stages:
      INIT: {}
      ASKING: {say: ask}
      BOOKED: {terminal: true, say: booked}
    transitions:
      - {trigger: update, source: [INIT, ASKING], dest: BOOKED, when: not missing}
      - {trigger: update, source: [INIT, ASKING], dest: ASKING}
messages:
  ask: >-
    {%- if 'guests' in errors %}{{ errors.guests }} {% endif -%}
    {{ 'Which day?' if missing[0] == 'day' else 'For how many?' }}
  too_many: "We seat at most 10, not {{ value }}."
  booked: "Booked for {{ slots.guests }} on {{ slots.day }}."
"""
REFUSED = "We seat at most 10, not 20."


def booking(tmp_path: Path, keep: bool = True) -> Engine:
    path = tmp_path / "booking.yaml"
    path.write_text(BOOKING.replace("KEEP", str(keep).lower()), encoding="utf-8")
    return Engine(compile_file(path), store=MemoryStore())


@pytest.mark.parametrize("ahead", ["book a table for 20 people", "table for 20 please",
                                   "I'd like to book, we are 20"])
async def test_a_value_refused_ahead_of_its_question_waits_for_it(
        tmp_path: Path, ahead: str) -> None:
    engine = booking(tmp_path)
    first = await engine.reply("s", ahead)
    assert first.message == "Which day?"  # the day is asked, nothing said about the guests
    assert first.state_snapshot["meta"]["held_errors"] == {"guests": REFUSED}
    second = await engine.reply("s", "friday")
    assert second.message == f"{REFUSED} For how many?"  # now its question has come
    assert second.state_snapshot["meta"]["slot_errors"] == {"guests": REFUSED}
    assert "held_errors" not in second.state_snapshot["meta"]
    assert (await engine.reply("s", "4")).message == "Booked for 4 on friday."


async def test_by_default_a_refused_value_is_reported_at_once(tmp_path: Path) -> None:
    engine = booking(tmp_path, keep=False)
    first = await engine.reply("s", "book a table for 20 people")
    assert first.message == f"{REFUSED} Which day?"
    assert "held_errors" not in first.state_snapshot["meta"]
    assert (await engine.reply("s", "friday")).message == "For how many?"


async def test_a_valid_value_given_meanwhile_forgets_the_refusal(tmp_path: Path) -> None:
    engine = booking(tmp_path)
    await engine.reply("s", "book a table for 20 people")
    done = await engine.reply("s", "sorry, 6 of us, on saturday")
    assert done.message == "Booked for 6 on saturday."
    assert done.state_snapshot["meta"]["slot_errors"] == {}


async def test_refused_when_its_question_is_asked_is_said_at_once(tmp_path: Path) -> None:
    engine = booking(tmp_path)
    await engine.reply("s", "book a table on friday")
    done = await engine.reply("s", "20")
    assert done.message == f"{REFUSED} For how many?"


async def test_answering_the_asked_slot_and_a_refused_one_together_reports_it_now(
        tmp_path: Path) -> None:
    """The day is given with the refused party size: the guests' question comes up in this
    very turn, so its refusal is said with it."""
    engine = booking(tmp_path)
    done = await engine.reply("s", "book a table for 20 on friday")
    assert done.message == f"{REFUSED} For how many?"
