"""When the model does not answer in time, the user is told so, and a message the rules
half-understood is asked about instead of being answered with the default flow's menu.

The shipped transfer flow with its model on the local wire-compatible fake (the real
``openai`` SDK), which answers after the turn's deadline. Without a model no one is told
about a model that does not exist (a half-understood message is asked about all the same).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import TODAY
from tests.fakes.llm_servers import FakeLLMServer, FakeReply

MISSED = "시간이 걸려 말씀을 정확히 이해하지 못했어요"
ASKED = "혹시 돈을 보내는 요청 말씀이신가요?"
MENU = "무엇을 도와드릴까요?"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


def late_engine(transfer: CompiledService, server: FakeLLMServer) -> Engine:
    server.reset()
    server.default = FakeReply(text="{}", delay_sec=2.0)  # every call answers too late
    return Engine(transfer, store=MemoryStore(), clock=lambda: TODAY,
                  settings=load_settings({**server.env(), "FLOWCTL_TURN_DEADLINE_MS": "400"}))


# a transfer word inside a question, an amount with a verb the rules do not know, or a
# recipient only the transfer flow takes
HALF_UNDERSTOOD = ["송금하려면 뭐가 필요해?", "5만원 정도를 동생한테 넘겨야 돼",
                   "how do I transfer money to my brother?", "이체는 어디서 해요?",
                   "삼촌 쪽에 20만원 넣어야 하는데", "조카한테 좀 해주려고", "내일 누나한테"]


@pytest.mark.parametrize("message", HALF_UNDERSTOOD)
async def test_a_half_understood_message_is_asked_about_when_the_model_is_late(
        transfer: CompiledService, server: FakeLLMServer, message: str) -> None:
    engine = late_engine(transfer, server)
    done = await engine.reply("s", message)
    assert MISSED in done.message and ASKED in done.message and MENU not in done.message
    assert done.state_snapshot["flow"] is None  # nothing started on a guess
    yes = await engine.reply("s", "네")
    assert yes.state_snapshot["flow"] == "transfer"
    assert yes.state_snapshot["stage"] in ("INIT", "FILLING", "READY")
    await engine.aclose()


@pytest.mark.parametrize("message", ["오늘 점심 뭐 먹지", "고마워요 덕분에 살았네", "what's up"])
async def test_anything_else_is_told_the_model_was_late_then_the_menu(
        transfer: CompiledService, server: FakeLLMServer, message: str) -> None:
    engine = late_engine(transfer, server)
    done = await engine.reply("s", message)
    assert done.message.startswith("지금은 답을 준비하는 데") and MENU in done.message
    await engine.aclose()


async def test_a_no_to_the_guess_asks_to_say_more(transfer: CompiledService,
                                                 server: FakeLLMServer) -> None:
    engine = late_engine(transfer, server)
    await engine.reply("s", "송금하려면 뭐가 필요해?")
    no = await engine.reply("s", "아니요")
    assert no.state_snapshot["flow"] != "transfer" and ASKED not in no.message
    await engine.aclose()


@pytest.mark.parametrize(("message", "asked"), [
    ("5만원 정도를 동생한테 넘겨야 돼", True), ("삼촌 쪽에 20만원 넣어야 하는데", True),
    ("송금하려면 뭐가 필요해?", False),  # a condition: the default flow's answer says how
    ("오늘 점심 뭐 먹지", False)])
async def test_without_a_model_nobody_is_told_about_one(transfer: CompiledService,
                                                        message: str, asked: bool) -> None:
    """Offline a half-understood message is still asked about (tests/test_offline_leaning.py),
    never with word of a model."""
    engine = Engine(transfer, store=MemoryStore(), clock=lambda: TODAY,
                    settings=load_settings({}))
    done = await engine.reply("s", message)
    assert MISSED not in done.message
    assert (ASKED in done.message) is asked
