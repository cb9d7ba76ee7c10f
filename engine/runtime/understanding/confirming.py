"""What a message at a confirmation says of the task it asks about: the task's own values as
they are said (with a particle apart or typed on, "아빠 한테", "엄마한테3만원"), another value
beside them, a cancel word, and the things the service knows that a change may name as its
topic ("그 마우스는 환불로 바꿀게요")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.compiler.compiled import CompiledService, CompiledSlot
from engine.nlu import Match, YesNoWords
from engine.precompiled import re_compile

_HANGUL_WORD = re_compile(r"[가-힣]+")


def another_value(found: Sequence[tuple[CompiledSlot, list[Match]]],
                  values: Mapping[str, Any]) -> bool:
    """Whether a value found is not the task's own ("네 ORD-5512 환불해 주세요" at a cancel)."""
    return any(values.get(slot.name) != m.value for slot, ms in found for m in ms)


def things_elsewhere(service: CompiledService, here: str) -> frozenset[str]:
    """The Hangul names of the choices of other flows' slots ("마우스" of a product category):
    things the service knows, which a change at this flow's confirmation may name as its
    topic; never this flow's own, nor a person's name. Worked out once per service and flow."""
    kept = _THINGS.get((id(service), here))
    if kept is not None and kept[0] is service:
        return kept[1]
    mine = set(service.flows[here].slots)
    things = frozenset(word for name, slot in service.slots.items() if name not in mine
                       for words in slot.synonyms.values() for word in words
                       if _HANGUL_WORD.fullmatch(word))
    _THINGS[(id(service), here)] = (service, things)
    return things


_THINGS: dict[tuple[int, str], tuple[CompiledService, frozenset[str]]] = {}
TOPIC_OFF = re_compile(r"(?:은|는)$")
"""The topic particle a thing is named with ("마우스는")."""
_PARTICLE = re_compile(r"^(?: ?(?:씨|님))?(?:(?: ?(?:한테|에게|께|한테로|에게로|한텐|한테는|"
                       r"에겐|에게는|께는))|으로|로|을|를|이|가|은|는|이요|요|에|까지)(?![^\s0-9])")
"""A particle right after a value, after an honorific too ("이정희 씨에게"); one of to whom
may be said apart ("아빠 한테") or typed onto the amount after it ("엄마한테3만원"); when
("금요일에", "말일까지")."""


def says_cancel(text: str, words: YesNoWords) -> bool:
    """Whether ``text`` holds a cancel word ("체크카드는 취소해 주세요": the task's own choice
    cancelled with its task), not only a "don't" ("결제는 하지 마": a choice turned down)."""
    tokens = text.split()
    return any(words.cancels(" ".join(tokens[i:j])) for i in range(len(tokens))
               for j in range(i + 1, min(len(tokens), i + 3) + 1))


def without(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` less ``spans`` and the particles right after them."""
    rest, last = [], 0
    for start, end in sorted(spans):
        rest.append(text[last:start])
        particle = _PARTICLE.match(text[end:])
        last = end + (particle.end() if particle else 0)
    rest.append(text[last:])
    return " ".join(rest)


__all__ = ["TOPIC_OFF", "another_value", "says_cancel", "things_elsewhere", "without"]
