"""Decisions after the first confirmation: the question whether to go on after another
request ("이체를 계속 진행할까요?"), a batch's next confirmation, and the ways people say
them — a yes there only goes on (the task's own confirmation is asked again, and its yes
moves money), a cancel naming the task's recipient or "all" of it, a yes held on the
keyboard, "계속". Every sentence here is new: none is in an eval set or a flow's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore

TRANSFER = Path(__file__).resolve().parents[1] / "flows" / "transfer.yaml"


async def said(*messages: str) -> tuple[dict[str, Any], str | None]:
    """(the reading, the stage) of the last of ``messages``, said in one session."""
    engine = Engine(compile_file(TRANSFER), store=MemoryStore(), settings=load_settings({}))
    try:
        for message in messages:
            done = await engine.reply("t", message)
    finally:
        await engine.aclose()
    return dict(done.trace.get("reading") or {}), done.state_snapshot.get("stage")


@pytest.mark.parametrize("reply", ["응 송금해줘", "그래 이체하자", "ok 보내", "네 진행해주세요"])
async def test_a_yes_to_going_on_asks_the_tasks_own_yes_again(reply: str) -> None:
    reading, stage = await said("형한테 6만원 보내줘", "내 잔액 좀", reply)
    assert reading["decision"] == "confirm" and stage == "READY"  # asked again, not sent
    _, stage = await said("형한테 6만원 보내줘", "내 잔액 좀", reply, "네")
    assert stage == "EXECUTED"


@pytest.mark.parametrize(("first", "reply"), [
    (("민호한테 만원, 지수한테 3만원 보내줘", "확인"), "지수한텐 보내지 마세요"),
    (("민호한테 만원, 지수한테 3만원 보내줘", "확인"), "지수에게는 안 보낼게요"),
    (("형한테 6만원 보내줘",), "형한테는 보내지 마"),
])
async def test_the_tasks_recipient_turned_down_cancels_it(first: tuple[str, ...],
                                                          reply: str) -> None:
    reading, stage = await said(*first, reply)
    assert reading["decision"] == "cancel" and stage == "CANCELLED"


async def test_another_recipient_turned_down_cancels_nothing() -> None:
    reading, stage = await said("형한테 6만원 보내줘", "민호한테는 보내지 마")
    assert reading["decision"] is None and stage == "READY"


@pytest.mark.parametrize("reply", ["전부 취소해 주세요", "두 번째는 취소할게요", "나머지는 취소",
                                   "다시 생각해보니 취소할게요", "생각해 보니 안 보낼래요"])
async def test_a_cancel_of_all_or_of_the_next_is_a_cancel(reply: str) -> None:
    reading, stage = await said("민호한테 만원, 지수한테 3만원 보내줘", "확인", reply)
    assert reading["decision"] == "cancel" and stage == "CANCELLED"


@pytest.mark.parametrize(("reply", "decision"), [
    ("네ㅔㅔ", "confirm"), ("네네ㅔㅔ", "confirm"), ("계속해 주세요", "confirm"),
    ("계속 진행할게요", "confirm"), ("ㅔㅔ", None), ("계속 생각 중이에요", None), ("계속?", None),
])
async def test_a_held_vowel_or_going_on_is_a_yes_and_nothing_else_is(reply: str,
                                                                     decision: str | None) -> None:
    reading, stage = await said("형한테 6만원 보내줘", reply)
    assert reading["decision"] == decision
    assert stage == ("EXECUTED" if decision else "READY")


@pytest.mark.parametrize(("message", "name"), [("아빠한텐 4만원 보내줘", "아빠"),
                                               ("누나에겐 2만원 송금해줘", "누나")])
async def test_the_short_particles_name_the_recipient(message: str, name: str) -> None:
    reading, _ = await said(message)
    assert reading["slots"]["target"] == name
