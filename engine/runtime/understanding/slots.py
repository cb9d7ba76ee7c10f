"""(slot, raw value) -> accepted value or a rejection; validation is code, never a prompt.

A rejected value leaves the slot unchanged and records why in ``meta.slot_errors[slot]``,
so the reply can tell the user what was wrong.

A raw value often comes from a model's JSON, so anything may arrive; ``validate`` never
raises for it. Numbers (integer, number, money) must be finite and at most
``MAX_MAGNITUDE`` in size; a bool is not a number; a string, date or enum slot takes text
or a number, never a list or an object; a list slot refuses nesting deeper than
``MAX_LIST_DEPTH``. Everything else is a ``Rejected``, the slot's ordinary error path.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.compiler.compiled import CompiledSlot
from engine.compiler.validators import BadVerdict, Replace
from engine.nlu.times import parse_time
from engine.providers.jsonout import MAX_DEPTH, nesting_depth

MAX_MAGNITUDE = 10**15
"""Largest absolute value of an integer, number or money slot (integers up to it are exact
floats too); anything bigger is an absurd reading, rejected."""
MAX_NUMBER_CHARS = 64
"""Longest text read as a number; longer text is not a plausible amount."""
_MAX_TEXT_INT = 10**MAX_NUMBER_CHARS  # an int given to a text slot (a phone, an account)
MAX_LIST_DEPTH = MAX_DEPTH
"""Deepest nesting of lists and objects a list slot holds (what a model's JSON may carry)."""


@dataclass(frozen=True, slots=True)
class Rejected:
    reason: str | None = None
    """Text from a validator that explains the rejection; None means use the slot's error."""


def validate(slot: CompiledSlot, raw: Any, slots: Mapping[str, Any], *,
             today: dt.date | None = None) -> Any:
    """The normalised value, or a ``Rejected``; ``today`` (the engine's clock) reaches a
    validator that asks for it."""
    value = _checked(slot, raw)
    if isinstance(value, Rejected) or slot.validator is None:
        return value
    return _run_validator(slot, value, slots, today or dt.date.today())


def _checked(slot: CompiledSlot, raw: Any) -> Any:
    value = _coerce(slot, raw)
    if isinstance(value, Rejected):
        return value
    return value if _within_bounds(slot, value) else Rejected()


def _coerce(slot: CompiledSlot, raw: Any) -> Any:
    spec = slot.spec
    if raw is None or isinstance(raw, bool) and spec.type != "boolean":
        return Rejected()
    match spec.type:
        case "string":
            text = _text(raw)
            return text if text else Rejected()
        case "integer":
            return _number(raw, integer=True)
        case "number" | "money":
            return _number(raw, integer=False)
        case "date":
            return _date(raw)
        case "time":
            text = _text(raw)
            return (text and parse_time(text)) or Rejected()
        case "enum":
            return _enum(slot, raw)
        case "boolean":
            return raw if isinstance(raw, bool) else Rejected()
        case "list":
            return _list(raw)
    return Rejected()


def _text(raw: Any) -> str | None:
    """A str stripped, or a finite number as text; None for anything else (list, dict...)."""
    if isinstance(raw, str):
        return raw.strip()
    if isinstance(raw, int) and not isinstance(raw, bool) and abs(raw) < _MAX_TEXT_INT:
        return str(raw)
    if isinstance(raw, float) and math.isfinite(raw):
        return str(raw)
    return None


def _number(raw: Any, *, integer: bool) -> Any:
    if isinstance(raw, str):
        text = raw.replace(",", "").strip()
        if len(text) > MAX_NUMBER_CHARS:
            return Rejected()
        try:
            raw = float(text)
        except ValueError:
            return Rejected()
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return Rejected()
    if isinstance(raw, float) and not math.isfinite(raw):
        return Rejected()  # NaN, inf, "1e999"
    if abs(raw) > MAX_MAGNITUDE:
        return Rejected()
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)  # finite and within MAX_MAGNITUDE: cannot overflow
    if integer and not isinstance(raw, int):
        return Rejected()
    return raw


def _date(raw: Any) -> Any:
    if isinstance(raw, dt.date):
        return raw.isoformat()
    text = _text(raw)
    if text is None:
        return Rejected()
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        return Rejected()


def _enum(slot: CompiledSlot, raw: Any) -> Any:
    text = _text(raw)
    if text is None:
        return Rejected()
    text = text.lower()
    for value, synonyms in slot.synonyms.items():
        if text == value.lower() or text in (s.lower() for s in synonyms):
            return value
    return Rejected()


def _list(raw: Any) -> Any:
    value = list(raw) if isinstance(raw, list | tuple) else [raw]
    if nesting_depth(value, limit=MAX_LIST_DEPTH) > MAX_LIST_DEPTH:
        return Rejected()
    return value


def _within_bounds(slot: CompiledSlot, value: Any) -> bool:
    spec = slot.spec
    if isinstance(value, int | float):
        if spec.minimum is not None and value < spec.minimum:
            return False
        if spec.maximum is not None and value > spec.maximum:
            return False
    if isinstance(value, str) and spec.type == "string":
        if spec.min_length is not None and len(value) < spec.min_length:
            return False
        if spec.max_length is not None and len(value) > spec.max_length:
            return False
        if slot.full_pattern is not None and not slot.full_pattern.match(value):
            return False
    return True


def _run_validator(slot: CompiledSlot, value: Any, slots: Mapping[str, Any],
                   today: dt.date) -> Any:
    """True/None accept, False or a str reject, ``Replace(v)`` or ``{"value": v}`` accept
    ``v`` instead (checked like input by the slot's type and bounds, not validated again);
    any other verdict is the validator's bug."""
    assert slot.validator is not None
    try:
        verdict = slot.validator(value, slots, today)
    except ValueError as err:
        return Rejected(str(err) or None)
    if verdict is None or verdict is True:
        return value
    if verdict is False:
        return Rejected()
    if isinstance(verdict, str):
        return Rejected(verdict)
    if isinstance(verdict, Replace):
        return _checked(slot, verdict.value)
    if isinstance(verdict, dict) and set(verdict) == {"value"}:
        return _checked(slot, verdict["value"])
    raise BadVerdict(f"validator of slot `{slot.name}` returned {verdict!r}; expected True, "
                    "None, False, a str, Replace(value) or {'value': ...}")
