"""A change at the confirmation said with the words people put around it, each class with
sentences of its own (none from the blind sets that found them):

- how one owns a slip ("아이고 오타났어요", "제가 잘못 적었네요") and which verbs set a value
  ("…으로 높여줘", "딱 …으로 맞춰 주세요", "…으로 가죠", "원래대로 …할게요");
- a day said with its copula ("27일이에요", "20일이 아니라 27일이요");
- an apology or an exclamation before whom it is for ("헉 죄송 이모로 바꿔 주세요"): the
  relation, never the apology read as a name (and never a number word as one);
- why, said before or after the change ("생일이라서 2만원 더 보내줘", "…, 밥값이 남아서");
- "-면 돼" (that will do) is no condition ("3만원만 보내면 돼요");
- nothing is sent until a plain yes, and a why that turns the change down changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from tests.played import play

ROOT = Path(__file__).resolve().parents[1]
TRANSFER = compile_file(ROOT / "flows" / "transfer.yaml")
REQUEST = "작은아빠한테 3월 20일에 6만원 보내줘"


@pytest.mark.parametrize(("change", "amount"), [
    ("아이고 오타났어요 8만원이요", 80000),
    ("제가 잘못 적었네요 4만원이에요", 40000),
    ("9만원으로 높여줘", 90000),
    ("딱 5만원으로 맞춰 주세요", 50000),
    ("금액은 7만원으로 갈게요", 70000),
    ("음 그냥 원래대로 6만원 할게요", 60000),
    ("앗 실수 3만원으로 낮춰 주세요", 30000),
])
async def test_a_change_owned_as_a_slip_or_said_with_its_verb_is_taken(change: str,
                                                                       amount: int) -> None:
    played = await play(TRANSFER, [REQUEST, change])
    assert (played.stage, played.slots["amount"], played.finished) == ("READY", amount, [])
    assert played.message.startswith("작은아빠에게")


@pytest.mark.parametrize("change", ["27일이에요", "아 20일이 아니라 27일이요", "27일입니다"])
async def test_a_day_said_with_its_copula_is_the_date(change: str) -> None:
    played = await play(TRANSFER, [REQUEST, change])
    assert (played.stage, played.slots["when"]) == ("READY", "2026-03-27")


@pytest.mark.parametrize(("change", "target"), [
    ("헉 죄송 이모로 바꿔 주세요", "이모"),
    ("아이고 미안 삼촌으로 해줘", "삼촌"),
])
async def test_an_apology_before_whom_is_no_part_of_the_name(change: str, target: str) -> None:
    played = await play(TRANSFER, [REQUEST, change])
    assert (played.stage, played.slots["target"]) == ("READY", target)


@pytest.mark.parametrize(("change", "slot", "value"), [
    ("이만 삼천원으로 바꿔줘", "amount", 23000),
    ("아 사월 이일로 해 줘", "when", "2026-04-02"),
])
async def test_a_number_said_in_words_is_never_read_as_whom(change: str, slot: str,
                                                            value: object) -> None:
    played = await play(TRANSFER, [REQUEST, change])
    assert played.slots["target"] == "작은아빠"
    assert played.slots[slot] == value


@pytest.mark.parametrize(("change", "amount"), [
    ("생일이라서 2만원 더 보내줘", 80000),
    ("만원 빼고 보내 줘 밥값이 남아서", 50000),
    ("3만원만 보내면 돼요", 30000),
    ("반반 내기로 해서 반만 보내면 돼", 30000),
])
async def test_why_said_with_a_change_leaves_the_change(change: str, amount: int) -> None:
    played = await play(TRANSFER, [REQUEST, change])
    assert (played.stage, played.slots["amount"]) == ("READY", amount)
    played = await play(TRANSFER, [REQUEST, change, "네"])
    assert [task["outcome"] for task in played.finished] == ["EXECUTED"]


@pytest.mark.parametrize("message", ["7만원으로 바꾸지 마 비싸니까",
                                     "엄마가 괜찮다고 하면 7만원으로 해줘"])
async def test_a_why_that_turns_down_or_a_condition_changes_nothing(message: str) -> None:
    played = await play(TRANSFER, [REQUEST, message])
    assert (played.stage, played.slots["amount"], played.finished) == ("READY", 60000, [])
