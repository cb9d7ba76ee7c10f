"""find_dates: relative words, offsets, full and partial dates, weekdays, invalid dates."""

from datetime import date

import pytest

from engine.nlu import Match, find_dates

SUNDAY = date(2026, 11, 22)
WEDNESDAY = date(2026, 11, 25)


@pytest.mark.parametrize(
    ("text", "today", "expected"),
    [
        ("오늘", SUNDAY, date(2026, 11, 22)),
        ("내일", SUNDAY, date(2026, 11, 23)),
        ("모레", SUNDAY, date(2026, 11, 24)),
        ("글피", SUNDAY, date(2026, 11, 25)),
        ("어제", SUNDAY, date(2026, 11, 21)),
        ("그저께", SUNDAY, date(2026, 11, 20)),
        ("today", SUNDAY, date(2026, 11, 22)),
        ("Tomorrow", SUNDAY, date(2026, 11, 23)),
        ("yesterday", SUNDAY, date(2026, 11, 21)),
        ("day after tomorrow", SUNDAY, date(2026, 11, 24)),
        ("the day before yesterday", SUNDAY, date(2026, 11, 20)),
        ("2026-11-25", SUNDAY, date(2026, 11, 25)),
        ("2026.11.25", SUNDAY, date(2026, 11, 25)),
        ("2026년 11월 25일", SUNDAY, date(2026, 11, 25)),
        ("11월 25일", SUNDAY, date(2026, 11, 25)),
        ("11월 22일", SUNDAY, date(2026, 11, 22)),  # today counts as the next occurrence
        ("11월 20일", SUNDAY, date(2027, 11, 20)),  # already past: next year
        ("11/25", SUNDAY, date(2026, 11, 25)),
        ("1/5", SUNDAY, date(2027, 1, 5)),
        ("2/29", SUNDAY, date(2028, 2, 29)),  # waits for the next leap year
        ("3일 후", SUNDAY, date(2026, 11, 25)),
        ("3일 뒤", SUNDAY, date(2026, 11, 25)),
        ("3일후", SUNDAY, date(2026, 11, 25)),
        ("3일 전", SUNDAY, date(2026, 11, 19)),
        ("2주 뒤", SUNDAY, date(2026, 12, 6)),
        ("이틀 후", SUNDAY, date(2026, 11, 24)),
        ("in 3 days", SUNDAY, date(2026, 11, 25)),
        ("in two weeks", SUNDAY, date(2026, 12, 6)),
        ("in a week", SUNDAY, date(2026, 11, 29)),
        ("3 days ago", SUNDAY, date(2026, 11, 19)),
        ("5 days later", SUNDAY, date(2026, 11, 27)),
        ("다음주 월요일", SUNDAY, date(2026, 11, 23)),
        ("다음 주 월요일", WEDNESDAY, date(2026, 11, 30)),
        ("next monday", WEDNESDAY, date(2026, 11, 30)),
        ("Next Monday", SUNDAY, date(2026, 11, 23)),
        ("이번주 금요일", WEDNESDAY, date(2026, 11, 27)),
        ("this friday", WEDNESDAY, date(2026, 11, 27)),
        ("이번주 금요일", SUNDAY, date(2026, 11, 20)),  # this week's Friday, even if past
        ("지난주 금요일", WEDNESDAY, date(2026, 11, 20)),
        ("last friday", WEDNESDAY, date(2026, 11, 20)),
        ("금요일", WEDNESDAY, date(2026, 11, 27)),
        ("friday", SUNDAY, date(2026, 11, 27)),
        ("수요일", WEDNESDAY, date(2026, 11, 25)),
    ],
)
def test_single_date(text: str, today: date, expected: date) -> None:
    assert find_dates(text, today) == [Match(expected, 0, len(text), text)]


@pytest.mark.parametrize(
    "text",
    ["2026-02-30", "13/45", "2026년 2월 30일", "3개", "내용 없음", "99999999일 후", ""],
)
def test_no_date(text: str) -> None:
    assert find_dates(text, SUNDAY) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "내일 말고 11월 25일에 보내줘",
            [
                Match(date(2026, 11, 23), 0, 2, "내일"),
                Match(date(2026, 11, 25), 6, 13, "11월 25일"),
            ],
        ),
        (
            "send it the day after tomorrow",
            [Match(date(2026, 11, 24), 8, 30, "the day after tomorrow")],
        ),
        ("2026-11-25까지", [Match(date(2026, 11, 25), 0, 10, "2026-11-25")]),
    ],
)
def test_spans(text: str, expected: list[Match]) -> None:
    assert find_dates(text, SUNDAY) == expected


@pytest.mark.parametrize(("text", "today", "expected"), [
    ("28일에 월세 보내줘", SUNDAY, date(2026, 11, 28)),  # this month's, still ahead
    ("15일까지 보내줘", SUNDAY, date(2026, 12, 15)),  # passed this month: next month's
    ("22일 보내줘", SUNDAY, date(2026, 11, 22)),  # today is on or after today
    ("30일에", date(2027, 1, 31), date(2027, 3, 30)),  # no 30 February: the month after
    ("담달 5일에 넣어줘", SUNDAY, date(2026, 12, 5)),
    ("이번 달 3일", SUNDAY, date(2026, 11, 3)),  # as said, even if passed
    ("크리스마스 날 보내줘", SUNDAY, date(2026, 12, 25)),
    ("send it on Christmas", date(2026, 12, 26), date(2027, 12, 25)),
])
def test_a_day_of_the_month_alone_or_christmas(text: str, today: date, expected: date) -> None:
    assert [m.value for m in find_dates(text, today)] == [expected]


@pytest.mark.parametrize("text", ["5일 동안 매일", "이틀 아니고 3일간", "1일 2회", "7일치 약",
                                  "크리스마스 전에", "merry christmas", "메리크리스마스",
                                  "christmas eve", "before Christmas", "around christmas"])
def test_a_count_of_days_or_a_time_near_christmas_is_no_date(text: str) -> None:
    assert find_dates(text, SUNDAY) == []


def test_days_after_today_stay_a_count() -> None:
    assert [m.value for m in find_dates("4일 뒤에", SUNDAY)] == [date(2026, 11, 26)]
