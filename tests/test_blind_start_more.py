"""Four more held-out sets of first messages, each written blind (from a prose description
of its service, not the flow file or the code) by someone asked for many classes of what
people type: a second Korean set for transfers (registers, amounts in every written form,
titles, dates, conditions, hedges, typos, English and mixed), English sets for the pizza
shop and the card help desk (word orders, synonyms, typos, negations, someone else's card,
what was ordered before, service questions, Korean and mixed), and a Korean set for the
online shop (every intent, priorities between two, complaints, "X 말고 Y", reported words,
bands of prices, English).

The harmful readings left are listed by class, each with why; a list may only shrink, and
the readings right may not fall below what they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.testing.evaluate import run_eval

BLIND = Path(__file__).parent / "fixtures" / "blind_start"
KNOWN_HARMFUL: dict[str, set[str]] = {
    "transfer_start_2.eval.yaml": {
        # the familiar -이 after a name is kept, as the flow's own examples do ("용걸이한테")
        "친구 태현이한테 6만원 보내줘", "이체해줘 지훈이한테 2만원", "지민이한테 50000 보내줘",
        "태민이한테 팔천 원 보내", "지수한테 아니 지민이한테 2만원 보내줘",
        "다음 주에 회식하는데 총무가 지현이라서 회비를 미리 걷는대 그래서 지현이한테 5만원 이체"
        " 좀 해줘",
        # "오늘" stored as today's date, where the labels give no date: the same transfer
        "오늘 지수한테 2만원 보내줘",
        # a vague time keeps the values and asks the date before any confirmation
        "나중에 민수한테 5만원 보내야겠다",
        # a request put as a question of whether it can be done now is read as the request
        "민수한테 지금 송금할 수 있나?",
        # "this Friday" is this week's Friday even when it has passed (docs/dsl.md, dates)
        "Send Jimin 20000 won this Friday",
        # two flows in one message run one after the other (the balance or the history
        # first, then the transfer with its values); the labels score the first only
        "잔액 확인하고 민수한테 만원 보내줘", "이체 내역 보여주고 동생한테 3만원 보내줘",
    },
    "pizza_start.eval.yaml": {
        # "regular" is the medium size's word, here said of the cheese
        "I'd like a pizza, regular cheese is fine",
        # a yes/no value taken back by "skip it" without naming it again
        "extra cheese... hmm no, skip it. large pizza",
        # a complaint about a size is read as an order of that size
        "your small pizzas are tiny for the price",
        # two pizzas with different options: the first one's are read
        "two large pizzas, one with extra cheese and one without",
    },
    "cards_start.eval.yaml": {
        # a PIN named ahead of its value is read where the labels take none from a first
        # message (the flow looks for it when asked or named: the user said it)
        "my id is u61 and my pin is 4321", "id u300, pin 0000, verify me",
        "I want to verify, my pin is 2468", "can I change my pin to 7777",
        # a lost card's reason is read for the replacement it links to, where the labels want
        # the lost report without values
        "I lost my card", "my card is missing", "my card was stolen", "report a lost card",
        "my wallet got stolen with my card in it", "u482 card stolen", "stolen",
        "no I didn't lose it, it was stolen", "MY CARD WAS STOLEN!!!",
        "I lost my card and I also want to know my balance",
        "please block my card, it's been stolen",
        # a loss said of someone else's card, in the past, or in a question of how to report
        # it starts the lost report
        "my husband's card was stolen, he needs a replacement",
        "I reported my card stolen last week, it's all sorted now, thanks",
        "I lost my card last year but found it again, anyway how much money do I have",
        "how do I report a lost card?",
        # two requests: the first flow starts with the other's value
        "check my balance, also my card is cracked and I need a new one",
        "where is my replacement? and also my other card got stolen",
    },
    "commerce_start.eval.yaml": {
        # a safety report with a refund: both run, the report first; the reading shows the
        # refund's values too, where the labels want the report's alone
        "가품이 왔어요 신고하고 환불받고 싶어요 ORD-30412",
        "received counterfeit airpods. report the seller and refund me",
        # whether it can be done, asked with the order: read as the request (the flow still
        # looks the order up and confirms before anything is sent to the shop)
        "ORD-24680 교환 가능할까요?", "can I still cancel my order?",
        # either of two: the order number is kept and which of them asked next
        "환불이든 교환이든 빨리 처리해줘요 ORD-77120",
        # one word naming what to do: taken as that, the order number asked next
        "환불", "교환", "refund",
        # two requests: the first flow by priority runs, the other's value is in the reading
        "write a 5 star review and show my coupons",
        # a product named by its catalogue name is read as that product (the labels take
        # only product ids)
        "에어팟 프로 가격 비교해주세요",
    },
}
RIGHT_AT_LEAST = {"transfer_start_2.eval.yaml": 177, "pizza_start.eval.yaml": 123,
                  "cards_start.eval.yaml": 97, "commerce_start.eval.yaml": 147}


@pytest.mark.parametrize("name", sorted(KNOWN_HARMFUL))
async def test_no_new_harmful_reading_of_a_first_message(name: str) -> None:
    report = await run_eval(BLIND / name)
    assert len(report.results) >= 180
    harmful = {r.case.message for r in report.results if r.wrong_settlement and r.harmful}
    known = KNOWN_HARMFUL[name]
    assert harmful <= known, f"new harmful readings: {sorted(harmful - known)}"
    assert harmful == known, f"fixed, take them off the list: {sorted(known - harmful)}"
    assert sum(r.right for r in report.results) >= RIGHT_AT_LEAST[name]
