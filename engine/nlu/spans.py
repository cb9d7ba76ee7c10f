"""Text + author regexes -> non-overlapping Match spans; also the Match type every extractor shares.

A pattern contributes its named group ``value`` when it has one (and it took part in the
match), otherwise the whole match. The span of a Match is the span of that value after
surrounding whitespace is stripped, so callers can tell which segment of a message it
came from. When matches overlap, the longest wins (the earliest on a tie).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from .currency import currency_of

MatchValue = int | float | str | date | bool


@dataclass(frozen=True, slots=True)
class Match:
    """One extracted value and where it was found.

    >>> Match(value=10000, start=5, end=8, text="1만원").value
    10000
    """

    value: MatchValue
    start: int  # span in the input text, end exclusive
    end: int
    text: str  # the matched source text, text[start:end] of the input

    @property
    def unit(self) -> str | None:
        """The currency a money amount was written in (ISO code), when the text says."""
        return currency_of(self.text)


def non_overlapping(matches: Iterable[Match]) -> list[Match]:
    """Keep the longest of overlapping matches (earliest on a tie), sorted by start.

    >>> [m.text for m in non_overlapping([Match(1, 0, 2, "ab"), Match(2, 1, 4, "bcd")])]
    ['bcd']
    """
    chosen: list[Match] = []
    # Longest first, so a short match never blocks a longer one that starts earlier or later.
    for match in sorted(matches, key=lambda m: (m.start - m.end, m.start)):
        if all(match.end <= kept.start or match.start >= kept.end for kept in chosen):
            chosen.append(match)
    return sorted(chosen, key=lambda m: m.start)


def find_pattern(text: str, patterns: Sequence[re.Pattern[str]]) -> list[Match]:
    """Run every pattern over ``text``; value is group ``value`` (or the whole match), stripped.

    >>> target = re.compile(r"(?P<value>[^\\s,]+?)(?:한테|에게|께)")
    >>> find_pattern("엄마한테 만원", [target])[0].value
    '엄마'
    """
    found = (_to_match(text, m) for pattern in patterns for m in pattern.finditer(text))
    return non_overlapping(m for m in found if m is not None)


def _to_match(text: str, match: re.Match[str]) -> Match | None:
    group: int | str = "value" if "value" in match.re.groupindex else 0
    start, end = match.span(group)
    if start < 0:  # the optional `value` group did not take part in this match
        start, end = match.span()
    raw = text[start:end]
    value = raw.strip()
    if not value:
        return None
    start += len(raw) - len(raw.lstrip())
    return Match(value=value, start=start, end=start + len(value), text=value)
