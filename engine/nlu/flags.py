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

from engine.precompiled import re_compile

from .spans import Match

_NEGATION_BEFORE = re_compile(
    r"(?:(?:\b(?:no|not|without|dont want|don't want|hold the|skip the|minus)|\bw/o|\bw/out)"
    r"\s*(?:the\s+|any\s+)?"
    r"|(?:안|노)\s?)$", re.IGNORECASE)
_NEGATION_AFTER = re_compile(r"^\s*(?:빼고|빼 ?주세요|빼줘|없이|말고|는 ?빼|은 ?빼|노노|x\b)",
                             re.IGNORECASE)


def flag_words(name: str, description: str) -> tuple[str, ...]:
    """The words that name a yes/no slot, longest first: its description and its name.

    >>> flag_words("cheese", "extra cheese")
    ('extra cheese', 'cheese')
    """
    words = {w.strip().casefold() for w in (description, name.replace("_", " ")) if w.strip()}
    return tuple(sorted(words, key=len, reverse=True))


_LESS_BEFORE = re_compile(
    r"\b(?:regular|normal|standard|usual|plain|light|less|little|easy on|go easy on|light on|"
    r"go light on|not much|not too much)\s+(?:the\s+)?$", re.IGNORECASE)
_KIND_BEFORE = re_compile(r"\b(?:two|three|four|five|[2-5])[\s-]*$", re.IGNORECASE)
# Words that may follow the slot's name without the name modifying them: "cheese please",
# "cheese on it", "cheese and olives"; any other word after it makes the name part of a
# thing's name ("cheese pizza", "cheese sticks").
_AFTER_OK = frozenset(
    "please pls plz and on too with for is to thanks thank as also ok okay if but or only "
    "then in at i we it that this a the no yes so please! on top both".split())


def find_flag(text: str, words: Sequence[str]) -> list[Match]:
    """The slot named in ``text``: True, or False when negated; the last mention wins ("extra
    cheese, actually no, no extra cheese": false).

    The slot's bare name (its last, shortest word) says less than its description: part of
    a thing's name it gives nothing ("a cheese pizza", "four cheese"); said as the usual or
    as less ("regular cheese", "go light on the cheese") it is false.

    >>> [m.value for m in find_flag("a large one with extra cheese", ("extra cheese", "cheese"))]
    [True]
    >>> [m.value for m in find_flag("no extra cheese please", ("extra cheese", "cheese"))]
    [False]
    >>> find_flag("a medium cheese pizza", ("extra cheese", "cheese"))
    []
    """
    folded = text.casefold()
    found: list[Match] = []
    taken: list[tuple[int, int]] = []
    for rank, word in enumerate(words):
        bare = rank == len(words) - 1 and len(words) > 1
        pattern = re.compile(rf"(?<![\w]){re.escape(word)}(?![\w])" if word.isascii()
                             else re.escape(word))
        for match in pattern.finditer(folded):
            start, end = match.span()
            if any(a <= start < b for a, b in taken):
                continue  # inside a longer word's mention ("extra cheese")
            taken.append((start, end))
            value = _flag_value(folded, start, end, bare=bare and word.isascii())
            if value is not None:
                found.append(Match(value=value, start=start, end=end, text=text[start:end]))
    return [max(found, key=lambda m: m.start)] if found else []


def _flag_value(folded: str, start: int, end: int, *, bare: bool) -> bool | None:
    before, after = folded[:start], folded[end:]
    if _NEGATION_BEFORE.search(before) or _NEGATION_AFTER.match(after):
        return False
    if not bare:
        return True
    following = re.match(r"\s+([a-z]+)", after)
    if (following and following.group(1) not in _AFTER_OK) or _KIND_BEFORE.search(before):
        return None  # "cheese pizza", "four cheese": a kind of the thing, not the option
    if _LESS_BEFORE.search(before):
        return False
    return True


__all__ = ["find_flag", "flag_words"]
