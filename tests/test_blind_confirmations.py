"""Held-out replies at the confirmations before an irreversible action (transfer's READY,
two sets, a third at its later decision points: a batch's second confirmation and the
question whether to go on after another request, and a fourth of changes asked for at
READY; commerce's checkout and refund; pizza's order and payment, two sets, the second of
changes, and cards' replacement, in English), written blind — from
the flows' descriptions and the docs, not the code — by someone asked to break them:
questions holding a yes-word, hedges, conditions, negated and reported yeses, a yes with a
change, irony, emoji, dialect, typos, clear yeses in many forms.

No reading the rules settle may be harmful (a confirm that was no yes, a slot changed to a
value the message did not give). The few non-harmful misreadings the rules still make are
listed here: the list may only shrink (a new one fails the test, a fixed one must be taken
off it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.testing.evaluate import run_eval

BLIND = Path(__file__).parent / "fixtures" / "blind_confirm"
KNOWN_WRONG = {  # settled by the rules and read otherwise than labelled; none moves money
    "transfer_ready.eval.yaml": {
        "계좌 먼저 확인해 주세요",  # read as the balance request (plausible)
        "보내기 전에 잔액부터 알려줘",  # the balance asked before sending: answered, no decision
        "확인 안 할래",  # cancel (labelled unsure)
        "보내 아니 보내지 마",  # cancel (labelled unsure)
        "아까 보낸 거 아니었어?",  # read as the history request (plausible)
        "응 근데 내 잔액 얼마 남았어?",  # answers the balance, then asks the yes again
    },
    "transfer_ready_2.eval.yaml": {
        "확인 전에 잔액 얼마예요?",  # answers the balance, then asks the yes again
        "확인해 볼 게 있는데 내 카드 한도 얼마야?",  # the balance for the card's limit, then
        # the yes asked again (plausible: the one account figure the service has)
        "됐어요",  # cancel (labelled unsure)
    },
    "pizza_confirm.eval.yaml": {
        "yes, it's my first time ordering",  # starts the status question on top
        "where is my last order?",  # the status question (plausible)
        "what's the status of my order",  # the status question (plausible)
    },
    "cards_confirm.eval.yaml": {  # another flow's request at the replacement's question
        # is answered and the question asked again, where the labels want nothing read
        "what's my balance?", "how much money do I have left", "yes, and what's my balance?",
        "sure but first tell me my balance",  # the balance
        "where is my last card order?",  # the card order's status (plausible)
        "you idiots lost my last card, how about that",  # the status: "card" is its keyword
    },
    "transfer_decisions_3.eval.yaml": set(),
    "transfer_changes.eval.yaml": set(),
    "pizza_changes.eval.yaml": set(),
    "commerce_confirm.eval.yaml": {
        "nope",  # deny, labelled cancel: the task ends either way
        "됐어요",  # cancel (labelled unsure)
        "네 취소해 주세요",  # at "cancel the order?": read as cancelling the request
        "네 그리고 제 포인트 얼마 있어요?",  # starts the points lookup on top
    },
}


SMALLER = {"transfer_decisions_3.eval.yaml": 160, "transfer_changes.eval.yaml": 160,
           "pizza_changes.eval.yaml": 155}
"""Sets of fewer than 180 replies (the smallest any set may be)."""


@pytest.mark.parametrize("name", sorted(KNOWN_WRONG))
async def test_no_blind_reply_at_a_money_confirmation_is_settled_harmfully(name: str) -> None:
    report = await run_eval(BLIND / name)
    assert len(report.results) >= SMALLER.get(name, 180)
    assert not [r.where for r in report.results if any(p.startswith("scene:")
                                                       for p in r.problems)], \
        "every case's scene reaches its confirmation"
    harmful = [(r.where, r.case.message) for r in report.results
               if r.wrong_settlement and r.harmful]
    assert harmful == []
    wrong = {r.case.message for r in report.results if r.wrong_settlement}
    known = KNOWN_WRONG[name]
    assert wrong <= known, f"new wrong settlements: {sorted(wrong - known)}"
    assert wrong == known, f"fixed, take them off the list: {sorted(known - wrong)}"
    yeses = [r for r in report.results if r.case.expect.decision == "confirm"]
    assert sum(r.right for r in yeses) >= len(yeses) // 3  # the rest go to the model


async def test_most_changes_at_the_transfers_confirmation_are_read() -> None:
    """The set of changes asked for at the confirmation (and of replies that look like one):
    written blind at 101 of 163 read right; this is where it stands, and it may only rise."""
    report = await run_eval(BLIND / "transfer_changes.eval.yaml")
    assert sum(r.right for r in report.results) >= 140
