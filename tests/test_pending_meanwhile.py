"""An unknown outcome traps no conversation: another flow can begin meanwhile.

The bank answers 5xx, so the transfer it may have executed stays pending. A message that
asks for another flow (the balance, the history, a memo) starts it on top of the waiting
transfer; when that flow is done, the bank is asked again with the same key — the transfer
is never asked "go on?", so no "no" can cancel money that may have moved. The waiting task
is still listed as pending by every store, so the operator sees it. The bank is the counting
loopback bank of tests/fakes/bank.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.runtime.engine import Engine
from engine.store.base import has_pending
from engine.transports.http.pending import pending_actions
from tests.fakes.bank import Bank
from tests.test_money_safety import bank_flow, engine_for

WAITING = "앞의 요청은 아직 결과를 확인하는 중이에요"
UNKNOWN = "요청하신 작업의 결과를 아직 확인하지 못했어요"

MEMO = """
  memo:
    description: 메모를 남긴다
    slots: [note]
    initial: INIT
    stages:
      INIT: {}
      ASKING: {say: ask_note}
      SAVED: {terminal: true, say: memo_saved}
      DROPPED: {terminal: true, say: memo_dropped}
    transitions:
      - {trigger: cancel, source: '*', dest: DROPPED}
      - {trigger: update, source: [INIT, ASKING], dest: SAVED, when: not missing}
      - {trigger: update, source: [INIT, ASKING], dest: ASKING}
"""


def with_memo(directory: Path) -> Path:
    """The bank transfer service plus a memo flow that asks one question (it stays open)."""
    bank_flow(directory)
    path = directory / "flows" / "bank.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("intents:\n", "intents:\n  memo:\n    description: 메모 남기기\n"
                        "    keywords: [메모]\n", 1)
    text = text.replace("routes:\n", "routes:\n  memo: memo\n", 1)
    text = text.replace("slots:\n", "slots:\n  note:\n    type: string\n    description: 메모"
                        "\n    required: true\n    extract: {free_text: true}\n", 1)
    text = text.replace("\nflows:\n", "\nflows:" + MEMO, 1)
    text = text.replace("\nmessages:\n", "\nmessages:\n  ask_note: 어떤 메모를 남길까요?\n"
                        "  memo_saved: '메모했어요: {{ slots.note }}'\n"
                        "  memo_dropped: 메모는 그만둘게요.\n", 1)
    path.write_text(text, encoding="utf-8")
    return path


async def unknown_transfer(engine: Engine, bank: Bank, session: str = "s") -> None:
    await engine.reply(session, "엄마한테 1만원 보내줘")
    bank.status = 503
    done = await engine.reply(session, "확인")
    assert done.state_snapshot["stage"] == "CONFIRMED" and UNKNOWN in done.message


@pytest.mark.parametrize("other", ["잔액 얼마야?", "통장에 얼마 남았어", "이체 내역 보여줘"])
async def test_another_flow_begins_while_an_outcome_is_unknown(
        tmp_path: Path, bank: Bank, other: str) -> None:
    engine = engine_for(bank_flow(tmp_path), bank)
    await unknown_transfer(engine, bank)
    asked = len(bank.requests)
    done = await engine.reply("s", other)
    assert WAITING in done.message and UNKNOWN not in done.message
    assert done.state_snapshot["flow"] == "transfer"  # the answer ended; the transfer waits
    assert done.state_snapshot["stage"] == "CONFIRMED"
    assert len(bank.requests) == asked + 3  # asked again once, at the start of the turn
    assert len({key for key, _ in bank.requests}) == 1  # always the same key
    bank.status = 200
    done = await engine.reply("s", "어떻게 됐어?")
    assert done.state_snapshot["stage"] == "EXECUTED" and len(bank.executions) == 1
    assert [c["outcome"] for c in await engine.store.completed("s")
            if c["flow"] == "transfer"] == ["EXECUTED"]


async def test_the_waiting_task_is_asked_again_when_the_flow_on_top_ends(
        tmp_path: Path, bank: Bank) -> None:
    engine = engine_for(compile_file(with_memo(tmp_path)), bank)
    await unknown_transfer(engine, bank)
    done = await engine.reply("s", "메모 하나 남길래")
    assert done.state_snapshot["flow"] == "memo" and WAITING in done.message
    assert [(f["flow"], f["stage"]) for f in done.state_snapshot["stack"]] == [
        ("transfer", "CONFIRMED")]
    assert await engine.store.pending_sessions() == ["s"]  # listed for the operator
    listed = await pending_actions(engine)
    assert [(p["flow"], p["stage"], p["action"]) for p in listed] == [
        ("transfer", "CONFIRMED", "send_money")]
    bank.status = 200
    done = await engine.reply("s", "우유 사기")
    assert done.message.startswith("메모했어요: 우유 사기")
    assert "이체" in done.message and done.state_snapshot["stage"] == "EXECUTED"
    assert "계속" not in done.message  # never "go on?" about a task that may have run
    assert len(bank.executions) == 1 and len({key for key, _ in bank.requests}) == 1
    assert await engine.store.pending_sessions() == []


async def test_the_background_round_settles_a_task_waiting_under_another_flow(
        tmp_path: Path, bank: Bank) -> None:
    """Nobody writes for a while: the background round (``finish_pending``, a turn with no
    message) asks the waiting transfer's bank again without disturbing the memo on top; the
    user's next message hears the outcome first and goes on with the memo."""
    engine = engine_for(compile_file(with_memo(tmp_path)), bank)
    await unknown_transfer(engine, bank)
    await engine.reply("s", "메모 하나 남길래")
    assert await engine.finish_pending("s") is not None  # still 503: unknown, stays below
    record = await engine.store.load("s")
    assert record is not None and record.data["flow"] == "memo"
    assert [(f["flow"], f.get("cause")) for f in record.data["stack"]] == [
        ("transfer", "pending")]
    assert "target" not in record.data["slots"]  # the memo's slots only, as it was
    bank.status = 200
    assert await engine.finish_pending("s") is not None
    assert len(bank.executions) == 1 and len({key for key, _ in bank.requests}) == 1
    assert [c["outcome"] for c in await engine.store.completed("s")] == ["EXECUTED"]
    assert await engine.store.pending_sessions() == []
    record = await engine.store.load("s")
    assert record is not None and (record.data["flow"], record.data["stage"]) == (
        "memo", "ASKING") and not record.data.get("stack")
    done = await engine.reply("s", "우유 사기")
    assert done.message.index("이체") < done.message.index("메모했어요: 우유 사기")
    assert done.state_snapshot["flow"] == "memo" and done.state_snapshot["stage"] == "SAVED"
    assert await engine.finish_pending("s") is None  # nothing left to settle


@pytest.mark.parametrize("answer", ["취소", "메모 안 할래, 취소", "그만할래"])
async def test_no_answer_in_the_flow_on_top_cancels_the_waiting_task(
        tmp_path: Path, bank: Bank, answer: str) -> None:
    engine = engine_for(compile_file(with_memo(tmp_path)), bank)
    await unknown_transfer(engine, bank)
    await engine.reply("s", "메모 남겨줘")
    done = await engine.reply("s", answer)  # ends the memo, not the transfer
    assert done.message.startswith("메모는 그만둘게요.")
    assert done.state_snapshot["flow"] == "transfer"
    assert done.state_snapshot["stage"] == "CONFIRMED" and UNKNOWN in done.message
    assert [c["outcome"] for c in await engine.store.completed("s")
            if c["flow"] == "transfer"] == []
    bank.status = 200
    assert (await engine.reply("s", "됐어?")).state_snapshot["stage"] == "EXECUTED"


@pytest.mark.parametrize("message", ["확인", "취소", "응", "엄마한테 1만원 보내줘", "됐어?", ""])
async def test_a_decision_or_the_same_request_is_about_the_waiting_task(
        tmp_path: Path, bank: Bank, message: str) -> None:
    """Only another flow's intent begins one: a yes, a cancel, the same request again or a
    question about it stays with the task (asked again, never cancelled, never paid twice)."""
    engine = engine_for(bank_flow(tmp_path), bank)
    await unknown_transfer(engine, bank)
    done = await engine.reply("s", message)
    assert done.state_snapshot["flow"] == "transfer" and done.state_snapshot["stack"] == []
    assert WAITING not in done.message
    assert len({key for key, _ in bank.requests}) == 1 and bank.executions == []


def frame_pending(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with its pending journal moved into a waiting task under another flow."""
    frame = {"kind": "interrupted", "flow": "transfer", "stage": "CONFIRMED", "slots": {},
             "meta": {}, "task_queue": [], "filling_turns": 0, "task_id": "t",
             "journal": data["journal"], "cause": "pending"}
    return {**data, "journal": {}, "flow": "memo", "stage": "ASKING", "stack": [frame]}


def test_has_pending_looks_under_the_flow_on_top() -> None:
    entry = {"action": "send_money", "key": "t:send_money", "status": "pending"}
    data = {"journal": {"send_money": entry}}
    assert has_pending(data) and has_pending(frame_pending(data))
    assert not has_pending({"journal": {"send_money": {**entry, "status": "done"}}})
    assert not has_pending({"stack": [{"journal": None}, "junk"]})
