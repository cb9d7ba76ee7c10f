"""Offline (no model), a first message no intent takes but the rules half-understood — a
value only one flow takes, a keyword under its threshold — is asked about ("혹시 돈을 보내는
요청 말씀이신가요?") instead of being answered with the default flow's menu; a yes starts that
flow with the message's values, a no lets the default flow answer it. Small talk, a negated
request or a hedged one is never asked about."""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT

ASKED = "혹시 돈을 보내는 요청 말씀이신가요?"


@pytest.mark.parametrize(("message", "slots"), [
    ("7만원", {"amount": 70000}), ("이모한테", {"target": "이모"}),
])
async def test_a_value_only_the_transfer_takes_is_asked_about_and_a_yes_keeps_it(
        transfer: CompiledService, message: str, slots: dict[str, object]) -> None:
    engine = Engine(transfer, store=MemoryStore())
    first = await engine.reply("s", message)
    assert first.state_snapshot.get("flow") is None and ASKED in first.message
    done = await engine.reply("s", "네")
    assert done.state_snapshot["flow"] == "transfer"
    assert {k: done.state_snapshot["slots"][k] for k in slots} == slots
    assert done.state_snapshot["stage"] == "FILLING"


async def test_every_value_the_transfer_needs_starts_it_at_its_confirmation(
        transfer: CompiledService) -> None:
    engine = Engine(transfer, store=MemoryStore())  # no verb, but whom and how much
    first = await engine.reply("s", "외삼촌께 2만 5천원")
    assert (first.state_snapshot["flow"], first.state_snapshot["stage"]) == ("transfer", "READY")
    assert {k: first.state_snapshot["slots"][k] for k in ("target", "amount")} == \
        {"target": "외삼촌", "amount": 25000}


async def test_a_no_lets_the_default_flow_answer(transfer: CompiledService) -> None:
    engine = Engine(transfer, store=MemoryStore())
    await engine.reply("s", "3만원")
    done = await engine.reply("s", "아니요")
    assert done.state_snapshot["flow"] == "chat" and done.message


@pytest.mark.parametrize("message", ["삼촌한테 돈 보내지 마", "안녕하세요", "고마워요",
                                     "누나가 5만원 보내달래", "월급 들어오면 2만원"])
async def test_small_talk_a_negation_or_a_hedge_is_not_asked_about(
        transfer: CompiledService, message: str) -> None:
    done = await Engine(transfer, store=MemoryStore()).reply("s", message)
    assert ASKED not in done.message


async def test_an_id_only_verification_takes_is_asked_about_in_english() -> None:
    engine = Engine(compile_file(ROOT / "flows" / "cards.yaml"), store=MemoryStore())
    first = await engine.reply("s", "u9031")
    assert first.state_snapshot.get("flow") is None and first.message.startswith("Did you mean")
    done = await engine.reply("s", "yes")
    assert done.state_snapshot["flow"] == "verify"
    assert done.state_snapshot["slots"]["user_id"] == "u9031"


async def test_neither_yes_nor_no_asks_the_same_question_again() -> None:
    engine = Engine(compile_file(ROOT / "flows" / "cards.yaml"), store=MemoryStore())
    first = await engine.reply("s", "u2207")
    again = await engine.reply("s", "hmm")
    assert again.message == first.message and again.message.startswith("Did you mean")
    done = await engine.reply("s", "yes please")
    assert done.state_snapshot["slots"]["user_id"] == "u2207"
