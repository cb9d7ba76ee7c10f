"""(message, flow, stage) -> Understanding: the deterministic rules that settle most turns.

Rules first (seed principle: decide clear branches in code). At a ``decide: confirm``
stage only yes/no words and corrections count, so no LLM is ever needed there. Slot
values are found by each slot's type and hints; several tasks in one message (one slot
given twice, e.g. two recipients) become a task list for the batch queue.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.compiler.compiled import CompiledFlow, CompiledService, CompiledSlot, extraction_order
from engine.nlu import (
    Match,
    classify,
    find_dates,
    find_enum,
    find_money,
    find_numbers,
    find_pattern,
    find_times,
    split_segments,
    yes_no,
)

Decision = Literal["confirm", "cancel", "deny"]
_DECISIONS: dict[str, Decision] = {"confirm": "confirm", "deny": "deny"}  # by yes_no answer


@dataclass(frozen=True, slots=True)
class SlotOp:
    op: Literal["set", "clear"]
    slot: str
    value: Any = None


@dataclass(frozen=True, slots=True)
class ForeignAmount:
    """An amount written in a currency the money slot does not hold ("$50" for a KRW slot):
    refused with a message that names both, never relabelled."""

    amount: Any
    currency: str


@dataclass(slots=True)
class Understanding:
    ops: list[SlotOp] = field(default_factory=list)
    decision: Decision | None = None
    tasks: list[dict[str, Any]] = field(default_factory=list)
    """Two or more when the message holds several tasks; the first is also in ``ops``."""
    unclear: bool = False
    """The LLM's reply could not be parsed (seed parse_error -> slot_errors._unclear)."""


@dataclass(frozen=True, slots=True)
class Intent:
    name: str | None
    confidence: float
    reason: str = ""


def detect_intent(text: str, service: CompiledService) -> Intent:
    """The best intent over its threshold, or none (the default flow takes the turn)."""
    for score in classify(text, service.intents):
        if score.confidence >= service.intent_thresholds.get(score.name, 0.5):
            return Intent(score.name, score.confidence, score.reason)
    return Intent(None, 0.0)


def understand(text: str, service: CompiledService, flow: CompiledFlow, stage: str, *,
               asked: str | None, batching: bool, today: dt.date) -> Understanding:
    """Slot operations and a yes/no decision for one message, by rules alone.

    The slot being asked has priority; a slot marked ``asked_only`` is looked for only
    then; a boolean slot being asked takes a yes or a no as its value."""
    current = flow.stages[stage]
    answer = yes_no(text, current.words or service.words)
    slots = _asked_first(flow.extraction, asked)
    if answer in ("confirm", "deny") and asked is not None and \
            service.slots[asked].spec.type == "boolean":
        return Understanding(ops=[SlotOp("set", asked, answer == "confirm")])
    deciding = current.decide == "confirm"
    found = _find_all(text, slots, today)
    segments = _segments(text, found) if batching and not deciding else []
    if len(segments) > 1:
        tasks = _tasks([extract(seg, slots, today) for seg in segments])
    else:
        tasks = [_pick(text, slots, found, asked=None if answer else asked)]
    result = Understanding(ops=[SlotOp("set", k, v) for k, v in tasks[0].items()],
                           tasks=tasks if len(tasks) > 1 else [])
    if answer == "cancel" and not result.ops:
        result.decision = "cancel"
    elif deciding and not result.ops:
        result.decision = _DECISIONS.get(answer or "")
    return result


def _asked_first(slots: tuple[CompiledSlot, ...], asked: str | None
                 ) -> tuple[CompiledSlot, ...]:
    """The flow's slots in extraction order, the asked one first, ``asked_only`` ones only
    when asked."""
    first = tuple(s for s in slots if s.name == asked)
    return first + tuple(s for s in slots if s.name != asked and not (
        s.spec.extract is not None and s.spec.extract.asked_only))


def _segments(text: str, found: Sequence[tuple[CompiledSlot, list[Match]]]) -> list[str]:
    """Parts of a multi-task message: at separators, else where a slot's value repeats
    ("엄마한테 만원 용걸이한테 5만원" has two recipients, so it is two parts)."""
    parts = [str(m.value) for m in split_segments(text)]
    if len(parts) > 1:
        return parts
    for _, matches in found:
        if len(matches) > 1:
            cuts = [0, *(m.start for m in matches[1:]), len(text)]
            return [text[a:b].strip() for a, b in zip(cuts, cuts[1:], strict=False)]
    return parts


def _tasks(per_segment: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A segment that repeats a slot the current task already has starts a new task."""
    tasks: list[dict[str, Any]] = []
    for values in per_segment:
        if not values:
            continue
        if tasks and not (values.keys() & tasks[-1].keys()):
            tasks[-1].update(values)
        else:
            tasks.append(dict(values))
    return tasks or [{}]


def extract(text: str, slots: Sequence[CompiledSlot], today: dt.date, *,
            asked: str | None = None) -> dict[str, Any]:
    """Values for ``slots`` found in ``text``; each span of text feeds at most one slot."""
    return _pick(text, slots, _find_all(text, extraction_order(slots), today), asked=asked)


def _find_all(text: str, slots: Sequence[CompiledSlot],
              today: dt.date) -> list[tuple[CompiledSlot, list[Match]]]:
    """Every slot's candidate matches, in ``slots`` order (see ``extraction_order``)."""
    out = []
    for slot in slots:
        typed = slot.spec.extract is None or slot.spec.extract.typed
        finder = _PATTERN if slot.patterns else (_FINDERS.get(slot.spec.type) if typed else None)
        if finder is not None:
            out.append((slot, finder(slot, text, today)))
    return out


def _pick(text: str, slots: Sequence[CompiledSlot],
          found: Sequence[tuple[CompiledSlot, list[Match]]], *,
          asked: str | None) -> dict[str, Any]:
    claimed: list[tuple[int, int]] = []
    values: dict[str, Any] = {}
    for slot, matches in found:
        match = next((m for m in matches if not _overlaps(m, claimed)), None)
        if match is not None:
            values[slot.name] = _value(slot, match)
            claimed.append((match.start, match.end))
    if not values and asked is not None:
        bare = next((s for s in slots if s.name == asked), None)
        if bare is not None and bare.spec.extract is not None and bare.spec.extract.bare \
                and _short_answer(text):
            values[asked] = text.strip()
    return values


def _short_answer(text: str) -> bool:
    """A bare answer: at most three words and not a question ("엄마", "my sister")."""
    words = text.split()
    return 0 < len(words) <= 3 and not text.rstrip().endswith(("?", "？"))


Finder = Callable[[CompiledSlot, str, dt.date], list[Match]]
_PATTERN: Finder = lambda slot, text, today: find_pattern(text, slot.patterns)  # noqa: E731
_FINDERS: dict[str, Finder] = {
    "money": lambda slot, text, today: find_money(text),
    "date": lambda slot, text, today: find_dates(text, today),
    "time": lambda slot, text, today: find_times(text),
    "enum": lambda slot, text, today: find_enum(text, slot.synonyms),
    "integer": lambda slot, text, today: [m for m in find_numbers(text)
                                          if isinstance(m.value, int)],
    "number": lambda slot, text, today: find_numbers(text),
}


def _value(slot: CompiledSlot, match: Match) -> Any:
    """The match's value; an amount in another currency than the slot's is marked as such."""
    currency = slot.spec.currency
    if currency and slot.spec.type == "money":
        unit = match.unit
        if unit is not None and unit != currency:
            return ForeignAmount(match.value, unit)
    return match.value


def _overlaps(match: Match, claimed: Sequence[tuple[int, int]]) -> bool:
    return any(match.start < end and start < match.end for start, end in claimed)
