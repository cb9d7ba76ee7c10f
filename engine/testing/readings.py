"""An expected reading and the one a turn made -> how they differ (``flowctl eval``).

A difference is **wrong** when something was read otherwise than expected (it is acted
on), **missing** when it was left unread (it is asked for). A turn the rules settled is
**harmful** when it confirmed what was not a yes or set a slot to a value the message did
not give.

>>> from engine.testing.eval_spec import Expect
>>> read = Reading(intent="transfer", slots={"amount": 5000}, decision=None, by="rules")
>>> compare(Expect(intent="transfer", slots={"amount": 50000, "to": "mom"}), read)
(('slot amount: expected 50000, read 5000', "slot to: expected 'mom', not read"), True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.compiler.compiled import mask
from engine.runtime.values.events import Reading

if TYPE_CHECKING:
    from engine.testing.eval_spec import Expect

__all__ = ["compare", "same", "same_decision"]


def same(expected: Any, got: Any) -> bool:
    """Values compare as the engine stores them; 50000 and 50000.0 are the same amount; a
    sensitive slot's value is read masked, and compares masked."""
    if isinstance(got, str) and got.startswith("•••") and got == mask(expected):
        return True
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected is got
    if isinstance(expected, int | float) and isinstance(got, int | float):
        return float(expected) == float(got)
    return bool(expected == got) or str(expected) == str(got)


def compare(expect: Expect, reading: Reading, *,
            live: bool = False) -> tuple[tuple[str, ...], bool, bool]:
    """How the actual reading differs from the expected one: the differences, whether any
    of them is a wrong reading (not merely something left unread: a missing value is asked
    for, a wrong one is acted on), and whether the turn did harm (confirmed what was not a
    yes, or set a slot to a value the message did not give). Offline, a message expected
    to be left to the model (``settled: false``) and left to it is read right whatever
    intent it expects: that intent is for a real model to find (``live``); rules that read
    that very intent read it right too."""
    found = [*_intent_difference(expect, reading, live=live),
             *_slot_differences(expect, reading["slots"]),
             *_decision_difference(expect, reading), *_settled_difference(expect, reading)]
    wrong = [text for misread, text in found if misread]
    missing = [text for misread, text in found if not misread]
    return tuple(wrong + missing), bool(wrong), _harmful(expect, reading)


Difference = tuple[bool, str]
"""(read wrong, not merely left unread; what differs)."""


def _intent_difference(expect: Expect, reading: Reading, *, live: bool) -> list[Difference]:
    """The intent read against the one expected, when one is (offline, the intent of an
    unsure message left to the model is the model's to find)."""
    read = reading["intent"]
    model_left = expect.settled is False and reading["by"] == "model" and not live
    if "intent" not in expect.model_fields_set or read == expect.intent or model_left:
        return []
    return [(read is not None, f"intent: expected {expect.intent}, read {read}")]


def _slot_differences(expect: Expect, got: Mapping[str, Any]) -> list[Difference]:
    """The slot values read against those expected, when any are: each missed or read
    otherwise, then each read and not expected."""
    if expect.slots is None:
        return []
    found = [_slot_difference(name, value, got) for name, value in expect.slots.items()]
    return [*(difference for difference in found if difference is not None),
            *((True, f"slot {name}: read {value!r}, not expected")
              for name, value in got.items() if name not in expect.slots)]


def _slot_difference(name: str, value: Any, got: Mapping[str, Any]) -> Difference | None:
    """One expected slot value against the slots read; None when read the same."""
    if name not in got:
        return False, f"slot {name}: expected {value!r}, not read"
    if not same(value, got[name]):
        return True, f"slot {name}: expected {value!r}, read {got[name]!r}"
    return None


def _decision_difference(expect: Expect, reading: Reading) -> list[Difference]:
    """The decision taken against the one expected, when one is."""
    decision = reading["decision"] or "none"
    if expect.decision is None or same_decision(expect.decision, decision):
        return []
    return [(decision != "none", f"decision: expected {expect.decision}, read {decision}")]


def _settled_difference(expect: Expect, reading: Reading) -> list[Difference]:
    """Rules that read something of a message expected to be left to the model."""
    if expect.settled is False and reading["by"] == "rules" and (
            reading["slots"] or reading["decision"] is not None or
            reading["intent"] not in (None, expect.intent)):
        return [(True, "settled by rules, expected to be left to the model")]
    return []


def _harmful(expect: Expect, reading: Reading) -> bool:
    """Whether rules confirmed what was not a yes, or set a slot to a value the message did
    not give (where slots are expected, or the message was to be left to the model)."""
    if reading["by"] != "rules":
        return False
    confirmed = reading["decision"] == "confirm" and expect.decision != "confirm"
    return confirmed or (_invented(expect, reading["slots"]) and (
        expect.slots is not None or expect.settled is False))


def _invented(expect: Expect, got: Mapping[str, Any]) -> bool:
    """Whether any slot read is not one expected, or has another value."""
    return any(expect.slots is None or name not in expect.slots or
               not same(expect.slots[name], value) for name, value in got.items())


def same_decision(expected: str, read: str) -> bool:
    """A plain no (deny) fires cancel where the stage has no way back to editing, so an
    expected deny is met by either; an expected cancel needs a cancel."""
    return expected == read or (expected == "deny" and read == "cancel")
