"""The precision contract, class by class: what rules may not take as a value or an intent.

Each test names a class of message; its cases are members of the class that no shipped flow
or eval set uses, so a fix for one sentence does not pass them.
"""

from __future__ import annotations

import datetime as dt

import pytest

from engine.nlu import IntentRule, classify, find_money, find_numbers, is_question
from engine.nlu.certainty import bare_number, leftover, malformed_amount, negated, ranged
from engine.nlu.flags import find_flag, flag_words

NOTHING_KNOWN = lambda word: False  # noqa: E731


@pytest.mark.parametrize(("text", "kept"), [
    ("7만원 말고 9만원으로", 90000),
    ("20만원 아니고 12만원", 120000),
    ("3천원 대신 5천원", 5000),
    ("not 40 dollars but 45 dollars", 45),
    ("6만원은 빼고 6만 5천원", 65000),
])
def test_a_value_corrected_away_is_not_the_value(text: str, kept: int) -> None:
    values = [m.value for m in find_money(text) if not negated(text, m)]
    assert values == [kept]


@pytest.mark.parametrize("text", [
    "5~6만원", "2만원이나 3만원", "1만원에서 2만원 사이", "10 or 20 dollars", "7-8만원쯤",
    "4만원 아니면 5만원",
])
def test_one_end_of_a_range_is_no_value(text: str) -> None:
    assert [m.value for m in find_money(text) if not ranged(text, m)] == []


def test_a_single_amount_is_no_range() -> None:
    text = "엄마한테 3만원, 아빠한테 4만원"
    assert [m.value for m in find_money(text) if not ranged(text, m)] == [30000, 40000]


@pytest.mark.parametrize(("text", "span", "left"), [
    ("내일 비 온대", (0, 2), ["비", "온대"]),
    ("모레 회식 있어", (0, 2), ["회식", "있어"]),
    ("모레로 바꿔 주세요", (0, 2), []),
    ("tomorrow please", (0, 8), []),
])
def test_words_nothing_accounts_for(text: str, span: tuple[int, int], left: list[str]) -> None:
    assert leftover(text, [span], lambda w: w == "주세요") == left


@pytest.mark.parametrize(("text", "value"), [
    ("70000", 70000), ("3만5천", 35000), ("12만웜", 120000), ("8만언", 80000),
    ("1,500,000", 1500000),
])
def test_a_plain_number_answers_an_amount(text: str, value: int) -> None:
    found = bare_number(text, NOTHING_KNOWN)
    assert found is not None and found.value == value


@pytest.mark.parametrize("text", ["2명", "3개 주세요", "5 or 6", "4시 반", "1번 2번"])
def test_a_number_of_something_else_is_no_amount(text: str) -> None:
    assert bare_number(text, NOTHING_KNOWN) is None


@pytest.mark.parametrize(("text", "value"), [
    ("one medium with extra olives", True),
    ("a medium, hold the extra olives", False),
    ("no olives please", False),
    ("without extra olives", False),
    ("올리브 추가해 주세요", None),  # another slot's words: nothing
])
def test_a_yes_no_slot_named_in_passing(text: str, value: bool | None) -> None:
    found = find_flag(text, flag_words("olives", "extra olives"))
    assert [m.value for m in found] == ([] if value is None else [value])


@pytest.mark.parametrize(("text", "asking"), [
    ("잔고 남았니", True), ("이번 달에 얼마 썼어", True), ("언제 들어와요?", True),
    ("which account is it from", True), ("are there any fees", True),
    ("동생한테 2만원 보내줄래?", False), ("could you send 20 dollars to Sam?", False),
    ("동생한테 2만원 보내", False), ("I'd like two tickets", False),
])
def test_a_question_is_told_from_a_request(text: str, asking: bool) -> None:
    assert is_question(text) is asking


TRANSFER = IntentRule("transfer", keywords=("송금", "이체", "wire"),
                      examples=("동생한테 2만원 송금해줘",), acts=True)
HISTORY = IntentRule("history", keywords=("이체 기록",), examples=("이체 기록 보여줘",))
TRANSFER_RULES = [TRANSFER, HISTORY]


def best(text: str, rules: list[IntentRule]) -> str | None:
    scores = [s for s in classify(text, rules) if s.confidence >= 0.5]
    return scores[0].name if scores else None


@pytest.mark.parametrize("text", ["동생한테 송금하지 마", "이체 안 할래", "don't wire it to him"])
def test_a_negated_keyword_asks_for_nothing(text: str) -> None:
    assert best(text, TRANSFER_RULES) is None


def test_a_keyword_inside_a_longer_one_is_the_longer_ones() -> None:
    assert best("지난달 이체 기록 좀", TRANSFER_RULES) == "history"
    assert best("동생한테 이체 좀", TRANSFER_RULES) == "transfer"


@pytest.mark.parametrize(("text", "found"), [
    ("I need to wire some money", True), ("wired it yesterday", True),
    ("wiring 20 dollars", True), ("the wireless mouse", False), ("hardwire", False),
])
def test_latin_keywords_match_whole_words_in_their_forms(text: str, found: bool) -> None:
    assert (best(text, [TRANSFER]) == "transfer") is found


@pytest.mark.parametrize("text", ["지난주에 송금한 거 뭐야?", "이체하면 수수료 있어?",
                                  "how long does a wire take?"])
def test_a_question_is_not_a_request_of_an_acting_intent(text: str) -> None:
    assert best(text, [TRANSFER]) is None


def test_an_intent_that_answers_questions_takes_them() -> None:
    balance = IntentRule("balance", keywords=("잔액",), examples=("잔액 알려줘",))
    assert best("잔액 얼마 남았어?", [balance]) == "balance"


@pytest.mark.parametrize("text", ["왜 송금이 안 돼?", "why do I need to log in to wire money"])
def test_a_why_question_settles_no_intent(text: str) -> None:
    assert best(text, [TRANSFER, IntentRule("login", keywords=("log in",))]) is None


def test_numbers_are_still_read_everywhere() -> None:
    assert [m.value for m in find_numbers("2명 3시")] == [2, 3]
    assert dt.date(2026, 1, 1)  # the module's dates are untouched by these checks


@pytest.mark.parametrize("text", ["동생한테 2e300원 보내", "send 1E9 dollars", "NaN원 보내줘",
                                  "∞원", "Infinity won", "$1e5", "123456789012345678원"])
def test_text_that_only_looks_like_an_amount_is_refused_whole(text: str) -> None:
    assert malformed_amount(text) is not None


@pytest.mark.parametrize("text", ["2만원", "1,000,000원", "$12.50", "eek 3만원", "10k won"])
def test_an_amount_is_no_malformed_one(text: str) -> None:
    assert malformed_amount(text) is None
