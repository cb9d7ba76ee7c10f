"""A turn's expectations and what the turn produced -> (field, expected, actual) per miss.

Plain fields compare by equality, ``say`` / ``not_say`` and ``errors`` by substring, and
``events`` as an ordered subsequence whose mappings check a payload subset.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine.runtime.values.events import Done, Event, wire
from engine.testing.spec import TurnSpec

Miss = tuple[str, Any, Any]
"""(field, expected, actual)."""


def compare(turn: TurnSpec, events: Sequence[Event], done: Done, completed: int) -> Iterator[Miss]:
    """(field, expected, actual) for every expectation the turn states and the turn missed."""
    snap = done.state_snapshot
    yield from _compare_plain(turn, done)
    if turn.completed is not None and turn.completed != completed:
        yield "completed", turn.completed, completed
    for slot, expected in (turn.slots or {}).items():
        actual = snap.get("slots", {}).get(slot)
        if expected != actual:
            yield f"slots.{slot}", expected, actual
    for flow, slots in (turn.slots_of or {}).items():
        seen = _slots_of(snap, flow)
        for slot, expected in slots.items():
            actual = seen.get(slot) if seen is not None else "(no such flow on the stack)"
            if expected != actual:
                yield f"slots_of.{flow}.{slot}", expected, actual
    yield from _compare_text(turn, done.message)
    yield from _compare_errors(turn, snap.get("meta", {}).get("slot_errors", {}))
    if turn.events is not None and not _subsequence(turn.events, events):
        yield "events", turn.events, [wire(e)[0] for e in events]


def _slots_of(snap: Mapping[str, Any], flow: str) -> Mapping[str, Any] | None:
    """The values of ``flow``: on top, or the most recent of it waiting under the top."""
    if snap.get("flow") == flow:
        return snap.get("slots", {})
    waiting = [entry for entry in snap.get("stack") or [] if entry.get("flow") == flow]
    return waiting[-1].get("slots", {}) if waiting else None


def _compare_plain(turn: TurnSpec, done: Done) -> Iterator[Miss]:
    snap, payload = done.state_snapshot, done.payload()
    plain = {"stage": snap.get("stage"), "flow": snap.get("flow"),
             "next_action": done.next_action, "buttons": done.ui_hint.get("buttons", []),
             "missing": snap.get("missing_required"), "queue": len(snap.get("task_queue", [])),
             "hooks": [h["type"] for h in done.hooks],
             "failure_tags": done.trace.get("failure_tags", []),
             "requires_confirmation": payload["requires_confirmation"],
             "next_suggested_actions": payload["next_suggested_actions"]}
    for name, actual in plain.items():
        expected = getattr(turn, name)
        if expected is not None and expected != actual:
            yield name, expected, actual


def _compare_text(turn: TurnSpec, message: str) -> Iterator[Miss]:
    for part in _listify(turn.say):
        if part not in message:
            yield "say", part, message
    for part in _listify(turn.not_say):
        if part in message:
            yield "not_say", part, message


def _compare_errors(turn: TurnSpec, errors: Mapping[str, str]) -> Iterator[Miss]:
    if turn.errors is None:
        return
    if not turn.errors and errors:
        yield "errors", {}, dict(errors)
    for slot, part in turn.errors.items():
        if part not in errors.get(slot, ""):
            yield f"errors.{slot}", part, errors.get(slot)


def _listify(value: str | list[str] | None) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else value


def _subsequence(expected: Sequence[str | Mapping[str, Any]], events: Sequence[Event]) -> bool:
    """Each expected event appears, in order; a mapping also checks a payload subset."""
    wired = iter([wire(e) for e in events])
    for want in expected:
        name, subset = (want, None) if isinstance(want, str) else next(iter(want.items()))
        if not any(n == name and _contains(payload, subset) for n, payload in wired):
            return False
    return True


def _contains(payload: Any, subset: Any) -> bool:
    if subset is None:
        return True
    if isinstance(subset, Mapping) and isinstance(payload, Mapping):
        return all(k in payload and _contains(payload[k], v) for k, v in subset.items())
    return bool(payload == subset)
