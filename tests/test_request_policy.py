"""The request context, the service guard, failure tags and agent outputs, on the engine:
what reaches templates, what is refused, what a blocked turn leaves behind."""

from __future__ import annotations

from typing import Any

import pytest

from engine.compiler import compile_file, compile_service
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.dsl import load_service_text
from engine.errors import FlowDefinitionError
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done
from engine.store import MemoryStore
from tests.conftest import ROOT

SHOP = ROOT / "flows" / "shop.yaml"
SELLER = {"logged_in": True, "user_id": "s-17", "user_type": "seller"}
# the understanding model has an empty replies file: any call would fail and show in the trace
NO_CALLS = ROOT / "tests" / "fixtures" / "shop.replies.yaml"


@pytest.fixture(scope="module")
def shop() -> CompiledService:
    return compile_file(SHOP)


def engine_of(service: CompiledService, **env: str) -> Engine:
    return Engine(service, store=MemoryStore(), settings=load_settings(env))


async def test_context_reaches_templates_and_the_old_signature_still_works(
        shop: CompiledService) -> None:
    engine = engine_of(shop)
    done = await engine.reply("a", "안녕하세요", context=SELLER)
    assert done.message.startswith("판매자님") and "failure_tags" not in done.trace
    done = await engine.reply("b", "이번 달 매출", context=SELLER)
    assert "s-17님의 이번 달 매출" in done.message
    events = [e async for e in engine.turn("c", "안녕", context={"logged_in": False})]
    assert isinstance(events[-1], Done) and events[-1].message.startswith("고객님")


@pytest.mark.parametrize(("context", "problem"), [
    (None, "context: 'logged_in' is a required property"),
    ({"logged_in": "yes"}, "context.logged_in: 'yes' is not of type 'boolean'"),
    ({"logged_in": True, "user_type": "admin"}, "context.user_type: 'admin' is not one of"),
    ({"logged_in": True, "role": "x"}, "Additional properties are not allowed"),
])
async def test_a_context_the_schema_refuses_runs_nothing(
        shop: CompiledService, context: dict[str, Any] | None, problem: str) -> None:
    engine = engine_of(shop)
    done = await engine.reply("s", "노트북 추천해줘", context=context)
    assert done.trace.get("error") == "bad_context"
    assert problem in done.message and done.trace["agents"] == []
    assert await engine.store.load("s") is None  # nothing saved


async def test_a_service_without_a_context_schema_refuses_a_context(
        transfer: CompiledService) -> None:
    engine = engine_of(transfer)
    done = await engine.reply("s", "엄마한테 1만원 보내줘", context={"logged_in": True})
    assert done.trace.get("error") == "bad_context"
    assert "declares no request context" in done.message
    assert (await engine.reply("s", "엄마한테 1만원 보내줘")).state_snapshot["stage"] == "READY"


async def test_a_blocked_message_leaves_the_session_as_it_was(
        transfer: CompiledService) -> None:
    """The shipped transfer flow's guard: a password is never an answer, nor remembered."""
    engine = engine_of(transfer)
    await engine.reply("s", "엄마한테 보내줘")
    before = (await engine.store.load("s")).data  # type: ignore[union-attr]
    done = await engine.reply("s", "비밀번호는 1234야")
    assert "저장하지 않았어요" in done.message
    assert done.trace["failure_tags"] == ["POLICY_BLOCKED"]
    assert [a["agent"] for a in done.trace["agents"]] == ["guard"]
    after = (await engine.store.load("s")).data  # type: ignore[union-attr]
    assert after == before  # no slot, no filling turn, no history: not an answer
    assert done.state_snapshot["stage"] == "FILLING" and done.next_action == "ASK"
    done = await engine.reply("s", "만원")
    assert done.state_snapshot["stage"] == "READY"


async def test_the_guard_makes_no_model_call_even_with_a_model(shop: CompiledService) -> None:
    engine = engine_of(shop, FLOWCTL_MODEL_PICKER=f"scripted:{NO_CALLS}")
    done = await engine.reply("s", "노트북 추천해줘, 카드번호는 1234-5678-9012-3456",
                              context={"logged_in": True})
    assert done.trace["failure_tags"] == ["POLICY_BLOCKED"]
    assert [a["agent"] for a in done.trace["agents"]] == ["guard"]
    assert "그램" not in done.message


async def test_agent_output_is_per_turn_and_false_after_a_fallback(shop: CompiledService) -> None:
    engine = engine_of(shop, FLOWCTL_MODEL_PICKER=f"scripted:{NO_CALLS}")
    done = await engine.reply("s", "노트북 추천해줘", context={"logged_in": True})
    assert "189만원" in done.message and "failure_tags" not in done.trace
    done = await engine.reply("s", "추천 장애", context={"logged_in": True})
    assert done.trace["failure_tags"] == ["AGENT_CALL_FAILED"]
    assert "비쌀 수" not in done.message  # `agents.picker` is false: the condition is false


def _compile(text: str) -> CompiledService:
    spec, source = load_service_text(text, "inline.yaml")
    return compile_service(spec, source)


def test_a_bad_context_schema_and_guard_are_located_findings() -> None:
    text = """\
service: s
default_flow: main
context: {type: object, properties: {n: {type: nonsense}}}
guard:
  rules:
    - {patterns: ['(unclosed'], say: nowhere}
flows:
  main: {initial: A, stages: {A: {say: hi}}}
messages: {hi: hi}
"""
    with pytest.raises(FlowDefinitionError) as caught:
        _compile(text)
    found = {(f.code, f.location.line) for f in caught.value.findings}
    assert found == {("FL019", 3), ("FL033", 6), ("FL020", 6)}


async def test_a_low_confidence_turn_makes_one_call_and_routes_nothing(
        shop: CompiledService) -> None:
    engine = engine_of(shop, FLOWCTL_MODEL_FAST=f"scripted:{NO_CALLS}",
                       FLOWCTL_MODEL_PICKER=f"scripted:{NO_CALLS}")
    done = await engine.reply("s", "뭐가 좋을까", context={"logged_in": True})
    assert done.trace["failure_tags"] == ["INTENT_LOW_CONFIDENCE"]
    assert [a["agent"] for a in done.trace["agents"]] == ["understand", "intent"]
    stored = (await engine.store.load("s")).data  # type: ignore[union-attr]
    assert done.state_snapshot["flow"] is None and stored.get("clarify") is None
    done = await engine.reply("s", "요즘 쓸만한 거 있어?", context={"logged_in": True})
    assert done.message == "상품 추천을 원하시는 게 맞나요?" and "failure_tags" not in done.trace
    done = await engine.reply("s", "네", context={"logged_in": True})
    assert done.state_snapshot["flow"] == "recommend" and "버즈3" in done.message
