"""The clauses of a message that do not ask: what it tells of as done ("I returned a pair of
earbuds last month. Can you compare prices for P-106?": the return is told, the comparison
asked) and the remark after the request it opens with ("log me in please, I'm really nervous
about doing this online")."""

from __future__ import annotations

import re

from engine.nlu.phrases import is_question
from engine.precompiled import re_compile


def opening(message: str) -> tuple[str, str]:
    """The message's first clause and the rest after it, or (message, "") when nothing
    follows or the rest takes the first back ("…, no wait", "…, actually", "…, 아니 잠깐").

    >>> opening("log me in please, I'm really nervous"), opening("the first one, no wait")
    (('log me in please', "I'm really nervous"), ('the first one, no wait', ''))
    """
    head, *rest = _CLAUSE_END.split(message.strip(), maxsplit=1)
    if not rest or not rest[0].strip() or _TAKEN_BACK.match(rest[0]):
        return message, ""
    return head, rest[0]


def turned_down(clause: str) -> bool:
    """Whether ``clause`` turns something down ("not ordering", "안 살 거고"): no request."""
    return _TURNED_DOWN.search(clause) is not None


_TURNED_DOWN = re_compile(r"\b(?:not|no|never|dont|don't|didn't|didnt|won't|wont|nothing)\b|"
                          r"(?<!\S)(?:안|못)(?!\S)|않|말고|지\s?마", re.IGNORECASE)
_CLAUSE_END = re_compile(r"\s*,\s+|(?<=[.!?])\s+|\n+")
_TAKEN_BACK = re_compile(r"(?:no|not|nah|nope|wait|actually|or|but|instead|never\s*mind|nvm|"
                         r"just\s+kidding|jk|scratch|cancel|stop|forget|don'?t|dont|아니|아냐|"
                         r"잠깐|말고|근데|취소|농담)\b", re.IGNORECASE)
"""What takes back the request before it ("…, no wait", "…, actually", "…, 아니 잠깐")."""


def only_told(sentences: list[str], keywords: tuple[str, ...]) -> bool:
    """Whether every sentence that says one of ``keywords`` as written tells of it as done
    (False when none says one as written: "stole" found as "stolen")."""
    saying = [s for s in sentences if any(k and k.casefold() in s.casefold() for k in keywords)]
    return bool(saying) and all(_told_of(s, keywords) for s in saying)


def _told_of(sentence: str, keywords: tuple[str, ...]) -> bool:
    """Whether ``sentence`` tells of its keywords' doing as done, asking nothing: each said
    in the past ("I returned them", "반품했었어요") or thanked for ("Thanks for sorting out my
    exchange last week!"); a keyword said as it is ("they're fake", "stolen") tells of now."""
    if is_question(sentence) or _ASKS_EN.search(sentence) or not keywords:
        return False
    if _THANKED_EN.match(sentence):
        return True
    folded = sentence.casefold()
    said = [m.end() for k in keywords if k for m in re.finditer(re.escape(k.casefold()), folded)]
    return bool(said) and all(_PAST_AFTER.match(folded, end) for end in said)


_PAST_AFTER = re_compile(r"e?d\b|(?:을|를)?\s?(?:했|받았|됐|되었|했었|하셨)")
"""A keyword's past, right after it: "return" + "ed", "반품" + "했었어요"."""
_THANKED_EN = re_compile(r"\s*(?:thanks|thank you|thx)\s+(?:so much\s+)?for\b", re.IGNORECASE)
_ASKS_EN = re_compile(r"\b(?:can|could|would|will) you\b|\bplease\b|\bpls\b|\b(?:i|we) "
                      r"(?:want|wanna|need|would like)\b|\bi'?d like\b|\blet me\b|\bhelp\b",
                      re.IGNORECASE)



__all__ = ["only_told", "opening", "turned_down"]
