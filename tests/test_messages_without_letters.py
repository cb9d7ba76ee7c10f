"""A message with no letters in it — an emoji, punctuation, symbols, a laugh in jamo — is
answered at every point of a conversation, never a failed turn: at the start, while a flow
collects its slots, and at a confirmation (where it is no yes: nothing moves)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.runtime.engine import Engine
from engine.store import MemoryStore

FLOWS = Path(__file__).parent.parent / "flows"
NO_LETTERS = ["👍", "🙆‍♀️", "🙏🙏", "?", "!!", "...", "~", "ㅋㅋㅋ", "ㅠㅠ", "^^", ";;", "…",
              "?!?!", "👌🏽", "❤️", "-_-", "💸💸💸", "---", "#", "(?)", "ㅇ_ㅇ", "\u200b👍"]
SCENES = {  # flow file -> the messages that bring it to each point worth testing
    "transfer.yaml": [[], ["엄마한테 보내줘"], ["엄마한테 5만원 보내줘"]],
    "pizza.yaml": [[], ["피자 주문할게요"]],
    "cards.yaml": [[], ["카드 재발급 해주세요"]],
}


@pytest.fixture(scope="module", params=sorted(SCENES))
def flow(request: pytest.FixtureRequest) -> tuple[str, object]:
    return request.param, compile_file(FLOWS / request.param)


@pytest.mark.parametrize("message", NO_LETTERS)
async def test_a_message_without_letters_never_fails_a_turn(
        flow: tuple[str, object], message: str) -> None:
    name, service = flow
    for scene in SCENES[name]:
        engine = Engine(service, store=MemoryStore())  # type: ignore[arg-type]
        for said in scene:
            assert "error" not in (await engine.reply("s", said)).trace
        before = (await engine.store.load("s"))
        done = await engine.reply("s", message)
        assert "error" not in done.trace, (name, scene, message, done.message)
        assert done.message
        assert done.trace["reading"]["decision"] in (None, "cancel", "deny"), \
            "no yes is read in a message with no letters"
        if before is not None:
            assert done.state_snapshot["stage"] in (before.data.get("stage"), None) or \
                done.state_snapshot["stage"] != "EXECUTED"
