"""An emphatic no at a confirmation is a no ("absolutely not", "of course not", "절대 안 돼",
"당연히 아니지"): nothing runs. Said as a question or with a yes after it, it decides
nothing (the rules leave it, offline the question is asked again).

Every sentence here is new: none is in an eval set or a flow's tests."""

from __future__ import annotations

import pytest

from tests.test_changes_at_confirmation import SINGLE, confirming


@pytest.mark.parametrize("reply", ["of course not", "hell no", "절대로 안 돼", "당연히 아니죠"])
async def test_an_emphatic_no_at_the_confirmation_is_a_no(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["decision"] == "deny" and stage != "EXECUTED"


@pytest.mark.parametrize("reply", ["no way?", "absolutely not, send it", "절대 안 돼 보내"])
async def test_an_emphatic_no_asked_or_taken_back_decides_nothing(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading.get("decision") is None and stage == "READY"
