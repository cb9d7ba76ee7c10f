"""The recipe for an intent whose word is a built-in decision word (docs/dsl.md, "An intent
whose word is a built-in decision word"): a flow only for cancelling appointments is not
cancelled by the "cancel" that asked for it, confirms on "yes, cancel it", asks again on a
bare "cancel", and stops on "don't cancel"."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import TODAY

FLOW = """\
service: dentist
locale: en
intents:
  cancel_visit: {description: cancel an appointment, keywords: [cancel]}
routes: {cancel_visit: cancel_visit}
default_flow: chat
slots:
  day: {type: date, description: the appointment's day, required: true, ask: ask_day}
flows:
  chat:
    initial: CHAT
    stages:
      CHAT: {say: chat}
  cancel_visit:
    slots: [day]
    initial: INIT
    stages:
      INIT: {}
      FILLING: {say: filling}
      READY: {decide: confirm, say: confirm, buttons: ['Yes, cancel it', Keep it]}
      CANCELLED_VISIT: {terminal: true, say: done}
      KEPT: {terminal: true, say: kept}
    transitions:
      - {trigger: cancel, source: '*', dest: KEPT}
      - {trigger: update, source: [INIT, FILLING, READY], dest: READY, when: not missing}
      - {trigger: update, source: [INIT, FILLING, READY], dest: FILLING}
      - {trigger: confirm, source: READY, dest: CANCELLED_VISIT}
messages:
  chat: I can cancel an appointment.
  ask_day: Which day is the appointment?
  filling: "{{ ask(missing[0]) }}"
  confirm: Cancel your appointment on {{ slots.day }}?
  done: Your appointment is cancelled.
  kept: Nothing was cancelled; your appointment stays.
"""


@pytest.mark.parametrize(("reply", "stage"), [
    ("yes, cancel it", "CANCELLED_VISIT"), ("yes please cancel", "CANCELLED_VISIT"),
    ("cancel", "READY"), ("cancel it", "READY"), ("don't cancel", "KEPT"), ("no", "KEPT"),
])
async def test_the_word_that_asked_is_the_flows_doing(tmp_path: Path, reply: str,
                                                      stage: str) -> None:
    path = tmp_path / "dentist.yaml"
    path.write_text(FLOW, encoding="utf-8")
    engine = Engine(compile_file(path), store=MemoryStore(), settings=load_settings({}),
                    clock=lambda: TODAY)
    started = await engine.reply("s", "cancel my appointment tomorrow")
    assert started.state_snapshot["stage"] == "READY"  # not cancelled by its own word
    done = await engine.reply("s", reply)
    assert done.state_snapshot["stage"] == stage
