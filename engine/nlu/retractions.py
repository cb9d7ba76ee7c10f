"""A message -> where its speaker takes back what they said ("2만원, 아니 3만원", "20 sorry I
mean 30", "아 잠깐만"): the marks of a self-correction, and what is said after the last one."""

from __future__ import annotations

import functools
import re

from engine.precompiled import re_compile

_RETRACT = re_compile(r"(?:^|(?<=[\s,.…~]))(?:아\s*)?(?:아니다|아니|잠깐만?|"
                      r"정정(?:할게요?|합니다)?|그게 아니라)"
                      r"(?=[\s,.…~!]|$)|\b(?:no wait|wait|sorry|i mean|actually|hang on|oops|"
                      r"whoops|my bad|"
                      r"hold on|let me (?:double[- ]?)?check)\b"
                      r"|(?:^|(?<=[\s,.…~]))(?:아|앗|아참)\s+(?=[0-9일이삼사오육칠팔구십백천만])"
                      # a bare no between two amounts: "30k, no, 40k", "20k.. no 25k"
                      r"|(?<=[0-9k원])[,.…]*\s+no(?:pe)?\b[,.!…]*(?=\s+[$₩]?[0-9])",
                      re.IGNORECASE)


def retracted_at(text: str) -> int | None:
    """Where the last self-correction of ``text`` starts ("2만원, 아니 3만원": what came
    before it is taken back), or None.

    >>> retracted_at("2만원, 아니 3만원"), retracted_at("형한테 아 잠깐 누나한테")
    (5, 4)
    >>> retracted_at("아니요 3만원") is None  # a no, not a correction
    True
    >>> retracted_at("20 sorry I mean 30")
    9
    """
    last = _last_retraction(text)
    return last[0] if last else None


@functools.lru_cache(maxsize=256)
def _last_retraction(text: str) -> tuple[int, int] | None:
    """The span of ``text``'s last self-correction mark (read once per message: several
    readings ask)."""
    marks = [m for m in retraction_spans(text)  # "20k.. no 25k sorry": its "sorry" is no mark
             if _WORDS_AFTER.search(text, m[1]) or taken_back(text, m[0])]
    return marks[-1] if marks else None


@functools.lru_cache(maxsize=256)
def retraction_spans(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of ``text``'s self-correction marks."""
    return tuple(m.span() for m in _RETRACT.finditer(text))


_WORDS_AFTER = re_compile(r"\w")


def after_retraction(text: str) -> str | None:
    """What is said after the last self-correction's own words, or None without one.

    >>> after_retraction("3만원으로 바꿔줘 아 잠깐만 그냥 취소할래"), after_retraction("네")
    ('그냥 취소할래', None)
    """
    last = _last_retraction(text)
    return text[last[1]:].lstrip(" ,.…~!") if last else None


def taken_back(text: str, cut: int) -> bool:
    """Whether the self-correction at ``cut`` takes back what came before it even with no
    new value after it ("5만원 보내줘 아니다 잠깐만"); a trailing "actually" or "sorry" does
    not ("no, card actually").

    >>> taken_back("5만원 보내줘 아니다 잠깐만", 10), taken_back("no, card actually", 9)
    (True, False)
    >>> taken_back("make it 30k... actually no, leave it", 15)  # "actually" with a no: it is
    True
    """
    return not re.match(r"(?:actually|sorry|i mean)\b(?![,.\s]+(?:no|nope|leave it|keep it|"
                        r"forget (?:it|that)|never ?mind)\b)", text[cut:], re.IGNORECASE)


__all__ = ["after_retraction", "retracted_at", "retraction_spans", "taken_back"]
