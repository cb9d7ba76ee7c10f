"""A "which one?" (or "did you mean …?") asked after a task ended — here the hand-off to a
person — and answered by anything but a choice: the turn is answered, never failed (the
ended task's stage was read against the default flow: KeyError, "something went wrong")."""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT


@pytest.mark.parametrize("last", ["hmm", "not sure", "+82-10-9876-5432", "what?"])
async def test_a_question_back_after_a_handoff_answers_every_reply(last: str) -> None:
    engine = Engine(compile_file(ROOT / "flows" / "cards.yaml"), store=MemoryStore())
    for message in ["my card", "hmm", "hmm"]:  # two non-answers hand over to a person
        await engine.reply("s", message)
    asked = await engine.reply("s", "my card")
    assert "Which one do you mean" in asked.message
    done = await engine.reply("s", last)
    assert done.trace.get("error") is None, done.message
    assert done.message
