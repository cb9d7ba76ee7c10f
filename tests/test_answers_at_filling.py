"""Answers at the transfer's questions that hold no plain value, or hold it in a form of
their own: a name said with 님, "울" or a mark; a self-correction inside a bare answer; a
choice not made between two; a share, a range in English; an account number; another
flow's request; a recipient turned down or one of two people; an amount given last year or
by someone else beside the user's own; the flow's verb after a name; an amount said with
the user's own giving verb ("드릴게요"); a promise misspelt with 께 ("보낼께"), which is no
name; the flow's verbs written in their -아/-어 form ("쏴") in their other forms ("쏠게").

Every sentence here is new: none is in an eval set or a flow's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore

FLOWS = Path(__file__).resolve().parents[1] / "flows"


async def answer(first: str, reply: str) -> tuple[dict[str, Any], str, str | None]:
    """(the reading, the flow, the stage) of ``reply`` said to the question ``first`` led
    to."""
    engine = Engine(compile_file(FLOWS / "transfer.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    try:
        asked = await engine.reply("t", first)
        assert asked.state_snapshot.get("stage") == "FILLING"
        done = await engine.reply("t", reply)
    finally:
        await engine.aclose()
    return dict(done.trace.get("reading") or {}), str(done.state_snapshot.get("flow")), \
        done.state_snapshot.get("stage")


@pytest.mark.parametrize(("reply", "name"), [
    ("박서준님", "박서준"), ("최유리님께 보내줘", "최유리"), ("울 아빠", "아빠"),
    ("누나!!", "누나"), ("동생😊", "동생"), ("삼촌♡", "삼촌"),
    ("어머님", "어머님"), ("김박사님", "김박사님"), ("홍 부장님이요", "홍 부장님"),
])
async def test_a_name_is_read_without_how_it_was_said(reply: str, name: str) -> None:
    reading, _, stage = await answer("4만원 보내줘", reply)
    assert reading["slots"] == {"target": name} and stage == "READY"


@pytest.mark.parametrize(("reply", "name"), [
    ("형 아니 누나", "누나"), ("삼촌, 아니다 외삼촌", "외삼촌"), ("지민 아니야 지훈이요", "지훈"),
    ("이모 말고 고모께", "고모"),
])
async def test_a_self_correction_in_a_bare_answer_gives_the_second_name(reply: str,
                                                                        name: str) -> None:
    reading, _, _ = await answer("6만원 이체해줘", reply)
    assert reading["slots"] == {"target": name}


@pytest.mark.parametrize(("first", "reply"), [
    ("아빠한테 보내줘", "2만원 보낼까 3만원 보낼까"),
    ("아빠한테 보내줘", "10만원으로 할까 15만원으로 할까요?"),
    ("7만원 보내줘", "누나한테 할까 형한테 할까"),
    ("아빠한테 보내줘", "10만원의 반"),
    ("아빠한테 보내줘", "4만원 반만"),
    ("send money to Chris", "half of 30k"),
    ("send money to Chris", "between 10k and 15k"),
])
async def test_a_choice_not_made_or_an_amount_to_work_out_is_no_value(first: str,
                                                                     reply: str) -> None:
    reading, _, stage = await answer(first, reply)
    assert reading["slots"] == {} and stage == "FILLING"


@pytest.mark.parametrize("reply", ["신한 110-123-456789", "우리 1002-123-456789",
                                   "카뱅 3333-01-2345678", "010.2222.3333로"])
async def test_an_account_number_is_no_name(reply: str) -> None:
    reading, _, stage = await answer("3만원 송금", reply)
    assert reading["slots"] == {} and stage == "FILLING"


@pytest.mark.parametrize("reply", ["이번달 이체 기록", "오늘 송금 내역 좀"])
async def test_another_flows_request_said_shortly_is_no_name(reply: str) -> None:
    reading, flow, _ = await answer("2만원 보내줘", reply)
    assert reading["intent"] == "history" and reading["slots"] == {} and flow == "transfer"


@pytest.mark.parametrize("reply", ["지수한테는 안 보낼래", "동생한텐 못 보내", "아빠 보내지마",
                                   "누나랑 형한테", "삼촌하고 숙모한테", "지수와 민지에게"])
async def test_a_recipient_turned_down_or_one_of_two_is_no_name(reply: str) -> None:
    reading, _, stage = await answer("5만원 보내줘", reply)
    assert "target" not in reading["slots"] and stage == "FILLING"


async def test_two_people_in_a_first_message_are_no_one_recipient() -> None:
    engine = Engine(compile_file(FLOWS / "transfer.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    try:
        done = await engine.reply("t", "누나랑 형한테 2만원 보내줘")
    finally:
        await engine.aclose()
    reading: dict[str, Any] = dict(done.trace.get("reading") or {})
    assert reading["slots"] == {"amount": 20000}  # whom: asked
    assert done.state_snapshot.get("stage") == "FILLING"


@pytest.mark.parametrize(("reply", "amount"), [
    ("다들 3만원씩 냈다더라. 나는 5만원", 50000),
    ("작년엔 10만원 드렸는데 올해는 20만원으로", 200000),
    ("형은 7만원 보냈대, 나는 6만원 할게", 60000),
])
async def test_an_amount_given_before_or_by_others_is_not_the_users_own(reply: str,
                                                                       amount: int) -> None:
    reading, _, stage = await answer("할머니한테 보내줘", reply)
    assert reading["slots"] == {"amount": amount} and stage == "READY"


@pytest.mark.parametrize("reply", ["엄마가 4만원 보내달래", "지난주에 8만원 보냈거든"])
async def test_only_someone_elses_amount_gives_none(reply: str) -> None:
    reading, _, _ = await answer("할머니한테 보내줘", reply)
    assert reading["slots"] == {}


@pytest.mark.parametrize(("reply", "name"), [("지수 송금", "지수"), ("이모 보내줘", "이모"),
                                             ("막내 이체해줘", "막내")])
async def test_a_name_with_the_flows_verb_after_it_is_the_name(reply: str, name: str) -> None:
    reading, _, _ = await answer("3만원 보내줘", reply)
    assert reading["slots"] == {"target": name}


@pytest.mark.parametrize("reply", ["다음 주 중에", "월말쯤에", "이번달 말에"])
async def test_a_time_that_names_no_date_is_no_name_too(reply: str) -> None:
    reading, _, stage = await answer("5만원 보내줘", reply)
    assert "target" not in reading["slots"] and stage == "FILLING"


@pytest.mark.parametrize(("reply", "decision", "name"), [
    ("이모 아니 고모", None, "고모"), ("이모 아니야 고모한테", None, "고모"),
    ("보내 아니 보내지마", "cancel", None), ("네 아니 잠깐만요", None, None)])
async def test_a_correction_at_the_confirmation_changes_or_stops_never_confirms(
        reply: str, decision: str | None, name: str | None) -> None:
    reading, stage = await confirming("이모한테 4만원 보내줘", reply)
    assert reading["decision"] == decision
    assert reading["slots"] == ({"target": name} if name else {})
    assert stage != "EXECUTED"


async def confirming(first: str, reply: str) -> tuple[dict[str, Any], str | None]:
    """(the reading, the stage) of ``reply`` said at the confirmation ``first`` led to."""
    engine = Engine(compile_file(FLOWS / "transfer.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    try:
        assert (await engine.reply("t", first)).state_snapshot["stage"] == "READY"
        done = await engine.reply("t", reply)
    finally:
        await engine.aclose()
    return dict(done.trace.get("reading") or {}), done.state_snapshot.get("stage")


@pytest.mark.parametrize(("reply", "amount"), [
    ("7만원 드릴게요", 70000), ("4만원 줄게요", 40000), ("2만5천원 줄래요", 25000),
    ("15만원 드립니다", 150000), ("6만원 드리려고요", 60000), ("만오천원 줄께요", 15000),
    ("12만원 드릴께", 120000),
])
async def test_an_amount_with_the_users_own_giving_verb_is_the_amount(reply: str,
                                                                      amount: int) -> None:
    reading, _, stage = await answer("아빠한테 보내줘", reply)
    assert reading["slots"] == {"amount": amount} and stage == "READY"


@pytest.mark.parametrize("reply", ["8만원 주던데", "아빠가 8만원 줬어", "6만원 드렸어요",
                                   "5만원 주더라"])
async def test_someone_elses_giving_is_no_amount(reply: str) -> None:
    reading, _, stage = await answer("아빠한테 보내줘", reply)
    assert reading["slots"] == {} and stage == "FILLING"


@pytest.mark.parametrize("reply", ["보낼께", "할께요", "이체할께", "드릴께요", "알았어 해줄께",
                                   "금방 부칠께요"])
async def test_a_promise_spelt_with_kke_is_no_name(reply: str) -> None:
    reading, _, _ = await answer("5만원 보내줘", reply)
    assert "target" not in reading["slots"]


@pytest.mark.parametrize(("reply", "name"), [("고모부께", "고모부"), ("사장님께요", "사장님"),
                                             ("할아버지께 보내줘", "할아버지")])
async def test_someone_honoured_with_kke_is_still_the_name(reply: str, name: str) -> None:
    reading, _, _ = await answer("5만원 보내줘", reply)
    assert reading["slots"] == {"target": name}


@pytest.mark.parametrize("reply", ["4만원 쏠게요", "9만원 부칠게", "3만원만 쏠래"])
async def test_a_flow_verb_written_in_its_a_eo_form_is_known_in_its_other_forms(
        reply: str) -> None:
    """The transfer's keywords include "쏴" and "부쳐": "쏠게", "부칠게" are those verbs."""
    reading, _, stage = await answer("형한테 보내줘", reply)
    assert set(reading["slots"]) == {"amount"} and stage == "READY"


@pytest.mark.parametrize("reply", ["쏘지 마세요", "부치지 마", "안 쏠래요"])
async def test_its_negated_stem_at_the_confirmation_cancels(reply: str) -> None:
    reading, stage = await confirming("형한테 2만원 보내줘", reply)
    assert reading["decision"] == "cancel" and stage == "CANCELLED"
