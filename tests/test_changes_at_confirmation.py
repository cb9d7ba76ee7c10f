"""A change asked for at the transfer's confirmation, said with more than the new value: the
old value said away after an opening word ("근데 아빠 말고 오빠한테"), the change said as
the one to do ("오빠한테 보내는 걸로 해줘"), the new value said after the slot's own name
("받는 사람은 이모로 해 주세요") or, for a relation or a name with its title, before a word
of changing it ("사촌 동생으로 변경해 주세요"), a date given with the task's own words
("수요일에 보내자"). Each changes the value and asks again — never a yes — in a single
transfer and in one of a batch; a message that names the slot but gives no new value
changes nothing, nor does a change taken back ("…actually no, keep it"). And a yes said as
going with what was proposed ("그걸로 할게요"), which a question, a doubt or a "but wait"
is not. And an amount said as a change by it ("만원 더", "5천원만 덜", "add 10k"): added to or
taken off the one asked about, asked again; and one said as a multiple of it ("두 배로",
"반만", "double it").

Every sentence here is new: none is in an eval set or a flow's tests."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.test_turned_down_words import reply_to_first

FLOWS = Path(__file__).resolve().parents[1] / "flows"
SINGLE = ["할머니한테 6만원 보내줘"]
BATCH = ["엄마한테 만원, 할머니한테 6만원 보내줘", "네"]  # the second of two is asked
SINGLE_EN = ["send 60000 won to grandma"]


async def confirming(before: list[str], reply: str) -> tuple[dict[str, Any], str | None, str]:
    """(the reading, the stage, the reply) of ``reply`` said at the confirmation ``before``
    led to."""
    engine = Engine(compile_file(FLOWS / "transfer.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    try:
        for message in before:
            done = await engine.reply("t", message)
        assert done.state_snapshot["stage"] == "READY" and \
            ("할머니" in done.message or "grandma" in done.message)
        done = await engine.reply("t", reply)
    finally:
        await engine.aclose()
    return dict(done.trace.get("reading") or {}), done.state_snapshot.get("stage"), done.message


def changed(reading: dict[str, Any], stage: str | None, said: str, **slots: Any) -> None:
    assert reading["decision"] is None and reading["slots"] == slots
    assert stage == "READY" and all(str(v) in said for v in slots.values())


@pytest.mark.parametrize("before", [SINGLE, BATCH], ids=["single", "batch"])
@pytest.mark.parametrize(("reply", "name"), [
    ("그러면 할머니 말고 큰아빠한테", "큰아빠"),
    ("아 맞다 할머니 말고 외삼촌한테 보내 주세요", "외삼촌"),
    ("음 할머니 아니고 사촌 형", "사촌 형"),
    ("참 할머니 말고 막내이모한테로 해줘", "막내이모"),
    ("네 근데 할머니 말고 큰엄마한테 보내줘", "큰엄마"),
])
async def test_the_old_value_said_away_after_an_opening_word_is_replaced(
        before: list[str], reply: str, name: str) -> None:
    reading, stage, said = await confirming(before, reply)
    changed(reading, stage, said, target=name)


@pytest.mark.parametrize("before", [SINGLE, BATCH], ids=["single", "batch"])
@pytest.mark.parametrize(("reply", "slots"), [
    ("큰아빠한테 보내는 걸로 할게요", {"target": "큰아빠"}),
    ("외삼촌한테 보내는 거로 해 주세요", {"target": "외삼촌"}),
    ("사촌동생한테 보내는 걸로 바꿔줘", {"target": "사촌동생"}),
    ("4만원 보내는 걸로 해 주세요", {"amount": 40000}),
])
async def test_a_change_said_as_the_one_to_do_is_the_change(
        before: list[str], reply: str, slots: dict[str, Any]) -> None:
    reading, stage, said = await confirming(before, reply)
    changed(reading, stage, said.replace("4만원", "40000"), **slots)


@pytest.mark.parametrize("before", [SINGLE, BATCH], ids=["single", "batch"])
@pytest.mark.parametrize(("reply", "name"), [
    ("받는 사람은 큰아빠로 해 주세요", "큰아빠"),
    ("받는 분을 외삼촌으로 바꿔 주세요", "외삼촌"),
    ("받는사람 막내이모로", "막내이모"),
    ("받는 사람 큰엄마한테로 바꿔줘", "큰엄마"),
    ("recipient: Dana", "Dana"),
])
async def test_a_value_said_after_the_slots_own_name_is_the_new_value(
        before: list[str], reply: str, name: str) -> None:
    reading, stage, said = await confirming(before, reply)
    changed(reading, stage, said, target=name)


@pytest.mark.parametrize("reply", ["받는 분 맞아요", "받는 사람은 할머니 맞아", "할머니 말고요",
                                   "받는 사람이요?"])
async def test_the_slots_name_without_a_new_value_changes_nothing(reply: str) -> None:
    reading, stage, said = await confirming(SINGLE, reply)
    assert reading.get("slots") in ({}, None) and stage == "READY" and "할머니" in said


async def test_a_value_after_the_slots_own_name_fills_a_first_message_too() -> None:
    reading, _, _ = await reply_to_first("받는 사람은 사촌 누나로 하고 7만원 보내줘")
    assert reading["slots"] == {"target": "사촌 누나", "amount": 70000}


@pytest.mark.parametrize(("message", "name"), [
    ("사촌 동생한테 4만원 보내줘", "사촌 동생"), ("큰 고모께 10만원 송금해 주세요", "큰 고모"),
    ("작은 삼촌한테 2만원 이체해줘", "작은 삼촌"),
    ("외사촌 누나에게 5만원 보내 주세요", "외사촌 누나"),
    ("친구 형한테 3만원 보내줘", None),  # a friend's brother: whose name?
])
async def test_a_relation_said_in_two_words_is_one_recipient(message: str,
                                                             name: str | None) -> None:
    reading, _, _ = await reply_to_first(message)
    assert reading["slots"].get("target") == name


@pytest.mark.parametrize("reply", ["네 그걸로 할게요", "이걸로 해 주세요", "그거로 해줘", "예스요",
                                   "그렇게 할게요 감사합니다", "그대로 할게요!"])
async def test_going_with_what_was_proposed_is_a_yes(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["decision"] == "confirm" and stage == "EXECUTED"


@pytest.mark.parametrize("reply", ["그걸로 할지 말지 모르겠어", "이걸로 하면 언제 들어가요?",
                                   "그렇게 할게요 근데 잠깐만", "그걸로 할게요?",
                                   "이걸로는 안 할래요"])
async def test_going_with_it_asked_weighed_or_held_is_no_yes(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading.get("decision") != "confirm" and stage != "EXECUTED"


@pytest.mark.parametrize(("reply", "day"), [
    ("날짜를 목요일로 바꿔 주세요", 3), ("토요일에 보내자", 5), ("일요일로 예약해 줘", 6)])
async def test_a_date_given_at_the_confirmation_with_the_tasks_words_is_its_date(
        reply: str, day: int) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    when = reading["slots"].get("when")
    assert reading["decision"] is None and stage == "READY"
    assert when is not None and dt.date.fromisoformat(when).weekday() == day


@pytest.mark.parametrize("reply", ["목요일에 월급 들어와", "모레 시간 돼?", "토요일은 바빠요",
                                   "그러면 일요일에 보낼까 고민이네"])
async def test_a_date_in_a_sentence_about_something_else_is_none(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert not reading.get("slots") and stage == "READY"


@pytest.mark.parametrize(("reply", "slots"), [
    ("외삼촌으로 바꿔주세요", {"target": "외삼촌"}),
    ("민지 언니로 변경해 줘", {"target": "민지 언니"}),
    ("계좌로 바꿔줘", {}), ("현금으로 해 주세요", {}), ("지수로 바꿔줘", {}),  # whose? a way to pay
])
async def test_a_relation_or_titled_name_before_a_word_of_changing_is_the_recipient(
        reply: str, slots: dict[str, Any]) -> None:
    reading, stage, said = await confirming(SINGLE, reply)
    assert reading.get("slots", {}) == slots and stage == "READY"


async def test_a_change_taken_back_with_actually_no_changes_nothing() -> None:
    reading, stage, said = await confirming(SINGLE, "change it to 20k... actually no, keep it")
    assert not reading.get("slots") and stage == "READY" and "6만원" in said


@pytest.mark.parametrize(("reply", "slots"), [
    ("할머니는 4만원만", {"amount": 40000}), ("할머니는 8만원 보내 드려", {"amount": 80000}),
    ("큰엄마는 4만원만", {}),  # someone else: whose amount?
    ("금액 9만으로 해 주세요", {"amount": 90000}), ("액수를 5만으로 내려줘", {"amount": 50000}),
])
async def test_an_amount_said_of_the_tasks_own_recipient_or_in_man_alone_is_the_amount(
        reply: str, slots: dict[str, Any]) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading.get("slots", {}) == slots and stage == "READY"


@pytest.mark.parametrize(("reply", "day", "next_month"), [
    ("이체 날짜 21일로 해줘", 21, False), ("날짜는 다음 달 3일로 바꿔 주세요", 3, True)])
async def test_a_day_of_the_month_said_as_what_the_date_is_to_be_is_the_date(
        reply: str, day: int, next_month: bool) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    when = dt.date.fromisoformat(reading["slots"]["when"])
    assert when.day == day and stage == "READY"
    assert not next_month or (when.month - dt.date.today().month) % 12 == 1


@pytest.mark.parametrize(("reply", "slots"), [
    ("할머니헌테 말고 고모헌테", {"target": "고모"}),  # 헌테, a common slip for 한테
    ("할머니 말고 조카한테 3만원으로", {"target": "조카", "amount": 30000}),
    ("할머니 말고 손녀한테 보내줘", {"target": "손녀"}),  # 말고 is no one's owner
])
async def test_the_old_recipient_said_away_however_spelt_is_replaced(
        reply: str, slots: dict[str, Any]) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == slots and stage == "READY"


@pytest.mark.parametrize(("reply", "decision"), [
    ("2만원으로 바꿔줘 아 잠깐만 그냥 취소할게요", "cancel"),
    ("이모한테로 해줘.. 아 아니다 그냥 취소해 주세요", "cancel"),
    ("취소해줘 아니다 그냥 보내줘", None),  # a cancel taken back by a yes
    ("yes please, oh wait, never mind", None),  # a yes taken back: by what?
    ("네 아 잠깐만 그냥 취소해 주세요", "cancel"),  # a yes taken back by a cancel word
    ("ok go... no wait, stop it", "cancel"),
    ("7만원으로 해줘 아니다 그냥 그대로 보내줘", None),  # a yes to what? asked again
])
async def test_what_is_said_after_taking_a_change_back_decides_only_a_cancel(
        reply: str, decision: str | None) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading.get("decision") == decision and not reading.get("slots")
    assert stage == ("CANCELLED" if decision else "READY")


@pytest.mark.parametrize(("reply", "name"), [("not grandma — auntie", "auntie"),
                                             ("not grandma - my cousin", None)])
async def test_not_one_then_another_after_a_dash_is_the_other(reply: str,
                                                               name: str | None) -> None:
    reading, stage, _ = await confirming(SINGLE_EN, reply)
    assert reading.get("slots", {}).get("target") == name and stage == "READY"


@pytest.mark.parametrize(("reply", "slots"), [
    ("5만원 아니 7만원으로 해 주세요", {"amount": 70000}),
    ("큰엄마한테 아니 외삼촌한테로 바꿔줘", {"target": "외삼촌"}),
])
async def test_a_value_taken_back_inside_a_change_leaves_the_change(
        reply: str, slots: dict[str, Any]) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == slots and stage == "READY"


@pytest.mark.parametrize("before", [SINGLE, BATCH], ids=["single", "batch"])
@pytest.mark.parametrize(("reply", "amount"), [
    ("만원 더 보내줘", 70000), ("2만원 더 얹어 주세요", 80000), ("3천원 추가해 주세요", 63000),
    ("5천원만 덜 보내줘", 55000), ("만원 빼고 보내 줘", 50000), ("add 10k", 70000),
    ("make it 10k less", 50000), ("천원만 올려서 보내줘", 61000),
])
async def test_an_amount_said_as_a_change_by_it_is_added_or_taken_off(
        before: list[str], reply: str, amount: int) -> None:
    reading, stage, _ = await confirming(before, reply)
    assert reading["decision"] is None and reading["slots"] == {"amount": amount}
    assert stage == "READY"  # asked again: nothing moves until a yes to the new amount


@pytest.mark.parametrize("before", [SINGLE, BATCH], ids=["single", "batch"])
@pytest.mark.parametrize("reply", [
    "6만원 줄여줘", "7만원 빼줘",  # nothing left to send
    "할아버지한테 만원 더 보내줘",  # someone else: another transfer, perhaps
    "만원 더 보낼까?", "만원 더 보내야 하나",  # asked, weighed
])
async def test_a_change_by_an_amount_that_cannot_be_this_ones_changes_nothing(
        before: list[str], reply: str) -> None:
    reading, stage, _ = await confirming(before, reply)
    assert reading.get("decision") is None and not reading.get("slots") and stage == "READY"


@pytest.mark.parametrize("before", [SINGLE, BATCH], ids=["single", "batch"])
@pytest.mark.parametrize(("reply", "amount"), [
    ("두 배로 보내 주세요", 120000), ("3배로 해줘", 180000), ("반만 보내 주세요", 30000),
    ("절반으로 해줘", 30000), ("double it please", 120000), ("only half", 30000),
])
async def test_an_amount_said_as_a_multiple_of_the_one_asked_about_is_it(
        before: list[str], reply: str, amount: int) -> None:
    reading, stage, _ = await confirming(before, reply)
    assert reading["decision"] is None and reading["slots"] == {"amount": amount}
    assert stage == "READY"


@pytest.mark.parametrize("reply", ["반대로 해줘", "반반 나눠서 보내줘", "두 배로 보내도 돼?",
                                   "반만 보내라던데", "반가워요"])
async def test_words_like_a_multiple_that_are_none_change_nothing(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert not reading.get("slots") and stage == "READY"


DOCS_BASE = ["아빠한테 1만원 보내줘"]


@pytest.mark.parametrize(("reply", "amount"), [  # docs/understanding.md's examples
    ("5천원 더 보내줘", 15000), ("네 5천원만 더 얹어서요", 15000), ("천원 올려줘", 11000),
    ("add 5k", 15000), ("make it 5k more", 15000), ("3천원 줄여줘", 7000),
    ("2천원 깎아 주세요", 8000), ("5천원 덜", 5000), ("3k less", 7000), ("7만으로 올려줘", 70000),
    ("2만원 줄여줘", None), ("이거 보내고 엄마한테 5만원 더 보내줘", None),
    ("두 배로 해줘", 20000), ("반만 보낼게", 5000), ("double it", 20000),
])
async def test_the_documented_changes_by_an_amount(reply: str, amount: int | None) -> None:
    engine = Engine(compile_file(FLOWS / "transfer.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    try:
        assert (await engine.reply("d", DOCS_BASE[0])).state_snapshot["stage"] == "READY"
        done = await engine.reply("d", reply)
    finally:
        await engine.aclose()
    assert done.state_snapshot["stage"] == "READY"
    assert done.state_snapshot["slots"]["amount"] == (amount or 10000)
