"""A recipient answered in a sentence: a name with its copula or a title is the name ("민지
입니다", "김 대리요"); "X는 Y" gives Y when X is the slot's own word ("받는 분은 김영희
입니다", "recipient: Tom") and no name when X is something else one has — a number, one's
own name, an account ("제 이름은 민수예요", "my number is 555 1234")."""

from __future__ import annotations

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore

ASK_KO, ASK_EN = "이체 좀 할게요", "transfer some money please"


async def recipient(transfer: CompiledService, ask: str, answer: str) -> object:
    engine = Engine(transfer, store=MemoryStore())
    await engine.reply("s", ask)
    done = await engine.reply("s", answer)
    assert done.state_snapshot["flow"] == "transfer"
    return done.state_snapshot["slots"]["target"]


@pytest.mark.parametrize(("answer", "name"), [
    ("민지입니다", "민지"), ("김민지입니다", "김민지"), ("박하은이에요", "박하은"),
    ("김 대리요", "김 대리"), ("이수진 과장님이요", "이수진 과장님"), ("지은 언니요", "지은 언니"),
])
async def test_a_name_with_its_copula_or_title_is_the_name(
        transfer: CompiledService, answer: str, name: str) -> None:
    assert await recipient(transfer, ASK_KO, answer) == name


@pytest.mark.parametrize("answer", ["저입니다", "나예요", "괜찮습니다", "확실합니다"])
async def test_oneself_or_a_predicate_with_the_copula_is_no_name(
        transfer: CompiledService, answer: str) -> None:
    assert await recipient(transfer, ASK_KO, answer) is None


@pytest.mark.parametrize(("ask", "answer", "name"), [
    (ASK_KO, "받는 사람은 민수야", "민수"), (ASK_KO, "받는 분은 김영희입니다", "김영희"),
    (ASK_EN, "recipient: Tom", "Tom"), (ASK_EN, "the recipient is Jake", "Jake"),
])
async def test_the_slots_own_word_then_the_name_gives_the_name(
        transfer: CompiledService, ask: str, answer: str, name: str) -> None:
    assert await recipient(transfer, ask, answer) == name


@pytest.mark.parametrize(("ask", "answer"), [
    (ASK_KO, "제 이름은 민수예요"), (ASK_KO, "계좌번호는 110-123-456789"),
    (ASK_KO, "내 아이디는 minsu92"), (ASK_KO, "제 연락처는 010 2222 3333이에요"),
    (ASK_EN, "my name is Tom"), (ASK_EN, "my number is 555 1234"),
])
async def test_what_something_else_of_theirs_is_gives_no_name(
        transfer: CompiledService, ask: str, answer: str) -> None:
    assert await recipient(transfer, ask, answer) is None
