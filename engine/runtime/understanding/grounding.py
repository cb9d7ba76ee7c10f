"""The model's slot values -> only those found in what the user said.

A model reads what the rules left, but it never invents: a value it sets must be grounded
in the message — a name or text written in it, an amount or number among the message's own
readings, a date among its date expressions, an enum value by a synonym in it, a yes or a
no for a yes/no slot. An ungrounded value is dropped (the slot is asked instead) and noted
in the trace; a slot marked ``extract: {grounded: false}`` takes what the model infers.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from engine.compiler.compiled import CompiledService, CompiledSlot
from engine.nlu import find_dates, find_enum, find_money, find_numbers, normalise
from engine.runtime.understanding.llm import LlmUnderstanding
from engine.runtime.understanding.understand import SlotOp


def drop_ungrounded(llm: LlmUnderstanding | None, message: str, service: CompiledService,
                    today: dt.date) -> bool:
    """Drop from ``llm`` (in place) the values ``message`` does not say, its operations'
    and its tasks'; True when any was dropped."""
    if llm is None or llm.parse_error:
        return False
    said = lambda name, value: grounded(  # noqa: E731
        SlotOp("set", name, value), message, service, today)
    kept = [op for op in llm.ops if said(op.slot, op.value)]
    tasks = [{k: v for k, v in task.items() if said(k, v)} for task in llm.tasks]
    if len(kept) == len(llm.ops) and tasks == llm.tasks:
        return False
    llm.ops, llm.tasks = kept, tasks
    return True


def grounded(op: SlotOp, message: str, service: CompiledService, today: dt.date) -> bool:
    """Whether the model's ``op`` says what ``message`` says (a clear always is)."""
    slot = service.slots.get(op.slot)
    if op.op != "set" or slot is None or op.value is None:
        return True
    extract = slot.spec.extract
    if extract is not None and not extract.grounded:
        return True
    return _found(slot, op.value, message, today)


def _found(slot: CompiledSlot, value: Any, message: str, today: dt.date) -> bool:
    kind = slot.spec.type
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("money", "integer", "number"):
        readings = [m.value for m in (*find_money(message), *find_numbers(message))]
        return _number(value) is not None and any(
            _number(r) == _number(value) for r in readings)
    if kind == "date":
        return str(value) in {str(m.value) for m in find_dates(message, today)}
    if kind == "enum":
        return str(value) in {str(m.value) for m in find_enum(message, slot.synonyms)} or \
            normalise(str(value)) in normalise(message)
    text = normalise(str(value))
    return bool(text) and text in normalise(message)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        return None


__all__ = ["drop_ungrounded", "grounded"]
