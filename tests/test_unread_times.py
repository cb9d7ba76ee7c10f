"""A time said that names no date ("다음 달 초에", "월급날", "end of the month") is never
taken as "now": the transfer's date slot, though optional, is asked for until a date comes
(or an answer that means now), so the confirmation — and the money — waits. A date the
reader resolves, a word inside another ("보내주세요" is no "내주"), a question or a yes
asks nothing."""

from __future__ import annotations

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import TODAY


async def turns(transfer: CompiledService, *messages: str) -> tuple[dict[str, object], str]:
    engine = Engine(transfer, store=MemoryStore(), clock=lambda: TODAY)
    for message in messages:
        done = await engine.reply("s", message)
    snapshot = done.state_snapshot
    return {"flow": snapshot["flow"], "stage": snapshot["stage"],
            **(snapshot.get("slots") or {})}, done.message


@pytest.mark.parametrize("request_", [
    "월급날 아빠한테 30만원 보내줘", "추석 전에 할머니께 20만원 보내 드려",
    "주말에 민수한테 2만원 보내줘", "이번 달 말에 형한테 10만원 이체", "send dad 40k on payday",
    "wire grandma 100k early next month", "transfer 20k to Jisu before Christmas",
])
async def test_a_time_that_names_no_date_asks_for_the_date_before_any_confirmation(
        transfer: CompiledService, request_: str) -> None:
    read, reply = await turns(transfer, request_)
    assert (read["stage"], read["when"]) == ("FILLING", None)
    assert read["amount"] and read["target"]  # what was said is kept
    assert "날짜로 알아듣지 못했어요" in reply or "as a date" in reply


@pytest.mark.parametrize("answer", ["12월 5일", "다음 주 수요일이요", "모레"])
async def test_a_date_then_reaches_the_confirmation_with_it(transfer: CompiledService,
                                                             answer: str) -> None:
    read, reply = await turns(transfer, "월급날 아빠한테 30만원 보내줘", answer)
    assert read["stage"] == "READY" and read["when"] and f"({read['when']})" in reply


@pytest.mark.parametrize("answer", ["바로요", "지금 보내주세요", "asap", "now please"])
async def test_an_answer_that_means_now_goes_on_without_a_date(transfer: CompiledService,
                                                                answer: str) -> None:
    read, _ = await turns(transfer, "주말에 민수한테 2만원 보내줘", answer)
    assert (read["stage"], read["when"]) == ("READY", None)


@pytest.mark.parametrize("other", ["고마워", "음", "다음 달 초요", "later"])
async def test_anything_else_asks_again_and_moves_no_money(transfer: CompiledService,
                                                           other: str) -> None:
    read, reply = await turns(transfer, "주말에 민수한테 2만원 보내줘", other, "네")
    assert read["stage"] == "FILLING" and read["when"] is None and "언제 보낼까요?" in reply


async def test_at_the_confirmation_a_time_without_a_date_takes_it_back_to_asking(
        transfer: CompiledService) -> None:
    read, reply = await turns(transfer, "엄마한테 5만원 보내줘", "아 그냥 다음 달에 보내줘")
    assert (read["stage"], read["when"]) == ("FILLING", None)
    read, _ = await turns(transfer, "엄마한테 5만원 보내줘", "아 그냥 다음 달에 보내줘", "취소")
    assert read["stage"] == "CANCELLED"


@pytest.mark.parametrize(("request_", "stage"), [
    ("동생 생일 선물로 동생한테 5만원 보내줘", "READY"),  # a birthday, no time of sending
    ("다음 주 금요일에 엄마한테 10만원 보내줘", "READY"),  # a date the reader resolves
    ("엄마가 이모한테 5만원 보내달래", "FILLING"),  # "보내달래" holds no "내달"
])
async def test_no_date_is_asked_for_a_date_read_or_a_word_that_only_looks_like_a_time(
        transfer: CompiledService, request_: str, stage: str) -> None:
    read, reply = await turns(transfer, request_)
    assert read["stage"] == stage and "날짜로 알아듣지 못했어요" not in reply


async def test_a_yes_at_the_confirmation_is_no_time(transfer: CompiledService) -> None:
    read, _ = await turns(transfer, "엄마한테 5만원 보내줘", "네 보내주세요")
    assert read["stage"] == "EXECUTED"
