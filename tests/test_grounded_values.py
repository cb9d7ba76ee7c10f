"""A model never invents a slot value: what it sets must be in what the user said (a name
in the message, an amount among its readings, a date among its dates, an enum value by a
synonym). An ungrounded value is dropped, the slot asked, and the trace says so; a slot
marked `extract: {grounded: false}` takes what the model infers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT, TODAY

INVENTS = """\
# A model that reads the message and adds what nobody said.
- repeat: true
  json:
    intent: transfer
    confidence: 0.95
    operations:
      - {op: set, slot: target, value: 할머니}
      - {op: set, slot: amount, value: 10000}
      - {op: set, slot: when, value: "2026-11-23"}
"""


def engine_for(tmp_path: Path, flow: str | None = None) -> Engine:
    fixture = tmp_path / "invents.yaml"
    fixture.write_text(INVENTS, encoding="utf-8")
    path = ROOT / "flows" / "transfer.yaml"
    if flow is not None:
        path = tmp_path / "transfer.yaml"
        path.write_text(flow, encoding="utf-8")
        shutil.copytree(ROOT / "prompts", tmp_path / "prompts", dirs_exist_ok=True)
    return Engine(compile_file(path), store=MemoryStore(), clock=lambda: TODAY,
                  settings=load_settings({"FLOWCTL_MODEL_FAST": f"scripted:{fixture}"}))


@pytest.mark.parametrize(("message", "kept"), [
    ("할머니께 좀 넣어드려", {"target": "할머니"}),
    ("할머니께 만원 넣어드려", {"target": "할머니", "amount": 10000}),
    ("내일 할머니께 일만 원 넣어", {"target": "할머니", "amount": 10000, "when": "2026-11-23"}),
    ("돈 좀 넣어야 돼", {}),
])
async def test_only_values_the_message_says_are_kept(tmp_path: Path, message: str,
                                                     kept: dict[str, object]) -> None:
    engine = engine_for(tmp_path)
    done = await engine.reply("s", message)
    reading = done.trace["reading"]
    assert reading["by"] == "model" and reading["slots"] == kept
    dropped = len(kept) < 3
    assert ("UNGROUNDED_VALUE" in done.trace.get("failure_tags", [])) is dropped
    await engine.aclose()


async def test_a_slot_may_take_what_the_model_infers(tmp_path: Path) -> None:
    flow = (ROOT / "flows" / "transfer.yaml").read_text(encoding="utf-8").replace(
        "ask: ask_when}", "ask: ask_when, extract: {grounded: false}}")
    engine = engine_for(tmp_path, flow)
    done = await engine.reply("s", "할머니께 만원 넣어드려")
    assert done.trace["reading"]["slots"] == {"target": "할머니", "amount": 10000,
                                              "when": "2026-11-23"}
    await engine.aclose()
