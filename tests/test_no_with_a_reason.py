"""A no at a confirmation followed only by what the speaker will do instead, or is ("아뇨 좀
더 써볼게요" at a refund's confirmation, found by a blind set of shop conversations): a no,
as the no alone is. A no with a value is a change, with the flow's own verb says both, with a
contrast, a wait or a question is none of these: asked again. A verb said after "to" ("I'd
prefer to keep it") is no recipient. Putting off ("maybe later", "아마 나중에") waits: no date
is asked for.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from tests.test_changes_at_confirmation import SINGLE, SINGLE_EN, confirming


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE, "아니요 제가 직접 할게요"), (SINGLE, "아뇨 다시 생각해보니 괜찮습니다"),
    (SINGLE, "아뇨 이번 달은 그냥 넘어갈래요"), (SINGLE_EN, "nope, i'm good"),
    (SINGLE_EN, "no, i'd prefer to keep my money"), (SINGLE_EN, "nah i'll ask her first"),
])
async def test_a_no_with_the_speakers_own_plan_is_a_no(before: list[str], reply: str) -> None:
    reading, stage, _ = await confirming(before, reply)
    assert reading["decision"] == "deny" and stage == "CANCELLED"


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE, "아니요 그냥 이체할게요"),  # the flow's verb: which one?
    (SINGLE, "아뇨 근데 수수료는 얼마예요?"),  # a question
    (SINGLE_EN, "no, i'll hold off for now"),  # a wait
    (SINGLE_EN, "no but i'll think about it"),  # a contrast
    (SINGLE_EN, "no, i'll transfer it myself"),  # the flow's verb
])
async def test_a_no_with_anything_else_decides_nothing(before: list[str], reply: str) -> None:
    reading, stage, _ = await confirming(before, reply)
    assert reading["decision"] is None and stage == "READY"


async def test_a_no_with_a_value_is_the_change() -> None:
    reading, stage, _ = await confirming(SINGLE, "아뇨 이모한테 보낼게요")
    assert reading["decision"] is None and reading["slots"] == {"target": "이모"}
    assert stage == "READY"


@pytest.mark.parametrize("reply", ["i'd prefer to keep it", "we agreed to split it",
                                   "she told me to check first"])
async def test_a_verb_after_to_is_no_recipient(reply: str) -> None:
    reading, _, said = await confirming(SINGLE_EN, reply)
    assert "target" not in reading["slots"] and "grandma" in said


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE_EN, "probably later"), (SINGLE_EN, "later then"), (SINGLE, "아마 나중에"),
    (SINGLE_EN, "someday maybe"),
])
async def test_putting_off_at_the_confirmation_waits(before: list[str], reply: str) -> None:
    reading, stage, _ = await confirming(before, reply)
    assert reading["decision"] is None and reading["slots"] == {} and stage == "READY"
