"""A message that names a slot to take back, without a new value: "change the date",
"날짜는 빼줘", "받는 사람 다시 할래".

A slot is named by its ``names`` (default: its own name, underscores as spaces). The
message must be about that and nothing else: the name with a taking-back verb next to it —
English ``(I want to / can I) change / reset / remove / clear / redo (the|my) NAME``,
Korean ``NAME(은|는|을|를|도) 빼/지워/다시/바꿀/변경…`` — and no other content
words. What the slot is then is asked again (a required one), or left empty. A message
that also says the new value ("날짜를 내일로 바꿔줘") is a correction, read by the slot's
extractors, never a reset.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from .certainty import names_pattern

__all__ = ["named_resets"]

_EN_VERBS = r"(?:change|reset|remove|clear|redo|drop|undo|forget(?:\s+about)?|never\s?mind|skip)"
_KO_VERBS = (r"(?:빼|지워|지우|다시|바꿀|바꾸|바꿔|변경|취소|리셋|삭제|없애|비워)\S*"
             r"(?:\s+(?:줘|주|할|하|해|싶|요)\S*){0,3}")  # 다시 할게요, 지워 주세요, 바꾸고 싶어
_PARTICLES = r"(?:은|는|을|를|도|이|가)?"
_POLITE = (r"(?:\s*(?:please|hmm+|um+|uh+|ok|okay|actually|wait|oh|oops|sorry|so|좀|그냥|음+|흠+"
           r"|아|어|앗|근데|저기|아\s?참)[,.…~]*)*")
"""Courtesies and the sounds of thinking around a reset ("hmm change the size", "음 날짜는
빼줘", "actually, change the size")."""


@lru_cache(maxsize=256)
def _pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = names_pattern(names)
    english = rf"{_POLITE}\s*{_WANTING}{_EN_VERBS}\s+(?:the\s+|my\s+)?(?:{alternatives})" \
        r"\s*(?:please|pls|plz)?"
    korean = rf"{_POLITE}\s*(?:{alternatives}){_PARTICLES}{_POLITE}\s*{_KO_VERBS}"
    return re.compile(rf"^(?:{english}|{korean})(?:{_NOW})?\s*[.!?]*$", re.IGNORECASE)


_WANTING = (r"(?:(?:i|we)(?:\s+(?:want|wanna|need|would\s+like)|\s*['’]?d\s+like)\s+(?:to\s+)?"
            r"|(?:can|could|may)\s+(?:i|we|you)\s+(?:please\s+)?|let\s+(?:me|us)\s+"
            r"|(?:i|we)\s+(?:wish|have)\s+to\s+)?")
"""Asking to, or wanting to ("I want to change the size", "can I change the size?", "I want
change the size" as learners say it)."""


_NOW = (r"\s*[,.]?\s*(?:(?:and|just)\s+)*(?:(?:send|do|transfer|pay)\s+it\s+)?"
        r"(?:now|right\s+now|right\s+away|today)|\s*[,.]?\s*(?:그냥\s*)?(?:지금|바로)(?:\s*바로)?(?:으로|요|으로요)?"
        r"\s*(?:보내\S*|해\S*)?")
"""After taking a date back, the time that leaves: "never mind the date, send it now"."""


def named_resets(text: str, slots: Mapping[str, Iterable[str]]) -> list[str]:
    """The slots ``text`` asks to take back (slot -> the words that name it), in order.

    >>> named_resets("날짜는 빼줘", {"date": ["date", "날짜"], "people": ["people"]})
    ['date']
    >>> named_resets("change the date please", {"date": ["date", "날짜"]})
    ['date']
    >>> named_resets("날짜를 내일로 바꿔줘", {"date": ["date", "날짜"]})
    []
    >>> named_resets("never mind the date, send it now", {"date": ["date", "날짜"]})
    ['date']
    >>> named_resets("I want to change the size please", {"size": ["size"]})
    ['size']
    """
    cleaned = text.strip()
    return [slot for slot, names in slots.items()
            if (words := tuple(n for n in names if n)) and _pattern(words).match(cleaned)]
