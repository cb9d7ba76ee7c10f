"""A cancel that names the task with a determiner ("cancel this transfer", "이 이체
취소해줘", "cancel my order" while the order is asked to be placed) cancels it: the task
named is what the cancel is about, not a yes of its own, nor another flow's request (the
pizza shop's status flow answers "my order" when no order is in progress). Found by a blind
pizza set; every sentence here is new."""

from __future__ import annotations

import pytest

from tests.test_changes_at_confirmation import SINGLE, SINGLE_EN, confirming
from tests.test_values_alone import pizza


@pytest.mark.parametrize(("before", "reply"), [
    (SINGLE_EN, "cancel this transfer please"), (SINGLE_EN, "pls cancel that transfer"),
    (SINGLE, "이 송금 취소해 주세요"), (SINGLE, "그 이체 취소할게요"),
])
async def test_a_cancel_of_the_task_named_cancels_it(before: list[str], reply: str) -> None:
    reading, stage, _ = await confirming(before, reply)
    assert reading["decision"] == "cancel" and stage == "CANCELLED"


@pytest.mark.parametrize("reply", ["yes send this transfer", "네 이 이체 진행해 주세요"])
async def test_a_yes_of_the_task_named_is_a_yes(reply: str) -> None:
    before = SINGLE_EN if reply.isascii() else SINGLE
    reading, stage, _ = await confirming(before, reply)
    assert reading["decision"] == "confirm" and stage == "EXECUTED"


@pytest.mark.parametrize("reply", ["cancel my order", "cancel this order pls"])
async def test_cancelling_my_order_while_it_is_asked_cancels_it(reply: str) -> None:
    said = await pizza("medium with extra cheese", reply)
    assert (said[-1]["flow"], said[-1]["stage"]) == ("order", "CANCELLED")


async def test_with_no_order_in_progress_my_order_is_the_status_flows() -> None:
    said = await pizza("cancel my order")
    assert said[0]["flow"] == "status"
