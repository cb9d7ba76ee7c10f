"""find_enum and enum_conflicts."""

import pytest

from engine.nlu import Match, compile_enum, enum_conflicts, find_enum

CURRENCY = {"KRW": ["원", "원화"], "USD": ["달러", "dollar", "dollars", "usd"]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("50달러", [Match("USD", 2, 4, "달러")]),
        ("50 USD", [Match("USD", 3, 6, "USD")]),
        ("50usd", [Match("USD", 2, 5, "usd")]),
        ("5 Dollars", [Match("USD", 2, 9, "Dollars")]),
        ("usda", []),
        ("원화로 보내줘", [Match("KRW", 0, 2, "원화")]),
        ("1000원", [Match("KRW", 4, 5, "원")]),
        ("krw 100", [Match("KRW", 0, 3, "krw")]),  # the canonical name is a synonym too
        ("10달러 말고 만원", [Match("USD", 2, 4, "달러"), Match("KRW", 9, 10, "원")]),
        ("", []),
    ],
)
def test_find_enum(text: str, expected: list[Match]) -> None:
    assert find_enum(text, CURRENCY) == expected
    assert compile_enum(CURRENCY).find(text) == expected


@pytest.mark.parametrize(
    ("values", "text", "expected"),
    [
        ({"one": ["1"]}, "10 and 1", [Match("one", 7, 8, "1")]),
        ({"USD": ["US$"]}, "US$5", [Match("USD", 0, 3, "US$")]),
        ({}, "anything", []),
        ({"a": ["x"], "b": ["x"]}, "x", [Match("a", 0, 1, "x")]),  # first listed wins
    ],
)
def test_find_enum_edges(values: dict[str, list[str]], text: str, expected: list[Match]) -> None:
    assert find_enum(text, values) == expected


KINDS = {"credit": ["신용", "신용카드"], "debit": ["체크", "체크카드"]}
PURPOSE = {"work": ["업무", "사무"], "refund": ["환불", "반품"], "pay": ["결제"]}


@pytest.mark.parametrize("text", [
    "신용정보 넘겨도 되나요", "체크리스트부터 볼게요", "신용불량자도 되나요",
    "사무장님이 알아보라고 해서요", "반품비 얼마예요", "신용평가사 조회 없는 걸로",
])
def test_a_short_hangul_value_heading_another_noun_is_not_said(text: str) -> None:
    assert find_enum(text, KINDS | PURPOSE) == []


@pytest.mark.parametrize(("text", "value"), [
    ("신용으로 해 주세요", "credit"), ("체크요", "debit"), ("체크로만 쓸래요", "debit"),
    ("신용이 나아요", "credit"), ("체크랑 신용 중에 체크", "debit"), ("업무용으로", "work"),
    ("반품신청 할게요", "refund"), ("환불좀 해줘요", "refund"), ("환불받고 싶어요", "refund"),
    ("결제할께요", "pay"), ("결제창 띄워줘", "pay"), ("사무실에서 써요", "work"),
])
def test_a_short_hangul_value_with_a_particle_or_ending_is_said(text: str, value: str) -> None:
    assert find_enum(text, KINDS | PURPOSE)[0].value == value


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (CURRENCY, []),
        ({"KRW": ["원"], "JPY": ["엔", "원"]}, [("원", "KRW", "JPY")]),
        ({"a": ["x", "X"], "b": ["x"], "c": ["X"]}, [("x", "a", "b"), ("x", "a", "c")]),
        ({"yes": ["ok"], "ok": []}, [("ok", "yes", "ok")]),
    ],
)
def test_enum_conflicts(values: dict[str, list[str]], expected: list[tuple[str, str, str]]) -> None:
    assert enum_conflicts(values) == expected


SIZES = {"small": ["smaller"], "medium": ["regular"], "large": ["big"]}


@pytest.mark.parametrize(("answer", "value"), [
    ("lrage", "large"), ("meduim pls", "medium"), ("smal", "small"), ("regualr", "medium"),
    ("larg one", "large"),
])
def test_a_typo_of_one_letter_is_the_value_it_misspells(answer: str, value: str) -> None:
    from engine.nlu.enums import misspelt

    found = misspelt(answer, SIZES)
    assert found is not None and found.value == value


@pytest.mark.parametrize("answer", [
    "huge",  # no value one letter away
    "marge",  # one letter off large, but it starts with another letter
    "big",  # three letters: too short to guess at
    "lake",  # one letter off "large"? no: two
])
def test_a_word_not_one_letter_off_a_value_is_no_value(answer: str) -> None:
    from engine.nlu.enums import misspelt

    assert misspelt(answer, SIZES) is None


def test_a_typo_one_letter_off_two_values_is_neither() -> None:
    from engine.nlu.enums import misspelt

    assert misspelt("cold", {"cola": [], "cole": []}) is None
