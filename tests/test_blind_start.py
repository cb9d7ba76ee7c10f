"""Held-out first messages to the transfer service, written blind (from a prose description
of the service, not its flow file or the code): plain requests in many word orders and
verbs, names with titles, amounts in Hangul numerals, with commas, "k" and spaces; rough
amounts, bounds, shares and other currencies; conditions, someone else's words, hedges,
money already sent or received; questions about the service, the balance and past
transfers; negations, two transfers at once, dates and times that name no date.

The harmful readings left (a value the labels say no careful clerk would take) are listed
here by class, each class with why; the list may only shrink, and the readings right may
not fall below what they are."""

from __future__ import annotations

from pathlib import Path

from engine.testing.evaluate import run_eval

SET = Path(__file__).parent / "fixtures" / "blind_start" / "transfer_start.eval.yaml"
KNOWN_HARMFUL = {
    # an amount said roughly, as a bound, as a share or in another currency: the recipient
    # is kept and the amount asked again (no amount is read), where the labels want nothing
    # approximate_amount
    '엄마한테 5만원쯤 보내줘',
    '민수한테 대충 3만원 정도 보내',
    '누나한테 4~5만원 보내줘',
    '동생한테 만원 안팎으로 송금해줘',
    '지수한테 2만원 남짓 이체해줘',
    '할머니께 10만원 조금 넘게 보내드려',
    '형한테 적당히 좀 보내줘',
    'send roughly 20k to Jisu',
    # amount_bound
    '엄마한테 최대 10만원까지 보내줘',
    '민수한테 5만원 이하로 보내줘',
    '아빠한테 최소 3만원은 보내줘',
    '누나한테 20만원 넘지 않게 이체해줘',
    'up to 50,000 won to Jisu',
    '동생한테 적어도 만원 이상 보내',
    # amount_share
    '엄마한테 잔액 반만 보내줘',
    '통장에 있는 거 전부 아빠한테 이체해줘',
    'send half my balance to Jisu',
    '민수한테 남은 돈 다 보내',
    '월급의 10% 누나한테 송금해줘',
    '형한테 지난번에 보낸 만큼 보내줘',
    # foreign_currency
    'send mom $50',
    '민수한테 100달러 보내줘',
    'transfer 30 euros to Jisu',
    # a condition naming the balance: read as the balance question (its keyword), with the
    # transfer's values
    # conditional_request
    'if the balance is over 100k, transfer 50k to Jisu',
    # two transfers: read as a batch of two tasks, each confirmed on its own (the reading
    # shows the first), where the labels want nothing
    # two_transfers
    '엄마한테 3만원이랑 아빠한테 2만원 보내줘',
    'send 10k to mom and 20k to dad',
    '누나한테 5만원 보내고 형한테도 3만원 보내줘',
    'transfer 30k to Jisu and also 15k to Minho',
    '이모한테 10만원, 삼촌한테 10만원 이체',
    '동생한테 만원 보내고 나서 엄마한테도 만원',
    # people paid each ("각각 … 씩"): one task per person, the same batch
    '민수랑 지수한테 각각 5만원씩 보내줘',
    # a time that names no date: recipient and amount kept, the date asked for before any
    # confirmation (test_unread_times), where the labels want nothing
    # vague_time
    '다음 달 초에 엄마한테 5만원 보내줘',
    '월급날 아빠한테 10만원 이체해줘',
    '주말쯤 민수한테 3만원 보내',
    'sometime next week send mom 50k',
    '나중에 누나한테 2만원 보내줘',
    '연말에 할머니께 20만원 보내드려',
    'send Jisu 20k later this month',
    '다음 주 중에 형한테 5만원 보내줘',
    'early December, transfer 100k to dad',
    '이따가 동생한테 만원 쏴줘',
}
RIGHT_AT_LEAST = 177  # 178 until "send roughly 20k to Jisu" kept its recipient as the others do


async def test_no_new_harmful_reading_of_a_first_message() -> None:
    report = await run_eval(SET)
    assert len(report.results) >= 240
    harmful = {r.case.message for r in report.results if r.wrong_settlement and r.harmful}
    assert harmful <= KNOWN_HARMFUL, f"new harmful readings: {sorted(harmful - KNOWN_HARMFUL)}"
    fixed = sorted(KNOWN_HARMFUL - harmful)
    assert harmful == KNOWN_HARMFUL, f"fixed, take them off the list: {fixed}"
    assert sum(r.right for r in report.results) >= RIGHT_AT_LEAST


async def test_no_first_message_reads_another_amount_than_the_one_labelled() -> None:
    """Whatever else is misread, where the label gives an amount the rules read that amount
    or none (no "3 만원" as 10000)."""
    report = await run_eval(SET)
    for result in report.results:
        read = result.reading.get("slots", {}).get("amount")
        expected = (result.case.expect.slots or {}).get("amount")
        if read is not None and expected is not None:
            assert read == expected, (result.case.message, read, expected)
