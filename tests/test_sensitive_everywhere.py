"""A `sensitive: true` slot is masked wherever its value could be seen: the slots and the
batch queue of DONE's state_snapshot, the turn's reading in `_trace`, completed tasks."""

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
