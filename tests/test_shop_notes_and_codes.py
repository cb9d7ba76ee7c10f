"""Found by whole shop conversations written blind: a note asked for (a free-text slot) is
all of the message even when it sounds like a hedge or someone else's words ("노캔 미쳤음
강추"), though a question is still no note; and the number of a code ("ORD-1002") is no
number of its own (it was read as a rating of 1002 and refused). Every sentence here is new:
none is in an eval set, a flow's tests or another test."""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.nlu.numbers import find_numbers
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.test_changes_at_confirmation import FLOWS

BUYER = {"is_logged_in": True, "user_id": "u7", "user_type": "consumer"}


async def review(*messages: str) -> dict[str, object]:
    engine = Engine(compile_file(FLOWS / "commerce.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    try:
        for message in messages:
            done = await engine.reply("t", message, context=BUYER)
    finally:
        await engine.aclose()
    return {"stage": done.state_snapshot["stage"], **done.state_snapshot["slots"]}


@pytest.mark.parametrize("note", ["배터리 미쳤음 오래감", "동생이 그러는데 음질 좋대요 저도 동의",
                                  "음.. 그럭저럭 쓸만한 듯"])
async def test_a_note_is_all_of_the_message(note: str) -> None:
    said = await review("헤드폰 리뷰 남기고 싶어요", "4점", note)
    assert said["comment"] == note and said["stage"] == "READY"


async def test_a_question_is_no_note() -> None:
    said = await review("헤드폰 리뷰 남기고 싶어요", "4점", "몇 글자까지 써도 돼요?")
    assert said["comment"] is None


@pytest.mark.parametrize("text", ["ORD-2231 후기 쓸게요", "SKU-77 재고 있어요?", "ab-12"])
def test_the_number_of_a_code_is_no_number(text: str) -> None:
    assert find_numbers(text) == []
