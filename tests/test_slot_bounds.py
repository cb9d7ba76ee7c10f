"""slots.validate on any JSON-ish value: an accepted value within the slot's bounds, or a
``Rejected`` (the ordinary reject path), never an exception.

A model's JSON can hand a slot anything: NaN, inf, 1e308, a 5,000-digit integer, a bool,
a list nested 100,000 levels deep. Every slot of flows/transfer.yaml, and one slot of each
kind, is fuzzed.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService, CompiledSlot
from engine.runtime.understanding.slots import MAX_MAGNITUDE, Rejected, validate
from tests.conftest import ROOT

FUZZ = settings(max_examples=250, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

KINDS = """
service: kinds
default_flow: collect
slots:
  people: {type: integer, minimum: 1, maximum: 8}
  ratio: {type: number}
  price: {type: money, currency: USD, minimum: 0}
  size: {type: enum, values: {small: [s, 작은], large: [l, 큰]}}
  agree: {type: boolean}
  tags: {type: list}
  code: {type: string, pattern: '[A-Z]{3}[0-9]{2}', min_length: 5, max_length: 5}
  day: {type: date}
flows:
  collect:
    slots: [people, ratio, price, size, agree, tags, code, day]
    initial: ASK
    stages:
      ASK: {say: ask}
      DONE: {terminal: true, say: done}
    transitions:
      - {trigger: update, source: ASK, dest: DONE, when: not missing}
messages:
  ask: "?"
  done: "ok"
"""


def deep_value(levels: int) -> object:
    value: object = "x"
    for index in range(levels):
        value = [value] if index % 2 else {"a": value}
    return value


TRANSFER = compile_file(ROOT / "flows" / "transfer.yaml")
HUGE_INT = 10**5000  # str() of it raises ValueError (the 4,300-digit limit)
NASTY: list[Any] = [
    None, True, False, math.nan, math.inf, -math.inf, 1e308, -1e308, 1e16, 10**15 + 1,
    10**400, -(10**400), HUGE_INT, -HUGE_INT, 5e-324, -0.0, 0, 1, 10_000, 12.5, "", "  ",
    "nan", "NaN", "inf", "-Infinity", "1e999", "1e308", "1" * 400, "1" * 5000, "1,0,0",
    "10,000", " 5000 ", "엄마", "2026-11-22", "2026-02-30", "x" * 100_000, [], [1], {}, {"a": 1},
    [math.nan], {"amount": math.inf}, deep_value(100_000), (1, 2), b"1", 1 + 2j,
]


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory) -> CompiledService:
    path = Path(tmp_path_factory.mktemp("kinds")) / "kinds.yaml"
    path.write_text(KINDS, encoding="utf-8")
    return compile_file(path)


def label(value: Any) -> str:
    """A short test id; str() of a 5,000-digit int raises, so those are named by size."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 1000:
        return f"int_{value.bit_length()}_bits"
    return repr(value)[:24]


def check_accepted(slot: CompiledSlot, value: Any) -> None:
    """An accepted value has the slot's type and lies within its bounds."""
    spec = slot.spec
    match spec.type:
        case "integer" | "number" | "money":
            assert isinstance(value, int | float) and not isinstance(value, bool)
            assert math.isfinite(value) and abs(value) <= MAX_MAGNITUDE
            assert spec.type != "integer" or isinstance(value, int)
            assert spec.minimum is None or value >= spec.minimum
            assert spec.maximum is None or value <= spec.maximum
        case "string":
            assert isinstance(value, str) and value == value.strip() and value
            assert spec.max_length is None or len(value) <= spec.max_length
        case "date":
            assert dt.date.fromisoformat(value).isoformat() == value
        case "enum":
            assert value in slot.synonyms
        case "boolean":
            assert isinstance(value, bool)
        case "list":
            assert isinstance(value, list)


def check(slot: CompiledSlot, raw: Any) -> Any:
    value = validate(slot, raw, {})
    if not isinstance(value, Rejected):
        check_accepted(slot, value)
    return value


# -- fuzzed --------------------------------------------------------------------------------

NUMBERS = (st.integers() | st.integers(min_value=-(10**500), max_value=10**500)
           | st.floats() | st.sampled_from([math.nan, math.inf, -math.inf])
           | st.integers(min_value=4000, max_value=6000).map(lambda digits: 10**digits))
NUMERALS = st.from_regex(r"-?[0-9,]{0,30}(\.[0-9]*)?([eE][+-]?[0-9]{1,4})?", fullmatch=True)
TEXTS = (st.text() | NUMERALS
         | st.sampled_from(["nan", "inf", "Infinity", "1e999", "2026-11-22", "큰", "S"]))
SCALARS = st.none() | st.booleans() | NUMBERS | TEXTS
JSON_VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                           max_leaves=15)


@FUZZ
@given(st.sampled_from(sorted(TRANSFER.slots)), JSON_VALUES)
def test_every_transfer_slot_takes_any_json_value(name: str, raw: Any) -> None:
    check(TRANSFER.slots[name], raw)


@FUZZ
@given(st.data())
def test_every_slot_kind_takes_any_json_value(kinds: CompiledService, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(kinds.slots)))
    check(kinds.slots[name], data.draw(JSON_VALUES))


@pytest.mark.parametrize("raw", NASTY, ids=range(len(NASTY)))
def test_nasty_values_on_every_transfer_slot(raw: Any) -> None:
    for slot in TRANSFER.slots.values():
        check(slot, raw)


@pytest.mark.parametrize("raw", NASTY, ids=range(len(NASTY)))
def test_nasty_values_on_every_slot_kind(kinds: CompiledService, raw: Any) -> None:
    for slot in kinds.slots.values():
        check(slot, raw)


# -- the money slot, as tables ------------------------------------------------------------

@pytest.mark.parametrize("raw", [
    math.nan, math.inf, -math.inf, "nan", "inf", "-inf", "Infinity", "1e999", 1e308, 10**400,
    HUGE_INT, "1" * 5000, MAX_MAGNITUDE + 1, float(MAX_MAGNITUDE) * 2, True, False, None, [],
    [10_000], {"value": 10_000}, 0, -1000, "마이너스 천원",
], ids=label)
def test_amount_rejects(raw: Any) -> None:
    assert validate(TRANSFER.slots["amount"], raw, {}) == Rejected()


@pytest.mark.parametrize("raw, expected", [
    (10_000, 10_000), (10_000.0, 10_000), ("10,000", 10_000), (" 50000 ", 50_000),
    ("1e4", 10_000), (12.5, 12.5), (MAX_MAGNITUDE, MAX_MAGNITUDE),
    (float(MAX_MAGNITUDE), MAX_MAGNITUDE),
])
def test_amount_accepts(raw: Any, expected: Any) -> None:
    value = validate(TRANSFER.slots["amount"], raw, {})
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize("raw, expected", [
    (3, 3), (3.0, 3), ("3", 3), (3.5, Rejected()), (True, Rejected()), (math.nan, Rejected()),
    (1e300, Rejected()), (9, Rejected()),
])
def test_integer_slot(kinds: CompiledService, raw: Any, expected: Any) -> None:
    assert validate(kinds.slots["people"], raw, {}) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ("엄마", "엄마"), (123, "123"), (1.5, "1.5"), (math.inf, Rejected()), (math.nan, Rejected()),
    (HUGE_INT, Rejected()), (["엄마"], Rejected()), ({"name": "엄마"}, Rejected()),
    (True, Rejected()), ("x" * 21, Rejected()),
], ids=label)
def test_target_slot(raw: Any, expected: Any) -> None:
    assert validate(TRANSFER.slots["target"], raw, {}) == expected


def test_list_slot_refuses_deep_nesting(kinds: CompiledService) -> None:
    tags = kinds.slots["tags"]
    assert validate(tags, deep_value(100_000), {}) == Rejected()
    looped: list[object] = []
    looped.append(looped)
    assert validate(tags, looped, {}) == Rejected()
    assert validate(tags, ["a", ["b"]], {}) == ["a", ["b"]]
    assert validate(tags, "a", {}) == ["a"]
