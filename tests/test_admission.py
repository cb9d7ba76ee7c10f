"""One admission step: the engine says whether a turn may run (``Engine.admit``), measuring
the text understanding reads; the HTTP layer answers a refusal by its kind and never
measures again, so the two can never disagree about a message's length."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import Settings
from engine.runtime.engine import Engine
from engine.runtime.values.admission import Refusal
from engine.store import MemoryStore
from engine.transports.http import create_app

LIMIT = 40
COMMERCE = Path(__file__).parent.parent / "flows" / "commerce.yaml"
CHAT = "/v1/agent/chat"
INVISIBLE = ["\u200b", "\u200d", "\ufeff", "\u2060", "\u202e"]  # zero-width, BOM, bidi


@pytest.fixture(scope="module")
def commerce() -> CompiledService:
    return compile_file(COMMERCE)


def engine_of(service: CompiledService) -> Engine:
    return Engine(service, store=MemoryStore(), settings=Settings(max_message_chars=LIMIT))


def padded(text: str, pad: str, to: int) -> str:
    """``text`` with ``pad`` between its characters until it is ``to`` characters long."""
    out = list(text)
    while len("".join(out)) < to:
        out.insert(1, pad)
    return "".join(out)


async def post(engine: Engine, message: str, context: object = None) -> httpx.Response:
    app = create_app(engine, settings=engine.settings)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        body: dict[str, object] = {"session_id": "u", "message": message}
        if context is not None:
            body["context"] = context
        return await client.post(CHAT, json=body)


@pytest.mark.parametrize("pad", INVISIBLE)
async def test_invisible_padding_does_not_make_a_message_too_long(
        transfer: CompiledService, pad: str) -> None:
    """Over the limit as sent, under it as read: admitted by the engine and by HTTP alike."""
    message = padded("잔액 알려줘", pad, LIMIT + 10)
    engine = engine_of(transfer)
    assert len(message) > LIMIT
    assert engine.admit(message) is None
    response = await post(engine, message)
    assert response.status_code == 200
    assert response.json()["interaction"]["_trace"].get("failure_tags") is None


@pytest.mark.parametrize("message", ["가" * (LIMIT + 1), "send money " * 5,
                                     " " * 30 + "x" * (LIMIT + 1) + "\n" * 30])
async def test_a_message_over_the_limit_is_refused_the_same_everywhere(
        transfer: CompiledService, message: str) -> None:
    engine = engine_of(transfer)
    refusal = engine.admit(message)
    assert refusal is not None and refusal.kind == "message_too_long"
    assert refusal.limit == LIMIT and refusal.tags == ["CONTEXT_OVERFLOW"]
    done = await engine.reply("u", message)
    assert done.refusal == refusal
    assert done.trace["failure_tags"] == ["CONTEXT_OVERFLOW"]
    response = await post(engine, message)
    assert response.status_code == 413
    body = response.json()
    assert body["error"] == "message_too_long" and body["limit"] == LIMIT
    assert body["interaction"]["message"] == refusal.text


@pytest.mark.parametrize("message", ["", "   ", "\u200b\u200b", "\n\t "])
async def test_an_empty_message_is_answered_by_a_done_not_an_error(
        transfer: CompiledService, message: str) -> None:
    engine = engine_of(transfer)
    refusal = engine.admit(message)
    assert refusal is not None and refusal.kind == "empty_message" and refusal.error is None
    response = await post(engine, message)
    assert response.status_code == 200
    assert response.json()["interaction"]["message"] == refusal.text


@pytest.mark.parametrize("context", [{"is_logged_in": "yes"}, {}, {"is_logged_in": True,
                                                                    "card": "4111"}])
@pytest.mark.parametrize("message", ["", "주문 조회해줘", "x" * (LIMIT + 1)])
async def test_a_bad_context_is_refused_whatever_the_message(
        commerce: CompiledService, context: dict[str, object], message: str) -> None:
    """A context the service's schema refuses is the caller's mistake: refused first (422 over
    HTTP, with the schema's problems), whatever the message is."""
    engine = engine_of(commerce)
    refusal = engine.admit(message, context)
    assert refusal is not None and refusal.kind == "bad_context"
    assert refusal.problems and refusal.error == "bad_context"
    response = await post(engine, message, context)
    assert response.status_code == 422
    assert response.json()["problems"] == list(refusal.problems)
    done = await engine.reply("u", message, context=context)
    assert done.refusal == refusal and done.trace["error"] == "bad_context"


async def test_someone_elses_session_is_a_typed_refusal(transfer: CompiledService) -> None:
    engine = engine_of(transfer)
    await engine.reply("s", "잔액 알려줘", owner="alice")
    done = await engine.reply("s", "잔액 알려줘", owner="mallory")
    assert isinstance(done.refusal, Refusal) and done.refusal.kind == "forbidden"
    assert done.trace["error"] == "forbidden"
    assert done.state_snapshot["slots"] == {} or not any(done.state_snapshot["slots"].values())


async def test_an_admitted_turn_carries_no_refusal(transfer: CompiledService) -> None:
    done = await engine_of(transfer).reply("u", "잔액 알려줘")
    assert done.refusal is None and "error" not in done.trace


async def asked_then_refused(engine: Engine, message: str) -> tuple[str, httpx.Response]:
    """The question of a transfer's confirmation, then ``message`` refused over HTTP."""
    ready = await engine.reply("u", "엄마한테 3만원 보내줘")
    return ready.message, await post(engine, message)


@pytest.mark.parametrize("message", ["가" * (LIMIT + 1), "  \u200b ", "네 " * LIMIT])
async def test_a_refused_message_asks_the_waiting_question_again(
        transfer: CompiledService, message: str) -> None:
    """At a confirmation, a message refused before the turn (too long, empty) says why and
    asks the question again; nothing is read, nothing is sent."""
    engine = engine_of(transfer)
    question, response = await asked_then_refused(engine, message)
    interaction = response.json()["interaction"]
    refusal = engine.admit(message)
    assert refusal is not None and interaction["message"] == f"{refusal.text} {question}"
    assert interaction["state_snapshot"]["stage"] == "READY"
    assert interaction["state_snapshot"]["slots"]["amount"] == 30000
    assert await engine.store.completed("u") == []


async def test_a_refused_message_outside_a_flow_says_only_why(
        transfer: CompiledService) -> None:
    engine = engine_of(transfer)
    await engine.reply("u", "엄마한테 3만원 보내줘")
    await engine.reply("u", "확인")  # the transfer ends: no question waits
    response = await post(engine, "가" * (LIMIT + 1))
    refusal = engine.admit("가" * (LIMIT + 1))
    assert refusal is not None and response.json()["interaction"]["message"] == refusal.text


def test_a_waiting_question_holding_a_sensitive_value_is_not_said_again() -> None:
    from engine.runtime.engine import _still_asked
    from engine.runtime.values.session import SessionState

    pizza = compile_file(Path(__file__).parent.parent / "flows" / "pizza.yaml")
    flow = pizza.flows["payment"]
    stage = next(name for name in flow.stages if flow.in_progress(name))
    said = {"role": "assistant", "content": "Pay with card 4111111111111111?"}
    state = SessionState(flow=flow.name, stage=stage,
                         slots={"card_number": "4111111111111111"}, raw_history=[said])
    assert _still_asked(state, pizza) is None
    state.slots["card_number"] = "5500000000000004"
    assert _still_asked(state, pizza) == said["content"]
