"""Whatever a user types, at whatever point of a conversation, the turn is answered: no
message fails a turn in any shipped flow — at the start, while slots are collected, at a
confirmation — and none moves money unless it is a yes the rules read as the whole message.

Messages are generated (derandomised: the same cases every run) from pieces real messages
are made of — Korean syllables and jamo, numbers with units, names with particles, yes/no
words, punctuation, emoji, invisible and right-to-left characters, template syntax — and
from arbitrary text."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.nlu import yes_no
from engine.runtime.engine import Engine
from engine.store import MemoryStore

FLOWS = Path(__file__).parent.parent / "flows"
SHOPPER = {"is_logged_in": True, "user_type": "consumer"}
SCENES: dict[str, tuple[str, list[str], dict[str, Any] | None]] = {
    # name: (flow file, the turns that reach the point, the request context)
    "transfer-start": ("transfer.yaml", [], None),
    "transfer-filling": ("transfer.yaml", ["엄마한테 보내줘"], None),
    "transfer-ready": ("transfer.yaml", ["엄마한테 5만원 보내줘"], None),
    "pizza-filling": ("pizza.yaml", ["I'd like to order a pizza"], None),
    "cards-start": ("cards.yaml", [], None),
    "commerce-start": ("commerce.yaml", [], SHOPPER),
    "commerce-refund": ("commerce.yaml", ["ORD-1001 환불해 주세요"], SHOPPER),
}
MONEY_MOVED = {"EXECUTED", "DONE", "PAID", "REFUNDED"}

PIECES = st.sampled_from([
    "엄마", "아빠한테", "동생에게", "5만원", "3만 5천원", "10,000원", "$20", "0원", "-5000원",
    "999999999999999원", "내일", "모레", "12월 1일", "네", "응", "아니", "취소", "확인", "보내",
    "보내지 마", "말고", "도", "?", "!", "...", "ㅋㅋ", "ㅠㅠ", "ㅇㅇ", "👍", "🙏", "💸", "\u200b",
    "\u202e", "\ufeff", "{{ 7*7 }}", "{% raw %}", "${HOME}", "<script>", "'", '"', "\\", "\n",
    "ORD-1001", "P-105", "환불", "결제", "pizza", "large", "yes", "no", "cancel", "send",
    "100%", "2개", "한 개", "ㄱㄱ", "   ", "é", "ﾟ", "가" * 60,
])
MESSAGES = st.one_of(
    st.lists(PIECES, min_size=1, max_size=8).map(" ".join),
    st.lists(PIECES, min_size=1, max_size=6).map("".join),
    st.text(max_size=40),
    st.text(alphabet=st.characters(min_codepoint=0x1100, max_codepoint=0x11FF), max_size=8),
    st.text(alphabet=st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3), max_size=12),
)
_COMPILED: dict[str, CompiledService] = {}


def service(name: str) -> CompiledService:
    if name not in _COMPILED:
        _COMPILED[name] = compile_file(FLOWS / name)
    return _COMPILED[name]


async def turn(scene: str, message: str) -> tuple[Any, tuple[str, str] | None]:
    """The DONE of ``message`` at ``scene``, and the (flow, stage) the scene left."""
    file, before, context = SCENES[scene]
    engine = Engine(service(file), store=MemoryStore())
    where = None
    for said in before:
        snapshot = (await engine.reply("s", said, context=context)).state_snapshot
        where = (snapshot["flow"], snapshot["stage"])
    return await engine.reply("s", message, context=context), where


@pytest.mark.parametrize("scene", list(SCENES))
@settings(max_examples=60, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(message=MESSAGES)
def test_no_message_fails_a_turn_or_moves_money_unasked(scene: str, message: str) -> None:
    done, where = asyncio.run(turn(scene, message))
    assert done.trace.get("error") in (None, "bad_context"), (scene, message, done.message)
    assert isinstance(done.message, str) and done.message
    if done.state_snapshot.get("stage") in MONEY_MOVED and where is not None:
        flow = service(SCENES[scene][0])
        asked = flow.flows[where[0]].stages[where[1]]
        assert yes_no(message, asked.words or flow.words) == "confirm", \
            f"money moved at {scene} on {message!r}, which the stage's words read as no yes"


# -- conversations: random walks over the words each flow's own tests use ----------------------

def said_in_tests(flow: str) -> list[str]:
    """Every message the conversation tests of ``flow`` send (they reach every stage)."""
    from engine.testing.spec import load_tests

    spec, _, _ = load_tests(FLOWS / flow.replace(".yaml", ".test.yaml"))
    return sorted({t.user for c in spec.conversations for t in c.turns})


WALKS = {"transfer.yaml": None, "cards.yaml": None, "pizza.yaml": None,
         "commerce.yaml": SHOPPER}


@pytest.mark.parametrize("flow", list(WALKS))
@settings(max_examples=25, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_no_conversation_of_known_and_fuzzed_messages_fails_a_turn(flow: str,
                                                                  data: st.DataObject) -> None:
    """Six to twelve turns, each a message the flow's tests use, a piece, or a mix: the
    flow stack, interruptions, corrections and confirmations in orders nobody wrote."""
    known = st.sampled_from(said_in_tests(flow))
    messages = data.draw(st.lists(st.one_of(known, known, PIECES, st.tuples(known, PIECES).map(
        " ".join)), min_size=6, max_size=12))

    async def walk() -> list[tuple[str, Any]]:
        engine = Engine(service(flow), store=MemoryStore())
        return [(m, await engine.reply("s", m, context=WALKS[flow])) for m in messages]

    for message, done in asyncio.run(walk()):
        assert done.trace.get("error") is None or done.refusal is not None, \
            (flow, messages, message, done.message)
