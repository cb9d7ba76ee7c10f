"""A `sensitive: true` slot is masked wherever its value could be seen: the slots, the batch
queue and a correction's old value in DONE's state_snapshot, the turn's reading in `_trace`,
every event of a conversation, completed tasks; and a masked value is never mistaken for
another (a repeated request is told apart by its real values)."""

from __future__ import annotations

import json
from pathlib import Path

from engine.store import MemoryStore
from tests.fakes.bank import Bank
from tests.test_money_safety import bank, bank_flow, engine_for  # noqa: F401 - the fixture


async def test_a_queued_task_shows_its_sensitive_value_masked(tmp_path: Path,
                                                             bank: Bank) -> None:  # noqa: F811
    engine = engine_for(bank_flow(tmp_path, sensitive=True), bank, MemoryStore())
    done = await engine.reply("q", "김민수한테 만원, 박지영한테 2만원 보내줘")
    snapshot = done.state_snapshot
    assert snapshot["stage"] == "READY" and len(snapshot["task_queue"]) == 1
    seen = json.dumps({"snapshot": snapshot, "trace": done.trace}, ensure_ascii=False)
    assert "박지영" not in seen and "김민수" not in seen
    assert snapshot["task_queue"][0]["amount"] == 20000  # only the sensitive slot is masked
    await engine.aclose()


CONVERSATION = ["김민수한테 만원 보내줘", "잔액 얼마야?", "응 계속", "아니 박지영한테", "확인",
                "김민수한테 만원, 박지영한테 2만원 보내줘", "확인", "취소"]


async def test_no_event_of_a_conversation_shows_a_sensitive_value(tmp_path: Path,
                                                                  bank: Bank) -> None:  # noqa: F811
    """Every event on the wire, DONE's snapshot (a correction's old value included), trace
    and stack: only the replies' own words, which the flow's templates write, may say it."""
    from engine.runtime.values.events import wire

    engine = engine_for(bank_flow(tmp_path, sensitive=True), bank, MemoryStore())
    corrected = False
    for message in CONVERSATION:
        async for event in engine.turn("s", message):
            name, payload = wire(event)
            if isinstance(payload, dict):
                corrected = corrected or bool(
                    payload.get("state_snapshot", {}).get("meta", {}).get("corrected"))
                payload = {k: v for k, v in payload.items() if k != "message"}
            seen = json.dumps(payload, ensure_ascii=False)
            assert "김민수" not in seen and "박지영" not in seen, (message, name, seen[:300])
    assert corrected  # the correction's old value was there to be masked
    await engine.aclose()


async def test_two_masked_recipients_are_not_the_same_request(tmp_path: Path,
                                                               bank: Bank) -> None:  # noqa: F811
    engine = engine_for(bank_flow(tmp_path, sensitive=True), bank, MemoryStore())
    await engine.reply("s", "김민수한테 만원 보내줘")
    await engine.reply("s", "확인")
    other = await engine.reply("s", "박지영한테 만원 보내줘")
    assert "방금 같은 요청" not in other.message
    await engine.reply("s", "취소")
    same = await engine.reply("s", "김민수한테 만원 보내줘")
    assert "방금 같은 요청" in same.message
    await engine.aclose()
