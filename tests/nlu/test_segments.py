"""split_segments: where a multi-task message is cut, with spans."""

import pytest

from engine.nlu import Match, split_segments


def _whole(text: str) -> list[Match]:
    return [Match(text, 0, len(text), text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "엄마한테 만원, 용걸이한테 5만원 보내줘",
            [
                Match("엄마한테 만원", 0, 7, "엄마한테 만원"),
                Match("용걸이한테 5만원 보내줘", 9, 22, "용걸이한테 5만원 보내줘"),
            ],
        ),
        (
            "엄마한테 만원하고 아빠한테 2만원",
            [
                Match("엄마한테 만원", 0, 7, "엄마한테 만원"),
                Match("아빠한테 2만원", 10, 18, "아빠한테 2만원"),
            ],
        ),
        (
            "엄마한테 만원이랑 아빠한테 2만원",
            [
                Match("엄마한테 만원", 0, 7, "엄마한테 만원"),
                Match("아빠한테 2만원", 10, 18, "아빠한테 2만원"),
            ],
        ),
        (
            "용걸이랑 엄마한테 만원씩",  # two people, one request: no part is a task alone
            _whole("용걸이랑 엄마한테 만원씩"),
        ),
        (
            "엄마한테 만원과 아빠한테 2만원",
            [
                Match("엄마한테 만원", 0, 7, "엄마한테 만원"),
                Match("아빠한테 2만원", 9, 17, "아빠한테 2만원"),
            ],
        ),
        (
            "엄마한테 만원 그리고 아빠한테 2만원",
            [
                Match("엄마한테 만원", 0, 7, "엄마한테 만원"),
                Match("아빠한테 2만원", 12, 20, "아빠한테 2만원"),
            ],
        ),
        (
            "send $5 to mom and $10 to dad",
            [
                Match("send $5 to mom", 0, 14, "send $5 to mom"),
                Match("$10 to dad", 19, 29, "$10 to dad"),
            ],
        ),
        (
            "pay rent then call mom",
            [Match("pay rent", 0, 8, "pay rent"), Match("call mom", 14, 22, "call mom")],
        ),
        ("a; b\nc", [Match("a", 0, 1, "a"), Match("b", 3, 4, "b"), Match("c", 5, 6, "c")]),
        (
            "엄마한테 1,000원, 2,000원",
            [
                Match("엄마한테 1,000원", 0, 11, "엄마한테 1,000원"),
                Match("2,000원", 13, 19, "2,000원"),
            ],
        ),
        ("  , 엄마한테 만원 ,", [Match("엄마한테 만원", 4, 11, "엄마한테 만원")]),
        ("10,000원 보내줘", _whole("10,000원 보내줘")),
        ("송금하고싶어", _whole("송금하고싶어")),
        ("송금하고 싶어", _whole("송금하고 싶어")),
        ("엄마랑 얘기했어", _whole("엄마랑 얘기했어")),
        ("엄마하고 함께 갈래", _whole("엄마하고 함께 갈래")),
        ("사과 엄마한테 줘", _whole("사과 엄마한테 줘")),
        ("Android", _whole("Android")),
        ("", []),
        ("   ", []),
    ],
)
def test_split_segments(text: str, expected: list[Match]) -> None:
    assert split_segments(text) == expected
