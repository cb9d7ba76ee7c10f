"""find_money: Korean and English amounts, signs, spans, and what is not money."""

import pytest

from engine.nlu import Match, find_money


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("만원", 10000),
        ("1만원", 10000),
        ("5만원", 50000),
        ("3만 5천원", 35000),
        ("3만5천원", 35000),
        ("천원", 1000),
        ("10,000원", 10000),
        ("마이너스 천원", -1000),
        ("마이너스천원", -1000),
        ("-5000원", -5000),
        ("1억원", 100000000),
        ("1억 원", 100000000),
        ("2백만원", 2000000),
        ("백원", 100),
        ("삼만원", 30000),
        ("오천원", 5000),
        ("이만원", 20000),
        ("일억 이천만원", 120000000),
        ("12만 3456원", 123456),
        ("3.5만원", 35000),
        ("1,200만원", 12000000),
        ("50달러", 50),
        ("$50", 50),
        ("50 dollars", 50),
        ("10k", 10000),
        ("$1.5k", 1500),
        ("$12.50", 12.5),
        ("$12.00", 12),
        ("minus 5 dollars", -5),
        ("-$5", -5),
        ("-$50 dollars", -50),
        ("USD 20", 20),
        ("20 usd", 20),
        ("1,250 won", 1250),
        ("$5M", 5000000),
        ("5 thousand dollars", 5000),
        ("€30", 30),
    ],
)
def test_single_amount(text: str, expected: int | float) -> None:
    assert find_money(text) == [Match(expected, 0, len(text), text)]
    assert type(find_money(text)[0].value) is type(expected)  # 12.0 must come back as 12


@pytest.mark.parametrize(
    "text",
    [
        "3개",
        "2026-11-22",
        "10시",
        "50",
        "1억",
        "만약에 그러면",
        "천천히 해줘",
        "이 원하는 것",
        "엄마한테만원",  # a Hangul amount must start a word
        "10km",
        "10m",
        "",
    ],
)
def test_not_money(text: str) -> None:
    assert find_money(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("엄마한테 1만원 보내줘", [Match(10000, 5, 8, "1만원")]),
        (
            "엄마한테 만원, 용걸이한테 5만원 보내줘",
            [Match(10000, 5, 7, "만원"), Match(50000, 15, 18, "5만원")],
        ),
        (
            "엄마한테 만원하고 아빠한테 2만원",
            [Match(10000, 5, 7, "만원"), Match(20000, 15, 18, "2만원")],
        ),
        ("아니 3만원으로 해줘", [Match(30000, 3, 6, "3만원")]),
        ("send $5 to mom", [Match(5, 5, 7, "$5")]),
        ("친구 천원", [Match(1000, 3, 5, "천원")]),
    ],
)
def test_spans(text: str, expected: list[Match]) -> None:
    assert find_money(text) == expected
