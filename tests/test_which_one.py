"""Whole-message answers. The answer to "which one?" is the whole message: a label, a name
or an ordinal said alone, or words whose intents rank one option clearly first. The same
ambiguous words again, a question or a message naming two options answer nothing (it used
to start the first-ranked option); a word that merely starts like an ordinal ("두고 볼게")
is no ordinal. And a free-text answer is taken whole unless it is a bare yes."""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT

ASKED = ["replace a card", "card status"]


async def answer(message: str) -> tuple[str | None, list[str]]:
    engine = Engine(compile_file(ROOT / "flows" / "cards.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    first = await engine.reply("s", "my card")
    assert first.ui_hint["buttons"] == ASKED
    done = await engine.reply("s", message)
    return done.state_snapshot["flow"], done.ui_hint["buttons"]


@pytest.mark.parametrize("message", ["my card", "card", "which is which?",
                                     "replace a card or card status"])
async def test_no_answer_asks_again(message: str) -> None:
    assert await answer(message) == (None, ASKED)


@pytest.mark.parametrize(("message", "flow"), [
    ("the second one", "status"), ("2", "status"), ("first please", "verify"),
    ("card status", "status"),
])
async def test_a_whole_answer_picks_its_option(message: str, flow: str) -> None:
    started, _ = await answer(message)
    assert started == flow  # replacing a card verifies the customer first


@pytest.mark.parametrize(("said", "taken"), [("정말 좋아요", "정말 좋아요"), ("네", None),
                                             ("진짜 최고예요", "진짜 최고예요")])
async def test_a_sentence_that_reads_like_a_yes_can_still_be_a_review(
        said: str, taken: str | None) -> None:
    """A free-text answer is taken whole unless it is a bare yes (one word)."""
    engine = Engine(compile_file(ROOT / "flows" / "commerce.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    context = {"is_logged_in": True}
    for message in ("리뷰 쓸래요", "5점"):
        await engine.reply("r", message, context=context)
    done = await engine.reply("r", said, context=context)
    assert done.state_snapshot["slots"]["comment"] == taken
