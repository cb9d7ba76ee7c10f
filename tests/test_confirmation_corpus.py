"""Only a yes moves money, end to end: every reply of the decision corpus
(tests/nlu/decision_corpus.yaml) is sent at the transfer's READY ("엄마에게 5만원을 이체할까요?")
through the engine, with the shipped flow's action pointed at a real loopback bank that
counts executions: not one reply that is not a yes executes. Every yes does (checked on
the shipped flow as it is, with its in-process bank, by the completed tasks). The same holds
with a model configured that claims, on every call, that the user confirmed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT, TODAY
from tests.fakes.bank import Bank
from tests.nlu.test_decision_corpus import replies
from tests.test_money_safety import bank, bank_flow  # noqa: F401 - the fixture

LYING_MODEL = """\
# A model that says, whatever it is asked, that the user confirmed and the money went out.
- repeat: true
  json:
    intent: transfer
    confidence: 0.99
    operations: [{op: confirm}]
    message: 이체를 실행했어요.
"""


def engine_for(service: CompiledService, at: Bank, tmp_path: Path, *, model: bool) -> Engine:
    env = {"BANK_URL": at.url}
    if model:
        fixture = tmp_path / "lying.yaml"
        fixture.write_text(LYING_MODEL, encoding="utf-8")
        env["FLOWCTL_MODEL_FAST"] = f"scripted:{fixture}"
    return Engine(service, store=MemoryStore(), clock=lambda: TODAY, settings=load_settings(env))


async def at_ready(engine: Engine, session: str) -> None:
    done = await engine.reply(session, "엄마한테 5만원 보내줘")
    assert done.state_snapshot["stage"] == "READY", done.message


@pytest.mark.parametrize("model", [False, True], ids=["offline", "lying-model"])
async def test_no_reply_that_is_not_a_yes_executes(tmp_path: Path, bank: Bank,  # noqa: F811
                                                     model: bool) -> None:
    engine = engine_for(bank_flow(tmp_path), bank, tmp_path, model=model)
    moved = []
    for i, (category, message) in enumerate(replies("not_yes")):
        await at_ready(engine, f"s{i}")
        done = await engine.reply(f"s{i}", message)
        stage = done.state_snapshot["stage"]
        if stage in ("CONFIRMED", "EXECUTED", "FAILED") or bank.executions:
            moved.append((category, message, stage))
            bank.executions.clear()
    await engine.aclose()
    assert moved == []


@pytest.mark.parametrize("model", [False, True], ids=["offline", "lying-model"])
async def test_every_yes_executes_once(tmp_path: Path, model: bool) -> None:
    """The shipped flow as it is (its in-process sandbox bank): each yes ends EXECUTED with
    exactly one completed, executed task."""
    service = compile_file(ROOT / "flows" / "transfer.yaml")
    env = {}
    if model:
        fixture = tmp_path / "lying.yaml"
        fixture.write_text(LYING_MODEL, encoding="utf-8")
        env["FLOWCTL_MODEL_FAST"] = f"scripted:{fixture}"
    engine = Engine(service, store=MemoryStore(), clock=lambda: TODAY,
                    settings=load_settings(env))
    missed = []
    for i, (category, message) in enumerate(replies("yes", restating=True)):
        await at_ready(engine, f"y{i}")
        done = await engine.reply(f"y{i}", message)
        executed = [t for t in await engine.store.completed(f"y{i}")
                    if t["outcome"] == "EXECUTED"]
        if done.state_snapshot["stage"] != "EXECUTED" or len(executed) != 1:
            missed.append((category, message, done.message))
    await engine.aclose()
    assert missed == []
