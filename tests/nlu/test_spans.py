"""find_pattern and the shared overlap rule."""

import re

import pytest

from engine.nlu import Match, find_pattern, non_overlapping

TARGET = re.compile(r"(?P<value>[^\s,]+?)(?:한테|에게|께)")
ACCOUNT = re.compile(r"\d{3}-\d{4}")
NAME = re.compile(r"to (?P<value>[A-Z]\w+)?")


@pytest.mark.parametrize(
    ("text", "patterns", "expected"),
    [
        ("엄마한테 만원", [TARGET], [Match("엄마", 0, 2, "엄마")]),
        (
            "엄마한테 만원, 용걸이에게 5만원",
            [TARGET],
            [Match("엄마", 0, 2, "엄마"), Match("용걸이", 9, 12, "용걸이")],
        ),
        (
            "엄마한테 123-4567로",
            [TARGET, ACCOUNT],
            [Match("엄마", 0, 2, "엄마"), Match("123-4567", 5, 13, "123-4567")],
        ),
        ("send to Alice", [NAME], [Match("Alice", 8, 13, "Alice")]),
        ("send to ", [NAME], [Match("to", 5, 7, "to")]),  # optional value missing: whole match
        (
            "아빠께",
            [TARGET, re.compile(r"(?P<value>아빠께)")],
            [Match("아빠께", 0, 3, "아빠께")],  # overlap: the longer match wins
        ),
        ("만원", [TARGET], []),
        ("엄마한테", [], []),
    ],
)
def test_find_pattern(text: str, patterns: list[re.Pattern[str]], expected: list[Match]) -> None:
    assert find_pattern(text, patterns) == expected


@pytest.mark.parametrize(
    ("matches", "expected"),
    [
        ([Match(1, 0, 2, "ab"), Match(2, 1, 4, "bcd")], [Match(2, 1, 4, "bcd")]),
        ([Match(1, 2, 3, "c"), Match(2, 0, 1, "a")], [Match(2, 0, 1, "a"), Match(1, 2, 3, "c")]),
        ([Match(1, 0, 2, "ab"), Match(2, 1, 3, "bc")], [Match(1, 0, 2, "ab")]),
        ([], []),
    ],
)
def test_non_overlapping(matches: list[Match], expected: list[Match]) -> None:
    assert non_overlapping(matches) == expected
