"""What whole conversations written blind found mid-transfer: a new recipient said after a
word of taking back ("아니다", "잠깐만") is the recipient, not someone's relation; "그거 말고"
before new values changes them; the balance asked as "잔액 좀 보여줘" is the balance flow's,
at a confirmation too (the transfer waits, nothing is sent). Every sentence here is new:
none is in an eval set, a flow's tests or another test."""

from __future__ import annotations

import pytest

from tests.test_changes_at_confirmation import SINGLE, confirming
from tests.test_plain_amounts import conversation


@pytest.mark.parametrize(("message", "target"), [("아니야 삼촌한테 4만원 보내줘", "삼촌"),
                                                 ("잠깐만 이모한테 35000원 보내줘", "이모"),
                                                 ("아참 형한테 만원 보내줘", "형")])
async def test_a_recipient_after_a_word_of_taking_back_is_the_recipient(
        message: str, target: str) -> None:
    said = await conversation("엄마한테 보내줘", message)
    assert said[1][1]["stage"] == "READY" and said[1][1]["slots"]["target"] == target


@pytest.mark.parametrize(("reply", "slots"), [
    ("그건 말고 외삼촌한테 7만원 보내", {"target": "외삼촌", "amount": 70000}),
    ("아 그거 말고 45000원으로", {"amount": 45000}),
])
async def test_not_that_before_new_values_changes_them(reply: str, slots: dict[str, object]
                                                       ) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["slots"] == slots and stage == "READY"


@pytest.mark.parametrize("reply", ["잔액 조회 좀 해 주세요", "잠깐 잔액 먼저 보여줘"])
async def test_the_balance_asked_at_the_confirmation_is_answered_and_nothing_is_sent(
        reply: str) -> None:
    said = await conversation("할머니한테 6만원 보내줘", reply, "계속")
    assert said[1][0]["intent"] == "balance" and "잔액은" in said[1][2]
    assert said[1][1]["stage"] == "READY" and said[2][1]["stage"] == "READY"
