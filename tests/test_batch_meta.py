"""A batch's bookkeeping in the words the transfer spec uses: ``meta.batch_executed`` (tasks
whose irreversible action ran) and ``meta.last_cancelled`` (the task that just ended was
cancelled and the next one goes on), beside ``batch_counts``."""

from __future__ import annotations

from engine.compiler import compile_file
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT


async def test_a_batch_counts_executed_tasks_and_says_when_one_was_cancelled() -> None:
    engine = Engine(compile_file(ROOT / "flows" / "transfer.yaml"), store=MemoryStore())
    first = await engine.reply("s", "이모한테 2만원, 삼촌한테 3만원, 고모한테 4만원 보내줘")
    meta = first.state_snapshot["meta"]
    assert meta["batch_total"] == 3 and "batch_executed" not in meta
    meta = (await engine.reply("s", "네")).state_snapshot["meta"]
    assert (meta["batch_executed"], meta["last_cancelled"]) == (1, False)
    meta = (await engine.reply("s", "취소할게요")).state_snapshot["meta"]
    assert (meta["batch_executed"], meta["last_cancelled"]) == (1, True)
    assert meta["batch_counts"] == {"EXECUTED": 1, "CANCELLED": 1}
    done = await engine.reply("s", "확인")
    assert done.message == "3건 중 2건 이체가 완료됐어요."
