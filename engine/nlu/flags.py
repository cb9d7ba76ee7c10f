"""Message + a yes/no slot's own words -> its value when the message names it.

A boolean slot is said in passing as often as it is answered: "a large pizza with extra
cheese" gives ``cheese: true``, "no extra cheese" and "without cheese" give false. The
slot's words are its description and its name ("extra cheese", "cheese"), matched as
whole words, longest first; a negation right before them ("no", "not", "without", "don't
want", "빼고", "없이") makes the value false.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .spans import Match

_NEGATION_BEFORE = re.compile(
    r"(?:\b(?:no|not|without|dont want|don't want|hold the|skip the|minus)\s+(?:the\s+|any\s+)?"
    r"|(?:안|노)\s?)$", re.IGNORECASE)
_NEGATION_AFTER = re.compile(r"^\s*(?:빼고|빼 ?주세요|빼줘|없이|말고|는 ?빼|은 ?빼|노노|x\b)",
                             re.IGNORECASE)


def flag_words(name: str, description: str) -> tuple[str, ...]:
    """The words that name a yes/no slot, longest first: its description and its name.

    >>> flag_words("cheese", "extra cheese")
    ('extra cheese', 'cheese')
    """
    words = {w.strip().casefold() for w in (description, name.replace("_", " ")) if w.strip()}
    return tuple(sorted(words, key=len, reverse=True))


def find_flag(text: str, words: Sequence[str]) -> list[Match]:
    """The slot named in ``text``: True, or False when negated.

    >>> [m.value for m in find_flag("a large one with extra cheese", ("extra cheese", "cheese"))]
    [True]
    >>> [m.value for m in find_flag("no extra cheese please", ("extra cheese", "cheese"))]
    [False]
    """
    folded = text.casefold()
    for word in words:
        pattern = re.compile(rf"(?<![\w]){re.escape(word)}(?![\w])" if word.isascii()
                             else re.escape(word))
        match = pattern.search(folded)
        if match is None:
            continue
        negated = bool(_NEGATION_BEFORE.search(folded[:match.start()]) or
                       _NEGATION_AFTER.match(folded[match.end():]))
        return [Match(value=not negated, start=match.start(), end=match.end(),
                      text=text[match.start():match.end()])]
    return []


__all__ = ["find_flag", "flag_words"]
