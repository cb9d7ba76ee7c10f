"""A slot and a message -> the slot's candidate matches in it, found by the slot's type.

Each type has its finder (money, dates, times, enums, numbers, yes/no flags); a slot with
``patterns`` uses them instead, and a slot's ``known`` values are looked for as well. A
money amount that only looks like one ("5만웜원") is one match for the whole of it, so that
no part of it is read.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from engine.compiler.compiled import CompiledSlot
from engine.nlu import (
    Match,
    find_dates,
    find_enum,
    find_money,
    find_numbers,
    find_pattern,
    find_times,
)
from engine.nlu.certainty import malformed_amount
from engine.nlu.flags import find_flag, flag_words
from engine.nlu.known import find_known

Finder = Callable[[CompiledSlot, str, dt.date], list[Match]]
_PATTERN: Finder = lambda slot, text, today: find_pattern(text, slot.patterns)  # noqa: E731


def _money(slot: CompiledSlot, text: str, today: dt.date) -> list[Match]:
    """The amounts in ``text``, or one match for an amount it cannot be read as."""
    bad = malformed_amount(text)
    if bad is not None:  # the whole amount is refused; no part of it is read
        start, end = bad
        return [Match(value=text[start:end], start=start, end=end, text=text[start:end])]
    return find_money(text)


_FINDERS: dict[str, Finder] = {
    "money": _money,
    "date": lambda slot, text, today: find_dates(text, today),
    "time": lambda slot, text, today: find_times(text),
    "enum": lambda slot, text, today: find_enum(text, slot.synonyms),
    "integer": lambda slot, text, today: [m for m in find_numbers(text)
                                          if isinstance(m.value, int)],
    "number": lambda slot, text, today: find_numbers(text),
    "boolean": lambda slot, text, today: find_flag(
        text, flag_words(slot.name, slot.spec.description or "")),
}


def find_all(text: str, slots: Sequence[CompiledSlot],
             today: dt.date) -> list[tuple[CompiledSlot, list[Match]]]:
    """Every slot's candidate matches, in ``slots`` order (see ``extraction_order``)."""
    out = []
    for slot in slots:
        typed = slot.spec.extract is None or slot.spec.extract.typed
        finder = _PATTERN if slot.patterns else (_FINDERS.get(slot.spec.type) if typed else None)
        known = find_known(text, slot.known) if slot.known else []
        if finder is not None or known:
            out.append((slot, [*(finder(slot, text, today) if finder else []), *known]))
    return out


__all__ = ["Finder", "find_all"]
