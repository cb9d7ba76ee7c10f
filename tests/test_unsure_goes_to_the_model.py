"""With a model configured, what the rules are not sure of reaches the turn's one call and
the call's reading decides; what they settle (a yes, a cancel, a plain answer) makes no call.
Offline, the same messages are asked back. And the held-out paraphrase set (intents given
only a description and examples) routes nothing wrong: what examples cannot place goes to
the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli import main
from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT, TODAY

READS = """\
# The model reads what the rules leave: a tentative amount, small talk, a vague request.
- match: "2만원\\\\?$"
  repeat: true
  json: {intent: transfer, confidence: 0.9, operations: [{op: set, slot: amount, value: 20000}]}
- match: "돈 좀"
  repeat: true
  json: {intent: transfer, confidence: 0.9, operations: []}
- repeat: true
  json: {intent: null, confidence: 0.2, operations: []}
"""


def engine_for(tmp_path: Path) -> Engine:
    fixture = tmp_path / "reads.yaml"
    fixture.write_text(READS, encoding="utf-8")
    service = compile_file(ROOT / "flows" / "transfer.yaml")
    return Engine(service, store=MemoryStore(), clock=lambda: TODAY,
                  settings=load_settings({"FLOWCTL_MODEL_FAST": f"scripted:{fixture}"}))


async def reading(engine: Engine, session: str, *messages: str) -> dict[str, object]:
    for message in messages[:-1]:
        await engine.reply(session, message)
    done = await engine.reply(session, messages[-1])
    return {**done.trace["reading"], "stage": done.state_snapshot["stage"],
            "calls": sum("provider" in a for a in done.trace["agents"])}


async def test_a_question_mid_flow_is_read_by_the_model(tmp_path: Path) -> None:
    engine = engine_for(tmp_path)
    read = await reading(engine, "a", "동생한테 보내줘", "2만원?")
    assert read["by"] == "model" and read["slots"] == {"amount": 20000} and read["calls"] == 1
    assert read["stage"] == "READY"


async def test_a_request_the_rules_cannot_place_is_routed_by_the_model(tmp_path: Path) -> None:
    engine = engine_for(tmp_path)
    read = await reading(engine, "b", "돈 좀 부쳐야 하는데")
    assert read["intent"] == "transfer" and read["by"] == "model" and read["calls"] == 1


@pytest.mark.parametrize("message", ["확인", "네 송금해 주세요", "취소", "그만둘래"])
async def test_a_decision_makes_no_call(tmp_path: Path, message: str) -> None:
    engine = engine_for(tmp_path)
    read = await reading(engine, "c", "동생한테 2만원 보내줘", message)
    assert read["by"] == "rules" and read["calls"] == 0 and read["decision"] in ("confirm",
                                                                                 "cancel")


async def test_a_plain_answer_makes_no_call(tmp_path: Path) -> None:
    engine = engine_for(tmp_path)
    read = await reading(engine, "d", "동생한테 보내줘", "2만원")
    assert read["by"] == "rules" and read["calls"] == 0 and read["slots"] == {"amount": 20000}


def test_held_out_paraphrases_route_nothing_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    flow = ROOT / "tests" / "fixtures" / "paraphrase" / "banking.yaml"
    # 0 wrong settlements (the unplaced go to the model), and at least 60 % placed from the
    # examples alone (62.2 % when written; the target is 80 %)
    assert main(["eval", str(flow), "--fail-under", "60"]) == 0
    assert "wrong settlements   0 (harmful 0)" in capsys.readouterr().out


def test_a_likeness_must_be_surer_to_leave_the_task_at_hand() -> None:
    """Mid-flow, another intent found only by the learned model needs 0.75 to interrupt: a
    question about the transfer at hand is not a question about the history."""
    from engine.runtime.understanding import routing

    service = compile_file(ROOT / "flows" / "transfer.yaml")
    running = service.flows["transfer"]
    assert routing.other_intent("응? 누구한테 보낸다고?", service, running) is None
    other = routing.other_intent("지금까지 보낸 돈 목록 보여줄래", service, running)
    assert other is not None and other.name == "history"


BANDED_READS = """\
- repeat: true
  json: {intent: order_status, confidence: 0.95, operations: []}
"""


async def test_rules_under_the_act_bound_leave_the_intent_to_the_model(tmp_path: Path) -> None:
    """An intent the rules place under its `act` bound is not sure: with a model configured
    the call decides (offline the bands would ask "주문 조회를 도와드릴까요?")."""
    fixture = tmp_path / "reads.yaml"
    fixture.write_text(BANDED_READS, encoding="utf-8")
    engine = Engine(compile_file(ROOT / "flows" / "commerce.yaml"), store=MemoryStore(),
                    clock=lambda: TODAY,
                    settings=load_settings({"FLOWCTL_MODEL_FAST": f"scripted:{fixture}"}))
    done = await engine.reply("u", "내 주문 왔어?", context={"is_logged_in": True})
    assert done.trace["reading"]["by"] == "model"
    assert sum("provider" in a for a in done.trace["agents"]) == 1
    assert done.state_snapshot["flow"] == "status"
    await engine.aclose()
