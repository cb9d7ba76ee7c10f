"""Money text -> the ISO currency it was written in ("$50" -> "USD", "3만원" -> "KRW").

What ``Match.unit`` reports for a money amount (spans.py), so a money slot can refuse an
amount in a currency it does not hold. Kept apart from money.py, which builds its Match
spans on spans.py: the arrows run money -> spans -> currency, never back.
"""

from __future__ import annotations

import re

from engine.precompiled import re_compile

__all__ = ["currency_of"]

_UNITS = (("KRW", re_compile(r"원|₩|\b(?:won|krw)\b", re.IGNORECASE)),
          ("USD", re_compile(r"\$|달러|\b(?:usd|dollars?|bucks?)\b", re.IGNORECASE)),
          ("EUR", re_compile(r"€|\b(?:eur|euros?)\b", re.IGNORECASE)),
          ("GBP", re_compile(r"£")))


def currency_of(text: str) -> str | None:
    """The ISO currency a money text names ("$50" -> "USD", "3만원" -> "KRW"), if any.

    >>> currency_of("50 dollars"), currency_of("3만원"), currency_of("10k")
    ('USD', 'KRW', None)
    """
    return next((code for code, pattern in _UNITS if pattern.search(text)), None)
