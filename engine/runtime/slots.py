"""(slot, raw value) -> accepted value or a rejection; validation is code, never a prompt.

Seed rule: a rejected value leaves the slot unchanged and records why in
``meta.slot_errors[slot]`` so the reply can tell the user (seed 001 §3).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.compiler.compiled import CompiledSlot


@dataclass(frozen=True, slots=True)
class Rejected:
    reason: str | None = None
    """Text from a validator that explains the rejection; None means use the slot's error."""


def validate(slot: CompiledSlot, raw: Any, slots: Mapping[str, Any]) -> Any:
    """The normalised value, or a ``Rejected``."""
    value = _coerce(slot, raw)
    if isinstance(value, Rejected):
        return value
    if not _within_bounds(slot, value):
        return Rejected()
    if slot.validator is not None:
        return _run_validator(slot, value, slots)
    return value


def _coerce(slot: CompiledSlot, raw: Any) -> Any:
    spec = slot.spec
    if raw is None or isinstance(raw, bool) and spec.type != "boolean":
        return Rejected()
    match spec.type:
        case "string":
            text = str(raw).strip()
            return text if text else Rejected()
        case "integer":
            return _number(raw, integer=True)
        case "number" | "money":
            return _number(raw, integer=False)
        case "date":
            return _date(raw)
        case "enum":
            return _enum(slot, raw)
        case "boolean":
            return raw if isinstance(raw, bool) else Rejected()
        case "list":
            return list(raw) if isinstance(raw, list | tuple) else [raw]
    return Rejected()


def _number(raw: Any, *, integer: bool) -> Any:
    if isinstance(raw, str):
        try:
            raw = float(raw.replace(",", "").strip())
        except ValueError:
            return Rejected()
    if not isinstance(raw, int | float):
        return Rejected()
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if integer and not isinstance(raw, int):
        return Rejected()
    return raw


def _date(raw: Any) -> Any:
    if isinstance(raw, dt.date):
        return raw.isoformat()
    try:
        return dt.date.fromisoformat(str(raw).strip()).isoformat()
    except ValueError:
        return Rejected()


def _enum(slot: CompiledSlot, raw: Any) -> Any:
    text = str(raw).strip().lower()
    for value, synonyms in slot.synonyms.items():
        if text == value.lower() or text in (s.lower() for s in synonyms):
            return value
    return Rejected()


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


def _run_validator(slot: CompiledSlot, value: Any, slots: Mapping[str, Any]) -> Any:
    """A validator returns True/None (accept), False (reject) or a str (reject, with reason)."""
    assert slot.validator is not None
    try:
        verdict = slot.validator(value, dict(slots))
    except ValueError as err:
        return Rejected(str(err) or None)
    if verdict is False:
        return Rejected()
    if isinstance(verdict, str):
        return Rejected(verdict)
    return value
