"""Text -> times of day as Match spans with ``"HH:MM"`` values ("7pm", "19:30", "오후 3시").

Rules (deterministic, no clock):
- 24-hour clock: "19:30", "7:05", "0:00"; hours 0-23, minutes 00-59 ("25:99" is no time).
- 12-hour clock: "7pm", "7 p.m.", "7:30am", "12am" (midnight), "12pm" (noon).
- English words: "noon", "midday" 12:00, "midnight" 00:00, "half past 7" 07:30.
- Korean: "3시", "3시 30분", "3시 반" (:30); 오전/새벽/아침 keep the hour, 오후/저녁/밤 add 12
  to hours 1-11 ("오후 3시" 15:00, "밤 12시" 00:00); 정오 12:00, 자정 00:00.
- An hour with no am/pm word is taken as written: "3시" is 03:00, "7:30" is 07:30.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.precompiled import re_compile

from .spans import Match, non_overlapping

_PM_KO = ("오후", "저녁", "밤")
_AM_KO = ("오전", "새벽", "아침")
_WORDS = {"noon": (12, 0), "midday": (12, 0), "midnight": (0, 0), "정오": (12, 0),
          "자정": (0, 0)}
_I = re.IGNORECASE

Reader = Callable[[re.Match[str]], tuple[int, int] | None]


def find_times(text: str) -> list[Match]:
    """All times of day in ``text``, sorted by start.

    >>> [m.value for m in find_times("오후 3시 반 말고 7pm, or 19:30")]
    ['15:30', '19:00', '19:30']
    """
    found: list[Match] = []
    for pattern, read in _RULES:
        for match in pattern.finditer(text):
            hm = read(match)
            if hm is not None:
                found.append(Match(f"{hm[0]:02d}:{hm[1]:02d}", match.start(), match.end(),
                                   match.group()))
    return non_overlapping(found)


def parse_time(text: str) -> str | None:
    """``text`` as one time of day ("7pm" -> "19:00"), or None when it is not just a time."""
    found = find_times(text.strip())
    if len(found) == 1 and found[0].text == text.strip():
        return str(found[0].value)
    return None


def _clock(hour: int, minute: int) -> tuple[int, int] | None:
    return (hour, minute) if 0 <= hour <= 23 and 0 <= minute <= 59 else None


def _twelve(hour: int, minute: int, pm: bool) -> tuple[int, int] | None:
    if not 1 <= hour <= 12:
        return None
    return _clock(hour % 12 + (12 if pm else 0), minute)


def _digital(m: re.Match[str]) -> tuple[int, int] | None:
    return _clock(int(m["h"]), int(m["m"]))


def _meridiem(m: re.Match[str]) -> tuple[int, int] | None:
    return _twelve(int(m["h"]), int(m["m"] or 0), m["ap"].lower().startswith("p"))


def _word(m: re.Match[str]) -> tuple[int, int] | None:
    return _WORDS[m.group().lower()]


def _half_past(m: re.Match[str]) -> tuple[int, int] | None:
    return _clock(int(m["h"]), 30)


def _korean(m: re.Match[str]) -> tuple[int, int] | None:
    hour = int(m["h"])
    minute = 30 if m["half"] else int(m["m"] or 0)
    part = m["part"]
    if part in _PM_KO:  # "밤 12시" is midnight, "오후 12시" noon
        return _twelve(hour, minute, pm=not (part == "밤" and hour == 12))
    if part in _AM_KO:
        return _twelve(hour, minute, pm=False)
    return _clock(hour, minute)


_AP = r"(?P<ap>[ap])\.?\s?m\.?(?![a-z])"
_RULES: tuple[tuple[re.Pattern[str], Reader], ...] = (
    (re_compile(r"(?<![0-9:])(?P<h>[0-9]{1,2}):(?P<m>[0-9]{2})(?![0-9:])(?!\s*[ap]\.?\s?m\b)",
                _I), _digital),
    (re_compile(rf"(?<![0-9:])(?P<h>[0-9]{{1,2}})(?::(?P<m>[0-9]{{2}}))?\s*{_AP}", _I),
     _meridiem),
    (re_compile(r"\b(?:noon|midday|midnight)\b|정오|자정", _I), _word),
    (re_compile(r"\bhalf\s+past\s+(?P<h>[0-9]{1,2})(?![0-9])", _I), _half_past),
    (re_compile(rf"(?:(?P<part>{'|'.join(_PM_KO + _AM_KO)})\s*)?(?<![0-9])(?P<h>[0-9]{{1,2}})"
                r"\s*시(?!간)(?:\s*(?:(?P<half>반)|(?P<m>[0-9]{1,2})\s*분))?"), _korean),
)

__all__ = ["find_times", "parse_time"]
