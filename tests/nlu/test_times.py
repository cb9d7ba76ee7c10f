"""Times of day ("7pm", "19:30", "오후 3시", "3시 반") and English month names in dates."""

from __future__ import annotations

import datetime as dt

import pytest

from engine.nlu import find_dates, find_times, parse_time

TIMES = [
    ("7pm", "19:00"), ("7 p.m.", "19:00"), ("at 7:30am", "07:30"), ("12am", "00:00"),
    ("12pm", "12:00"), ("19:30", "19:30"), ("0:05", "00:05"), ("noon", "12:00"),
    ("midnight", "00:00"), ("half past 7", "07:30"), ("오후 3시", "15:00"),
    ("3시 반", "03:30"), ("저녁 7시 15분", "19:15"), ("오전 10시", "10:00"),
    ("밤 12시", "00:00"), ("오후 12시", "12:00"), ("정오", "12:00"), ("자정", "00:00"),
]


@pytest.mark.parametrize(("text", "value"), TIMES)
def test_a_time_of_day(text: str, value: str) -> None:
    assert [m.value for m in find_times(text)] == [value]


@pytest.mark.parametrize("text", ["25:99", "24:00", "13pm", "0am", "3시간", "2026-01-08",
                                  "7", "10:61", "1:2:3"])
def test_no_time(text: str) -> None:
    assert find_times(text) == []


def test_parse_time_takes_only_a_whole_time() -> None:
    assert (parse_time(" 7pm "), parse_time("7pm please"), parse_time("19:30")) == (
        "19:00", None, "19:30")
    assert parse_time("25:99") is None


THURSDAY = dt.date(2026, 1, 8)


@pytest.mark.parametrize(("text", "value"), [
    ("January 20", "2026-01-20"), ("Jan 20th", "2026-01-20"), ("20 January", "2026-01-20"),
    ("the 3rd of March", "2026-03-03"), ("on Dec. 3 please", "2026-12-03"),
    ("January 2", "2027-01-02"),  # passed this year: the next one
    ("March 5, 2027", "2027-03-05"), ("5 March 2027", "2027-03-05"), ("May 2", "2026-05-02"),
    ("sept 1st", "2026-09-01"),
])
def test_english_month_names(text: str, value: str) -> None:
    assert [m.value.isoformat() for m in find_dates(text, THURSDAY)] == [value]


@pytest.mark.parametrize("text", ["Feb 30", "I may 2 people", "January 32", "jan"])
def test_no_english_month_date(text: str) -> None:
    assert find_dates(text, THURSDAY) == []
