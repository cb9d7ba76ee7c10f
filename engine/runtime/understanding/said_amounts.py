"""A plain number said as a flow's amount: with one of the flow's own verbs ("엄마한테 50000
보내줘", "send jisoo 50000"), after whom it goes to ("엄마한테 10000, 아빠한테 20000 보내줘") or
as what the amount is to be ("40000으로 바꿔줘", "make it 50000"). Only in a flow whose one
number is that amount: elsewhere a plain number may be a count.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from functools import lru_cache

from engine.compiler.compiled import CompiledSlot
from engine.nlu import Match, find_pattern
from engine.nlu.persons import named_before
from engine.precompiled import re_compile
from engine.runtime.understanding.bare import LEAST_BARE
from engine.runtime.understanding.finders import find_all, holds_names


def find_with_verbs(text: str, slots: Sequence[CompiledSlot], today: dt.date,
                    verbs: tuple[str, ...]) -> list[tuple[CompiledSlot, list[Match]]]:
    """``find_all``, with the plain numbers said with the flow's ``verbs`` as amounts, and
    whom "him" or "her" after one of them stands for as a name ("it's Priya's birthday, send
    her 50k": Priya)."""
    return [(s, [*ms, *sent_amounts(text, s, verbs)] if verbs and s.spec.type == "money" else
             ms or referred(text, s, verbs))
            for s, ms in find_all(text, slots, today)]


def referred(text: str, slot: CompiledSlot, verbs: tuple[str, ...]) -> list[Match]:
    """The one person named before "him"/"her" said as whom the flow's verb is done to
    ("send her 50k", "transfer it to him"), for a slot that holds names; else none."""
    if not verbs or not holds_names(slot) or not PRONOUN.search(text):
        return []
    said = _referring(tuple(v for v in verbs if v.isascii())).search(text)
    named = named_before(text, said.start()) if said else None
    return [named] if named is not None else []


def referring(text: str, found: Sequence[tuple[CompiledSlot, list[Match]]],
              verbs: tuple[str, ...]) -> bool:
    """Whether a name found is only whom a later "him" or "her" stands for ("I owe Hannah
    for lunch, send her 33k"): one task, said across the message, not a batch."""
    return bool(PRONOUN.search(text)) and any(
        ms and ms == referred(text, slot, verbs) and not find_pattern(text, slot.patterns)
        for slot, ms in found)


PRONOUN = re_compile(r"\b(?:him|her)\b", re.IGNORECASE)


@lru_cache(maxsize=64)
def _referring(verbs: tuple[str, ...]) -> re.Pattern[str]:
    said = "|".join(map(re.escape, verbs)) or "(?!)"
    return re.compile(rf"\b(?:{said})\w*\s+(?:(?:it|the\s+money|\S*\d\S*)\s+to\s+)?(?:him|her)\b",
                      re.IGNORECASE)


def sent_amounts(text: str, slot: CompiledSlot, verbs: tuple[str, ...]) -> list[Match]:
    """A plain number said with one of the flow's own words of doing it, as its money slot's
    value: "엄마한테 50000 보내줘", "30,000 좀 이체해 주세요", "send jisoo 50000", "transfer
    40000 to my brother"; or said as what the amount is to be ("40000으로 바꿔줘", "make it
    50000", "25000 instead"). Digits only ("오만" is also a word), never under the currency's
    least plain amount, never one that starts with 0 or stands among dashes (a phone or an
    account number), before a counter ("3000명") or after a word of a bound ("about",
    "over")."""
    if not verbs or not _DIGITS.search(text):
        return []
    least = LEAST_BARE.get(slot.spec.currency or "", 100)
    found = []
    for at in (m for p in _sending(verbs) for m in p.finditer(text)):
        group = next(g for g in ("n", "m", "i") if g in at.re.groupindex and at[g])
        value = int(at[group].replace(",", ""))
        if value >= least:
            found.append(Match(value=value, start=at.start(group), end=at.end(group),
                               text=at[group]))
    return found


_DIGITS = re_compile(r"[1-9][0-9,]{2}")
_NUMBER = r"(?<![\w.,\-])(?<![0-9][\s\-])(?P<n>[1-9][0-9]{0,2}(?:,[0-9]{3})+|[1-9][0-9]*)"
_BOUND = r"about|around|roughly|approximately|like|only|just|over|under|up|at|least|most|" \
    r"more|less|than|maybe|another|extra|some|me|it|them|back|again|him|her|us|the|a|an"
_THEN = r"(?![0-9A-Za-z가-힣%\-]|[.,][0-9])(?=\s*(?:$|[.!?,~]|(?:to|please|pls|plz|now|" \
    r"today|tonight|tomorrow|tmr|on|for|asap|right|thanks|thx|and|from|via|by)\b))"
_TO_BE = re_compile(
    rf"{_NUMBER}(?:으로|로)(?=\s*(?:$|[.!~,]|(?:해|바꿔|바꾸|변경|수정|고쳐|하자|할게|갈게|보내|이체|"
    r"송금|부탁)))"
    rf"|\b(?:make\s+(?:it|that)|change\s+(?:it\s+|that\s+)?to|set\s+(?:it\s+)?to|actually)"
    rf"\s+{_NUMBER.replace('<n>', '<m>')}{_THEN}"
    rf"|{_NUMBER.replace('<n>', '<i>')}\s+instead\b", re.IGNORECASE)
_TO_WHOM = re_compile(rf"(?<=[가-힣A-Za-z])\s?(?:한테|에게|께)\s+{_NUMBER}(?=\s*(?:[,.!~]|$))")


@lru_cache(maxsize=16)
def _sending(verbs: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """A plain number right before a verb ("50000 보내줘", "50000 엄마한테 송금"), one after
    it with a name between or none ("send mom 50000", "pay 40000 to dad"), and one that ends
    what is said to someone ("엄마한테 10000, 아빠한테 20000 보내줘": the verb is said once)."""
    said = _alternatives(verbs)
    before = rf"{_NUMBER}(?:을|를)?(?:\s+[가-힣A-Za-z]+\s?(?:한테|에게|께))?\s*" \
        rf"(?:(?:좀|바로|지금|빨리|먼저|우선|일단)\s*)*(?:{said})"
    after = rf"(?<![A-Za-z])(?:{said})(?:s|ed|ing)?\s+(?:(?:my|our|to)\s+)?" \
        rf"(?:(?!(?:{_BOUND})\b)[A-Za-z가-힣]+\s+)?{_NUMBER}{_THEN}"
    return re.compile(before, re.IGNORECASE), re.compile(after, re.IGNORECASE), _TO_WHOM, \
        _TO_BE


def with_verb(part: str, text: str, verbs: tuple[str, ...]) -> str:
    """A part of a batch message with the verb the message says once ("send 30000 to jisoo
    and 15000 to minsu": "15000 to minsu" is sent too), where the message says it: before
    a part said after it, after one said before — a Korean verb always after ("이체 두 건:
    김민수 10만원" reads "김민수 10만원 이체"); a part with a verb of its own as it is."""
    if not verbs or _said(verbs).search(part) or _TURNED_DOWN.search(part):
        return part  # "not 50k, send 30k to Jake": nothing is sent of "not 50k"
    verb = _said(verbs).search(text)
    if verb is None:
        return part
    before = text.find(part) < verb.start()  # "엄마한테 1만원, 아빠한테 2만원 send"
    korean = any("가" <= ch <= "힣" for ch in verb.group())  # Korean ends with its verb
    return f"{part} {verb.group()}" if before or korean else f"{verb.group()} {part}"


_TURNED_DOWN = re_compile(r"(?<![A-Za-z])(?:not|no|never)(?![A-Za-z])|말고|아니", re.IGNORECASE)


@lru_cache(maxsize=16)
def _said(verbs: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z])(?:{_alternatives(verbs)})(?![A-Za-z])", re.IGNORECASE)


def _alternatives(verbs: tuple[str, ...]) -> str:
    """The verbs as one alternation, the longest first ("송금하" before "송금")."""
    return "|".join(re.escape(v) for v in sorted(verbs, key=lambda v: (-len(v), v)))


__all__ = ["find_with_verbs", "sent_amounts", "with_verb"]
