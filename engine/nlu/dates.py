"""Text + today -> dates as Match spans ("내일", "3일 후", "다음주 월요일", "11/25", "next monday").

Everything is relative to the injected ``today``; nothing reads the clock.

Resolution rules:
- Words: 오늘 0, 내일 (낼, a word of its own) +1, 모레 (내일모레, 낼모레) +2, 글피 +3, 어제
  -1, 그저께 (엊그제) -2; today, tomorrow, yesterday, (the) day after tomorrow +2, (the) day before
  yesterday -2.
- Offsets: "3일 후/뒤/전", "2주 뒤", 하루/이틀/사흘/나흘/일주일 후; "in 3 days",
  "in two weeks", "3 days later/from now/ago".
- Full dates: "2026-11-25", "2026/11/25", "2026.11.25", "2026년 11월 25일".
- English month names: "January 20", "Jan 20th", "20 January", "20th of January, 2027"
  ("May" only capitalised, since "may" is a verb).
- Month and day without a year ("11월 25일", "11/25", month first; said in Hangul numerals
  too: "삼월 이십일", "시월 삼일", "유월 오일"): the next occurrence on
  or after today - this year if it has not passed, else next year ("2/29" waits for the
  next leap year).
- Weekdays (weeks start on Monday, as in ISO 8601): "다음주 월요일"/"next monday" is that
  day in next week; "이번주 금요일"/"this friday" is that day in this week, even if it has
  already passed; "지난주/저번주 X"/"last X" is that day in last week; a bare "금요일",
  "friday" or "coming friday" is the next occurrence on or after today.
- A day of the month alone ("25일에", "1일까지", "15일로"): the next such day on or after
  today (this month's, else the next month's that has it); "다음 달 10일", "이번 달 30일":
  that month's. Not a count of days ("3일 후", "2일 동안", "3일간"). "크리스마스",
  "Christmas (day)": the next 25 December ("크리스마스 전에" is no date: vague_times.py).
- Impossible dates ("2026-02-30", "13/45") are skipped, never raised.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta

from engine.precompiled import re_compile

from .numbers import EN_NUMBER_WORDS, parse_numeral
from .spans import Match, non_overlapping

Resolver = Callable[[re.Match[str], date], date | None]

_KO_WORD_DAYS = {"내일모레": 2, "낼모레": 2, "오늘": 0, "내일": 1, "모레": 2, "글피": 3, "어제": -1,
                 "그저께": -2, "엊그제": -2}  # longest first: "내일모레" is no 내일
_EN_WORD_DAYS = {"today": 0, "tomorrow": 1, "yesterday": -1, "after": 2, "before": -2}
_KO_SPAN_DAYS = {"하루": 1, "이틀": 2, "사흘": 3, "나흘": 4, "일주일": 7}
_KO_WEEKDAYS = {c: i for i, c in enumerate("월화수목금토일")}
_EN_WEEKDAYS = {
    name: i
    for i, name in enumerate(
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    )
}
_WEEK_SHIFT = {
    "다음": 1,
    "담": 1,
    "next": 1,
    "이번": 0,
    "this": 0,
    "지난": -1,
    "저번": -1,
    "last": -1,
}
_EN_MONTHS = {name[:3]: i for i, name in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"), start=1)}
_EN_MONTH = (r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|(?-i:May|MAY)|june?|july?"
             r"|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_ORDINAL = r"(?:st|nd|rd|th)?"
_EN_COUNT = r"[0-9]+|an?|" + "|".join(EN_NUMBER_WORDS)
_I = re.IGNORECASE
_TOMORROW_SHORT = re_compile(
    r"(?<![가-힣])낼(?=$|[\s,.!~]|로|은|도|에|까지|쯤|부터|아침|점심|저녁|오전|오후|밤|중)"
    r"|\b(?:tmrw|tmr|tmrow|tmrrw|tomoz|tomorow|tommorow|tommorrow|2moro|2morrow|2mrw)\b", _I)
"""Tomorrow as it is typed short: 낼 ("낼 보내줘"; not the 낼 of "보낼래"), "tmrw", "2moro"."""


def find_dates(text: str, today: date) -> list[Match]:
    """All dates in ``text`` resolved against ``today``, sorted by start.

    >>> [m.value.isoformat() for m in find_dates("내일 말고 11월 25일", date(2026, 11, 22))]
    ['2026-11-23', '2026-11-25']
    """
    if not _MAYBE_DATE.search(text):
        return []  # most messages name no date; skip the rules below
    found: list[Match] = []
    for pattern, resolve in _RULES:
        for match in pattern.finditer(text):
            value = resolve(match, today)
            if value is not None:
                found.append(Match(value, match.start(), match.end(), match.group()))
    return non_overlapping(found)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:  # "2026-02-30": not a date, so not a match
        return None


def _shift(today: date, days: int) -> date | None:
    try:
        return today + timedelta(days=days)
    except OverflowError:  # "99999999일 후" is beyond date.max
        return None


def _full(match: re.Match[str], today: date) -> date | None:
    return _safe_date(int(match["y"]), int(match["m"]), int(match["d"]))


def _month_day(match: re.Match[str], today: date) -> date | None:
    return _next_occurrence(int(match["m"]), int(match["d"]), today)


_KO_MONTHS = {"유": 6, "육": 6, "시": 10, "십": 10}  # 유월, 시월 as they are said


def _said_month_day(match: re.Match[str], today: date) -> date | None:
    """"삼월 이십일", "시월 3일", "유월 오일": a month and day said in Hangul numerals (the
    last 일 counts the day: "이십일" is the 20th, "이십일일" the 21st)."""
    month = _KO_MONTHS.get(match["m"]) or _numeral(match["m"])
    day = _numeral(match["d"])
    return None if month is None or day is None else _next_occurrence(month, day, today)


def _numeral(said: str) -> int | None:
    value = int(said) if said.isdigit() else parse_numeral(said)
    return int(value) if value is not None else None


def _next_occurrence(month: int, day: int, today: date) -> date | None:
    # Eight years always reach a leap year, so "2/29" resolves; "13/45" never does.
    for year in range(today.year, today.year + 9):
        candidate = _safe_date(year, month, day)
        if candidate is not None and candidate >= today:
            return candidate
    return None


def _en_month(match: re.Match[str], today: date) -> date | None:
    """"January 20", "Jan 20th, 2027", "20 January": dated, or the next occurrence."""
    month = _EN_MONTHS[(match["mon"] or match["mon2"]).lower()[:3]]
    day = int(match["d"] or match["d2"])
    if match["y"]:
        return _safe_date(int(match["y"]), month, day)
    return _next_occurrence(month, day, today)


def _ko_word(match: re.Match[str], today: date) -> date | None:
    return _shift(today, _KO_WORD_DAYS[match.group()])


def _en_word(match: re.Match[str], today: date) -> date | None:
    return _shift(today, _EN_WORD_DAYS[match["w"].lower()])


def _ko_offset(match: re.Match[str], today: date) -> date | None:
    days = int(match["n"]) if match["n"] else _KO_SPAN_DAYS[match["span"]]
    days *= 7 if match["unit"] == "주" else 1
    return _shift(today, -days if match["dir"] == "전" else days)


def _en_offset(match: re.Match[str], today: date) -> date | None:
    count = match["n"].lower()
    days = int(count) if count.isdigit() else EN_NUMBER_WORDS.get(count, 1)  # "a"/"an" -> 1
    days *= 7 if match["unit"].lower().startswith("week") else 1
    return _shift(today, -days if (match["dir"] or "").lower() == "ago" else days)


def _day_of_month(match: re.Match[str], today: date) -> date | None:
    """"25일에": the next 25th on or after today; "다음 달 10일", "이번 달 30일": that month's."""
    day, relative = int(match["d"]), (match["rel"] or "").lower()
    months = [1] if relative in ("다음", "담", "next") else [0] if relative in ("이번", "this") \
        else [0, 1, 2]
    for ahead in months:
        year, month = divmod(today.month - 1 + ahead, 12)
        candidate = _safe_date(today.year + year, month + 1, day)
        if candidate is not None and (relative or candidate >= today):
            return candidate
    return None


def _last_day(match: re.Match[str], today: date) -> date | None:
    """"말일", "이번 달 말일", "다음 달 말일", "the last day of next month": that month's last
    day (a bare 말일 is this month's)."""
    ahead = 1 if (match["rel"] or match["rel2"] or "").lower() in ("다음", "담", "next") else 0
    year, month = divmod(today.month + ahead, 12)  # the month after the one meant
    after = _safe_date(today.year + year, month + 1, 1)
    return after - timedelta(days=1) if after is not None else None


def _christmas(match: re.Match[str], today: date) -> date | None:
    return _next_occurrence(12, 25, today)


def _weekday(match: re.Match[str], today: date) -> date | None:
    name = match["wd"].lower()
    weekday = _EN_WEEKDAYS[name] if name in _EN_WEEKDAYS else _KO_WEEKDAYS[name]
    relative = (match["rel"] or "").lower()
    if relative in _WEEK_SHIFT:
        monday = today - timedelta(days=today.weekday())
        return _shift(monday, 7 * _WEEK_SHIFT[relative] + weekday)
    return _shift(today, (weekday - today.weekday()) % 7)


# Every rule below needs one of these; checking it first keeps date-free messages cheap.
_MAYBE_DATE = re_compile(
    r"[0-9]|오늘|내일|모레|글피|어제|그저께|그제|하루|이틀|사흘|나흘|일주일|요일|욜|day|week"
    r"|tomorrow|크리스마스|christmas|낼|tm|tom|2mo|2mr|[일이삼사오유육칠팔구시십]\s?월|말일", _I)

_RULES: tuple[tuple[re.Pattern[str], Resolver], ...] = (
    (
        re_compile(
            r"(?<![0-9])(?P<y>[0-9]{4})(?P<sep>[-./])(?P<m>[0-9]{1,2})(?P=sep)(?P<d>[0-9]{1,2})"
            r"(?![0-9])"
        ),
        _full,
    ),
    (
        re_compile(
            r"(?<![0-9])(?P<y>[0-9]{4})\s*년\s*(?P<m>[0-9]{1,2})\s*월\s*(?P<d>[0-9]{1,2})\s*일"
        ),
        _full,
    ),
    (re_compile(r"(?<![0-9])(?P<m>[0-9]{1,2})\s*월\s*(?P<d>[0-9]{1,2})\s*일"), _month_day),
    (re_compile(r"(?<![0-9/.\-])(?P<m>[0-9]{1,2})/(?P<d>[0-9]{1,2})(?![0-9/])"), _month_day),
    (  # "삼월 이십일", "시월 3일", "12월 이십오일": a month and a day, one said in Hangul
        re_compile(r"(?<![가-힣0-9])(?P<m>십[일이]|[일이삼사오유육칠팔구시십]|[0-9]{1,2})\s?월\s*"
                   r"(?P<d>[일이삼사오육칠팔구십]{1,4}(?=일)|[0-9]{1,2})\s?일"),
        _said_month_day,
    ),
    (  # a day of the month alone: "25일에", "다음 달 10일" (not "3일 후", "2일 동안", "1일치")
        re_compile(r"(?:(?P<rel>이번|다음|담)\s?달\s*)?(?<![0-9월.\-/])(?<!월\s)"
                   r"(?P<d>[1-9]|[12][0-9]|3[01])\s?일(?=에|날|까지|쯤|경|로|[\s,.!?~]|$|이에요|이예요"
                   r"|예요|이요|요(?![가-힣])|입니다|이야(?![가-힣])|이\s*아니)"  # "25일이에요",
                   # "20일이 아니라": the day said as what it is
                   r"(?!\s*(?:후|뒤|전|있다가|간|동안|째|마다|이내|내|만에|[0-9]))"),
        _day_of_month,
    ),
    (  # "on the 15th", "the 3rd of next month" (not "the 15th floor", "my 15th birthday")
        re_compile(r"\b(?:on\s+)?the\s+(?P<d>[1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)\b"
                   r"(?:\s+of\s+(?P<rel>this|next)\s+month\b)?"
                   r"(?=\s*(?:$|[,.!?~]|(?:please|pls|plz|and|at|for|to|then|thanks|thx|"
                   r"instead|ok|okay|send|transfer|pay|wire|give)\b))", _I),
        _day_of_month,
    ),
    (re_compile(r"(?:(?P<rel>이번|다음|담)\s?달\s*)?말일"
                r"|\b(?:the\s+)?last\s+day\s+of\s+(?:the\s+|(?P<rel2>this|next)\s+)?month\b", _I),
     _last_day),
    (re_compile(r"(?<!메리 )(?<!메리)크리스마스(?!\s?(?:전|후|뒤|쯤|까지|이브|때|지나))"
                r"|(?<!merry )(?<!before )(?<!after )(?<!until )(?<!till )(?<!by )(?<!around )"
                r"(?<!over )(?<!near )\bchristmas(?: day)?\b(?!\s?(?:eve|time|week|holidays?))",
                _I),
     _christmas),
    (
        re_compile(
            rf"\b(?:{_EN_MONTH}\s+(?P<d>[0-9]{{1,2}}){_ORDINAL}"
            rf"|(?P<d2>[0-9]{{1,2}}){_ORDINAL}\s+(?:of\s+)?{_EN_MONTH.replace('mon', 'mon2')})"
            r"(?:,?\s+(?P<y>[0-9]{4}))?(?![0-9])",
            _I,
        ),
        _en_month,
    ),
    (re_compile("|".join(_KO_WORD_DAYS)), _ko_word),
    (re_compile(r"\b(?:the\s+)?day\s+(?P<w>after)\s+tomorrow\b", _I), _en_word),
    (re_compile(r"\b(?:the\s+)?day\s+(?P<w>before)\s+yesterday\b", _I), _en_word),
    (re_compile(r"\b(?P<w>today|tomorrow|yesterday)(?![A-Za-z0-9])", _I), _en_word),
    (_TOMORROW_SHORT, lambda match, today: _shift(today, 1)),
    (
        re_compile(
            r"(?:(?<![0-9])(?P<n>[0-9]+)\s*(?P<unit>일|주)|(?P<span>하루|이틀|사흘|나흘|일주일))"
            r"\s*(?P<dir>후|뒤|전|있다가)"
        ),
        _ko_offset,
    ),
    (re_compile(rf"\bin\s+(?P<n>{_EN_COUNT})\s+(?P<unit>days?|weeks?)\b(?P<dir>)", _I), _en_offset),
    (
        re_compile(
            rf"\b(?P<n>{_EN_COUNT})\s+(?P<unit>days?|weeks?)\s+(?P<dir>later|from\s+now|ago)\b",
            _I,
        ),
        _en_offset,
    ),
    (
        # "금욜", "담주 화욜": the day typed short
        re_compile(r"(?:(?P<rel>다음|담|이번|지난|저번)\s*주\s*)?(?P<wd>[월화수목금토일])(?:요일|욜)"),
        _weekday,
    ),
    (
        re_compile(
            r"\b(?:(?P<rel>next|this|last|coming)\s+)?"
            rf"(?P<wd>{'|'.join(_EN_WEEKDAYS)})(?![A-Za-z0-9])",  # "friday로" too
            _I,
        ),
        _weekday,
    ),
)

ANY_DAY = date(2000, 1, 1)
"""A day to read dates against where only whether a text names one matters."""
