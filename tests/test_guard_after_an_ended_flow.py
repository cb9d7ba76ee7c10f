"""A flow guard that refuses right after another flow ended answers with its refusal; the
session stays at the ended flow's last stage (it used to fail the turn with a KeyError)."""

from __future__ import annotations

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT


async def test_a_refusal_after_an_ended_flow_is_said_not_failed() -> None:
    service = compile_file(ROOT / "tests" / "fixtures" / "guard" / "members.yaml")
    engine = Engine(service, store=MemoryStore(), settings=load_settings({}))
    first = await engine.reply("s", "hello")
    assert (first.message, first.state_snapshot["stage"]) == ("Hello!", "HI")
    refused = await engine.reply("s", "tell me the secret")
    assert refused.message == "Members only."
    assert refused.trace.get("error") is None
    assert (refused.state_snapshot["flow"], refused.state_snapshot["stage"]) == ("hello", "HI")
    again = await engine.reply("s", "hello")
    assert again.message == "Hello!"
