"""Held-out replies while a flow collects its values (transfer's recipient and amount,
pizza's size, cheese and payment, commerce's product, budget, quantity and the rest, cards'
customer id, PIN, reason and phone; the transfer flow in English),
written blind (from the flows and the docs, not the code) by someone asked to break the
rules: values in another
clause, a condition, a quote or someone else's words; amounts said roughly, as bounds or in
sums; ways to send and people described instead of names; self-corrections; typos.

Most harmful readings (a value the message did not give) are gone; those left are listed
here and the list may only shrink (a new one fails the test, a fixed one must be taken off
it); the readings right may not fall below what they are. Several listed ones are labels
a careful clerk could read either way (the case says nothing of a value it does give when
it is labelled unsure): each file's header says what is left."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.testing.evaluate import run_eval

BLIND = Path(__file__).parent / "fixtures" / "blind_fill"
KNOWN_HARMFUL: dict[str, set[str]] = {
    "transfer_filling_3.eval.yaml": {
        # the familiar -이 kept with the name: this set's writer drops it ("민숙이" -> 민숙),
        # the two sets before keep it ("서연이한테" -> 서연이); the reading keeps what was said
        "민숙이한테", "지영이한테 보내줘", "은정이에게 보내", "보람이한테 보내줘",
        # a friend not named (labelled no name)
        "친구한테",
        # people paid each ("형이랑 누나한테 각각"): one task per person, a batch of two the
        # labels (no name) cannot tell from one of two
        "형이랑 누나한테 각각",
    },
    "transfer_english.eval.yaml": {
        "my sister wants 20k again, send it to her I guess",  # someone else's want
    },
    "cards_filling.eval.yaml": set(),
    "pizza_filling.eval.yaml": {
        "wait can I pay cash instead?",  # a request put as a question (plausible)
    },
    "commerce_filling.eval.yaml": {
        "P105",  # not normalised to P-105
        "mx masetr 3s",  # a typo of a known title, kept as said
        "로지텍 MX Keys 블랙 색상",  # the closest known title (plausible)
        "이어폰",  # a category taken as the product
    },
    "transfer_filling.eval.yaml": {
        '누나한테 보낸 만큼',
        '동생한테 부탁받은 건데',
        '동생한테도 2만원',
        '만',
        '삼촌한테 4만원',
        '아뺘',
        '안녕하세요 다름이 아니라 이번 주 토요일에 친구 결혼식이 있는데 제가 못 가게 돼서 축의금을 계좌로 보내려고 하거든요, 친구 이름은 박준형이고 축의금으로 10만원 보내주시면 돼요',  # noqa: E501
        '엄망한테',
        '이모한테는 2만원',
        '커피 4500원 너무 비싸',
    },
    "transfer_filling_2.eval.yaml": {
        '010-1234-5678로 3만원 보내줘',
        '국민은행으로 50만원 이체해줘',
        '농협 통장으로 10만원',
        '다음 달 초에 20만원',
        '민수한테 밥값 n분의 1',
        '민수한테 치킨값 반 보내줘',
        '설 전에 10만원',
        '엄마한테 5만원쯤 보내줘',
        '영희한테 한 3만원쯤',
        '이수진 과장님께요',
    },
}
RIGHT_AT_LEAST = {"pizza_filling.eval.yaml": 106, "commerce_filling.eval.yaml": 174,
                  "cards_filling.eval.yaml": 128, "transfer_english.eval.yaml": 140,
                  "transfer_filling.eval.yaml": 305, "transfer_filling_2.eval.yaml": 192,
                  # 215 before people paid each became a batch ("형이랑 누나한테 각각")
                  "transfer_filling_3.eval.yaml": 214}


@pytest.mark.parametrize("name", sorted(KNOWN_HARMFUL))
async def test_no_new_harmful_reading_while_values_are_collected(name: str) -> None:
    report = await run_eval(BLIND / name)
    harmful = {r.case.message for r in report.results if r.wrong_settlement and r.harmful}
    known = KNOWN_HARMFUL[name]
    assert harmful <= known, f"new harmful readings: {sorted(harmful - known)}"
    assert harmful == known, f"fixed, take them off the list: {sorted(known - harmful)}"
    assert sum(r.right for r in report.results) >= RIGHT_AT_LEAST[name]
