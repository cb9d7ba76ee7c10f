"""find_numbers: digits, signs, separators, Korean units, English words; dates are skipped."""

import pytest

from engine.nlu import Match, find_numbers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3개", [Match(3, 0, 1, "3")]),
        ("-5", [Match(-5, 0, 2, "-5")]),
        ("1,200", [Match(1200, 0, 5, "1,200")]),
        ("2.5", [Match(2.5, 0, 3, "2.5")]),
        ("2.0", [Match(2, 0, 3, "2.0")]),
        ("two", [Match(2, 0, 3, "two")]),
        ("Three apples", [Match(3, 0, 5, "Three")]),
        ("twenty", [Match(20, 0, 6, "twenty")]),
        ("someone", []),
        ("5만", [Match(50000, 0, 2, "5만")]),
        ("3만 5천", [Match(35000, 0, 5, "3만 5천")]),
        ("10k", [Match(10000, 0, 3, "10k")]),
        ("3kg", [Match(3, 0, 1, "3")]),
        ("마이너스 5", [Match(-5, 0, 6, "마이너스 5")]),
        ("minus 7", [Match(-7, 0, 7, "minus 7")]),
        ("2026-11-22", []),
        ("10:30에 만나", []),
        ("11-22", [Match(11, 0, 2, "11"), Match(22, 3, 5, "22")]),
        ("1,2,3", [Match(1, 0, 1, "1"), Match(2, 2, 3, "2"), Match(3, 4, 5, "3")]),
        ("엄마한테 만원", []),  # Hangul numerals alone are words here; money.py reads them
        (
            "사과 3개, -5, 2.5kg",
            [Match(3, 3, 4, "3"), Match(-5, 7, 9, "-5"), Match(2.5, 11, 14, "2.5")],
        ),
    ],
)
def test_find_numbers(text: str, expected: list[Match]) -> None:
    found = find_numbers(text)
    assert found == expected
    assert [type(m.value) for m in found] == [type(m.value) for m in expected]


@pytest.mark.parametrize(("text", "value"), [
    ("세 개요", 3), ("두 병 주세요", 2), ("열두 장", 12), ("스무 명", 20), ("한 개씩", 1),
    ("하나만요", 1), ("셋이요", 3), ("다섯", 5),
])
def test_korean_native_numerals_with_a_counter_or_alone(text: str, value: int) -> None:
    assert [m.value for m in find_numbers(text)] == [value]


@pytest.mark.parametrize("text", ["네", "한번 볼게요", "세상에", "네 알겠어요", "두고 봐요", "한"])
def test_a_native_numeral_word_without_a_counter_is_no_number(text: str) -> None:
    assert find_numbers(text) == []
