"""Our date/time extractors against dateparser on the phrases docs/dsl.md promises.

Run with dateparser installed in some venv (it is not a dependency of flowctl):
    python bench/dateparser_compare.py
Prints, per phrase, what each gives (on Thursday 2026-01-08), then the agreement with
the expected value and the time per phrase. dateparser is given the whole phrase, as
``search_dates`` would be on a message; our extractor finds the span in the text.
"""

from __future__ import annotations

import datetime as dt
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dateparser  # noqa: E402  (installed by hand for this comparison only)
from dateparser.search import search_dates  # noqa: E402

from engine.nlu import find_dates, find_times  # noqa: E402

TODAY = dt.datetime(2026, 1, 8, 9, 0)
DATES = {
    "내일": "2026-01-09", "모레": "2026-01-10", "3일 후": "2026-01-11", "2주 뒤": "2026-01-22",
    "다음주 월요일": "2026-01-12", "이번주 금요일": "2026-01-09", "11월 25일": "2026-11-25",
    "2026년 11월 25일": "2026-11-25", "tomorrow": "2026-01-09",
    "the day after tomorrow": "2026-01-10", "in two weeks": "2026-01-22",
    "next monday": "2026-01-12", "friday": "2026-01-09", "11/25": "2026-11-25",
    "January 20": "2026-01-20", "Jan 20th": "2026-01-20", "20 January": "2026-01-20",
    "March 5, 2027": "2027-03-05", "book a table for jan 9 please": "2026-01-09",
    "엄마한테 내일 만원 보내줘": "2026-01-09",
}
TIMES = {"7pm": "19:00", "19:30": "19:30", "오후 3시": "15:00", "3시 반": "03:30",
         "half past 7": "07:30", "저녁 7시 15분": "19:15", "25:99": None}
SETTINGS = {"RELATIVE_BASE": TODAY, "PREFER_DATES_FROM": "future",
            "DATE_ORDER": "MDY"}


def theirs(text: str, kind: str) -> str | None:
    found = search_dates(text, languages=["en", "ko"], settings=SETTINGS)
    if not found:
        parsed = dateparser.parse(text, languages=["en", "ko"], settings=SETTINGS)
        found = [(text, parsed)] if parsed else None
    if not found:
        return None
    value = found[0][1]
    return value.date().isoformat() if kind == "date" else value.strftime("%H:%M")


def ours(text: str, kind: str) -> str | None:
    if kind == "date":
        found = find_dates(text, TODAY.date())
        return found[0].value.isoformat() if found else None  # type: ignore[union-attr]
    times = find_times(text)
    return str(times[0].value) if times else None


def main() -> None:
    cases = [(t, v, "date") for t, v in DATES.items()] + [(t, v, "time") for t, v in TIMES.items()]
    score = {"ours": 0, "dateparser": 0}
    spent = {"ours": 0.0, "dateparser": 0.0}
    for text, expected, kind in cases:
        row = []
        for name, fn in (("ours", ours), ("dateparser", theirs)):
            start = time.perf_counter()
            got = fn(text, kind)
            spent[name] += time.perf_counter() - start
            score[name] += got == expected
            row.append(f"{name}={got}")
        print(f"{text!r:34} expected={expected}  " + "  ".join(row))
    for name in score:
        print(f"{name}: {score[name]}/{len(cases)} right, "
              f"{spent[name] / len(cases) * 1000:.2f} ms per phrase")


if __name__ == "__main__":
    main()
