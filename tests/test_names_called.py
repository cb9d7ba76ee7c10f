"""A recipient called as one calls an older friend or sibling ("철수 형", "영희 언니") keeps
the name, as a title does ("김 대리"); 님 alone after a name is dropped as 씨 is ("이지은 님께":
이지은, never "님"). After a word that is no name — a relation ("친구 형": a friend's brother,
asked), a joining or correcting word ("근데 형한테", "아니 누나한테"), a time — the word
stands alone as before."""

from __future__ import annotations

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore


async def target(transfer: CompiledService, message: str) -> object:
    done = await Engine(transfer, store=MemoryStore()).reply("s", message)
    return done.state_snapshot["slots"].get("target")


@pytest.mark.parametrize(("message", "name"), [
    ("민호 형님께 10만원 송금해줘", "민호 형님"), ("수진 언니한테 3만원 보내줘", "수진 언니"),
    ("재석 오빠한테 2만원 이체", "재석 오빠"), ("박서준 님한테 5만원 보내줘", "박서준"),
    ("김하늘 님에게 7만원 보내 주세요", "김하늘"),
])
async def test_a_name_with_how_it_is_called_is_the_recipient(
        transfer: CompiledService, message: str, name: str) -> None:
    assert await target(transfer, message) == name


@pytest.mark.parametrize("message", ["친구 누나한테 2만원 보내줘", "동생 오빠에게 만원 보내"])
async def test_someone_elses_sibling_is_asked_for(transfer: CompiledService,
                                                 message: str) -> None:
    assert await target(transfer, message) is None


@pytest.mark.parametrize(("message", "name"), [
    ("근데 오빠한테 3만원 보내줘", "오빠"), ("아까 형한테 2만원 보내줘", "형"),
    ("그리고 언니한테 만원 이체해줘", "언니")])
async def test_a_word_that_is_no_name_leaves_the_word_alone(
        transfer: CompiledService, message: str, name: str) -> None:
    assert await target(transfer, message) == name
