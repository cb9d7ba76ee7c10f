"""A message as the rules read it: normalised (``normalise``), the text a decision may be
(``decision_text``: no question, quote, doubt, sarcasm or trailing off), and how alike two
texts are (``bigrams``, ``dice``)."""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter

from engine.precompiled import re_compile

_APOSTROPHE = re_compile(r"['’]")
_NOT_WORD = re_compile(r"[^\w\s]|_")
_LATIN = re_compile(r"[a-z]")


def normalise(text: str) -> str:
    """NFC, casefold, punctuation/symbols -> spaces, whitespace collapsed; question words as
    the regions say them in their standard form ("을매" is 얼마, "어데" 어디).

    >>> normalise("  예, 진행해주세요!! "), normalise("잔고 을매 남았노")
    ('예 진행해주세요', '잔고 얼마 남았노')
    """
    folded = unicodedata.normalize("NFC", text).casefold()
    # Apostrophes join ("let's" -> "lets"); other punctuation separates words.
    cleaned = _NOT_WORD.sub(" ", _APOSTROPHE.sub("", folded))
    if "매" in cleaned or "어데" in cleaned:
        cleaned = _REGIONAL.sub(lambda m: _STANDARD[m[0]], cleaned)
    return " ".join(cleaned.split())


_STANDARD = {"을매": "얼마", "얼매": "얼마", "울매": "얼마", "어데": "어디"}
_REGIONAL = re_compile(r"(?<![가-힣])(?:을매|얼매|울매|어데)")


_QUESTION_OR_QUOTE = re_compile(
    r"[?？\"“”„«»「」『』{}`]|(?<!\w)['‘’]|['‘’](?!\w)|(?:\.\.\.|…|‥)\s*$"
    r"|</?[a-z][^>]*>|\$\(")
"""A question mark, a quote, a message trailing off ("네..."), or markup ("{{ confirm }}",
"<yes>", "`ok`"): never a decision — a yes is said, not written as code."""
_DRAWN_OUT = re_compile(r"([ㄱ-ㅎ])\1{2,}")
_LONGEST = 140
"""Characters: a decision is short; longer messages are read by the rest of understanding."""
_LONGEST_SAID = 4 * _LONGEST
"""Characters of a message before normalising that can still be a decision (spaces and
punctuation collapse): beyond it, none is worked out or remembered."""


_DOUBT = frozenset("🤔🙃🙄😒😏🤨😬🤷😑😐🫤")
"""Emoji that doubt or mock what they come with ("yes 🤔", "sure 🙃"): no decision."""
_SARCASM = re_compile(r"(?:(?:oh )?(?:yeah|yea|ya|yeh|yah|yep) (?:right|sure buddy)|as if|"
                      r"sure jan|in your dreams|퍽이나|어련하시겠어요?|그러시겠죠|잘도 하겠다)")
"""Said as a yes, meant as a no: the whole message one of these is no decision."""
_FACE = re_compile(r"(\S)[_.\-~^,]+\1")
"""An emoticon: the same eye either side of a mouth ("ㅇ_ㅇ", "ㅠ.ㅠ", "ㅇ-ㅇ"), not two words."""


def decision_text(text: str) -> str | None:
    """The normalised message when it could be a decision; None for a question, a quote,
    a message trailing off, an empty or an over-long one.

    >>> decision_text("네, 보내주세요!"), decision_text("네?"), decision_text('"네"라고 하면 돼')
    ('네 보내주세요', None, None)
    >>> decision_text("ㅇ_ㅇ"), decision_text("ㅇ.ㅇ"), decision_text("ㅇㅇ")  # a face is no yes
    (None, None, 'ㅇㅇ')
    >>> decision_text("yeah right"), decision_text("yes 🤔"), decision_text("yes 👍")
    (None, None, 'yes')
    >>> decision_text("{{ confirm }}"), decision_text("<b>yes</b>"), decision_text("yes <3")
    (None, None, 'yes 3')
    """
    if len(text) > _LONGEST_SAID:  # no decision, and no long text kept in the memo
        return None
    return _decision_text(text)


@functools.lru_cache(maxsize=1024)
def _decision_text(text: str) -> str | None:
    """``decision_text`` of a short text, remembered: a turn asks it several times."""
    if _QUESTION_OR_QUOTE.search(text.strip()) or _FACE.fullmatch(text.strip()) or \
            _DOUBT.intersection(text):
        return None
    normalised = _DRAWN_OUT.sub(r"\1\1", normalise(text))  # ㅇㅇㅇㅇ -> ㅇㅇ
    if _SARCASM.fullmatch(normalised):
        return None
    return normalised if 0 < len(normalised) <= _LONGEST else None


SENTENCE_END = re_compile(r"(?<=[.!?。])\s+|\n+")
"""Where one sentence of a message ends and the next begins: after . ! ? 。 and a space, or at
a line break."""


def bigrams(normalised: str) -> Counter[str]:
    """Character bigrams of ``normalised`` with spaces removed; one-letter texts keep the letter.

    >>> sorted(bigrams("보내 줘").elements())
    ['내줘', '보내']
    """
    compact = normalised.replace(" ", "")
    if len(compact) < 2:
        return Counter([compact] if compact else [])
    return Counter(compact[i : i + 2] for i in range(len(compact) - 1))


def dice(a: Counter[str], b: Counter[str]) -> float:
    """Dice coefficient of two bigram multisets (0.0 when both are empty)."""
    total = a.total() + b.total()
    if not total:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    common = sum(min(count, large.get(gram, 0)) for gram, count in small.items())
    return 2 * common / total


def closed_by(final: int) -> str:
    """Every Hangul syllable closed by the final consonant numbered ``final`` (8: ㄹ, 20: ㅆ),
    as one string for a character class.

    >>> closed_by(8)[:3], len(closed_by(20))
    ('갈갤걀', 399)
    """
    return "".join(chr(0xAC00 + 28 * i + final) for i in range(399))


__all__ = ["SENTENCE_END", "bigrams", "closed_by", "decision_text", "dice", "normalise"]
