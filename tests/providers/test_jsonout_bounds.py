"""extract_json and validate_output on hostile model replies: only ValueError, never a crash.

A model reply is untrusted input. Whatever it is (any text, JSON nested 10,000 levels deep,
NaN, 1e999, a 5,000-digit integer, a megabyte of string), ``extract_json`` returns an object
within the bounds (depth, finite numbers) or raises ValueError, which callers read as a
malformed reply.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.providers.jsonout import (
    MAX_DEPTH,
    MAX_REPLY_CHARS,
    extract_json,
    nesting_depth,
    validate_output,
)

FUZZ = settings(max_examples=300, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

DEEP = 10_000


def check_bounded(obj: dict[str, object]) -> None:
    """What a returned object always satisfies: depth and finite, float-sized numbers."""
    assert isinstance(obj, dict)
    assert nesting_depth(obj) <= MAX_DEPTH
    stack: list[object] = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float):
            assert math.isfinite(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            float(item)  # no OverflowError


def extract_or_refuse(text: str) -> dict[str, object] | None:
    """extract_json's result, None for its ValueError; any other exception fails the test."""
    try:
        obj = extract_json(text)
    except ValueError as err:
        assert str(err)  # callers log why
        return None
    check_bounded(obj)
    return obj


# -- arbitrary text ----------------------------------------------------------------------------

JSON_ALPHABET = st.sampled_from(list('{}[]":,\\ \n`0123456789.eE+-') + ["NaN", "Infinity",
                                "true", "null", "```json\n", '"a"', "1e999", "9" * 400])


@FUZZ
@given(st.text())
def test_any_text(text: str) -> None:
    extract_or_refuse(text)


@FUZZ
@given(st.lists(JSON_ALPHABET, max_size=200).map("".join))
def test_json_shaped_noise(text: str) -> None:
    extract_or_refuse(text)


# -- arbitrary JSON documents ------------------------------------------------------------------

SCALARS = (st.none() | st.booleans() | st.text(max_size=20)
           | st.integers(min_value=-(10**30), max_value=10**30)
           | st.floats(allow_nan=False, allow_infinity=False))
NASTY_NUMBERS = st.sampled_from([math.nan, math.inf, -math.inf, 10**400, -(10**400)])


def documents(scalars: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)
    return st.dictionaries(st.text(max_size=8), values, max_size=5)


PROSE = st.text(alphabet=st.characters(blacklist_characters="{}`"), max_size=30)


@FUZZ
@given(documents(SCALARS), PROSE, PROSE, st.booleans())
def test_a_clean_document_is_found_in_prose_or_a_fence(doc: dict[str, Any], before: str,
                                                       after: str, fenced: bool) -> None:
    body = json.dumps(doc, ensure_ascii=False)
    text = f"{before}```json\n{body}\n```{after}" if fenced else f"{before}{body}{after}"
    assert extract_json(text) == doc


@FUZZ
@given(documents(SCALARS | NASTY_NUMBERS))
def test_a_document_with_nan_infinity_or_huge_numbers_is_refused_or_clean(
        doc: dict[str, Any]) -> None:
    obj = extract_or_refuse(json.dumps(doc))  # json.dumps writes NaN, Infinity, 400 digits
    if obj is not None:
        assert obj == doc


# -- adversarial replies -----------------------------------------------------------------------

def deep(levels: int, kind: str) -> str:
    """A reply nested ``levels`` deep (one more for arrays), compact so that 10,000 levels
    fit in the size bound."""
    if kind == "objects":
        return '{"a":' * levels + "1" + "}" * levels
    if kind == "arrays":
        return '{"a":' + "[" * levels + "]" * levels + "}"
    return '{"a":' + '[{"":' * (levels // 2) + "1" + "}]" * (levels // 2) + "}"


@pytest.mark.parametrize("kind", ["objects", "arrays", "mixed"])
@pytest.mark.parametrize("wrap", ["{}", "```json\n{}\n```", "Sure: {} hope it helps"],
                         ids=["bare", "fenced", "prose"])
def test_deep_nesting_is_a_parse_error(kind: str, wrap: str) -> None:
    with pytest.raises(ValueError, match="nested .* levels deep"):
        extract_json(wrap.replace("{}", deep(DEEP, kind)))


@pytest.mark.parametrize("kind", ["objects", "arrays", "mixed"])
def test_nesting_past_the_size_bound_is_a_parse_error(kind: str) -> None:
    with pytest.raises(ValueError, match="not closed.*first 65536 characters"):
        extract_json(deep(DEEP * 10, kind))


def test_nesting_up_to_the_bound_parses() -> None:
    assert nesting_depth(extract_json(deep(MAX_DEPTH, "objects"))) == MAX_DEPTH
    assert nesting_depth(extract_json(deep(MAX_DEPTH - 1, "arrays"))) == MAX_DEPTH
    with pytest.raises(ValueError, match=f"nested {MAX_DEPTH + 1} levels"):
        extract_json(deep(MAX_DEPTH + 1, "objects"))
    with pytest.raises(ValueError, match=f"nested {MAX_DEPTH + 1} levels"):
        extract_json(deep(MAX_DEPTH, "arrays"))


def test_a_usable_object_after_a_too_deep_one_is_found() -> None:
    assert extract_json(deep(DEEP // 2, "objects") + ' then {"ok": 1}') == {"ok": 1}


def test_unclosed_deep_nesting_is_a_parse_error() -> None:
    with pytest.raises(ValueError, match="not closed"):
        extract_json('{"a": ' * DEEP)
    with pytest.raises(ValueError):
        extract_json("[" * DEEP + "{")


NUMBERS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1E400", "9" * 310, "-" + "9" * 310,
           "1" * 5000, "1" * 60_000]


@pytest.mark.parametrize("literal", NUMBERS, ids=[n[:12] + f"({len(n)})" for n in NUMBERS])
@pytest.mark.parametrize("where", ["top", "nested", "operation"])
def test_non_finite_and_huge_numbers_are_a_parse_error(literal: str, where: str) -> None:
    text = {"top": '{"amount": VALUE}',
            "nested": '{"a": [1, {"b": [VALUE]}]}',
            "operation": '{"operations": [{"op": "set", "slot": "amount", "value": VALUE}]}',
            }[where].replace("VALUE", literal)
    with pytest.raises(ValueError, match="not a JSON number|out of range"):
        extract_json(text)


def test_numbers_within_the_float_range_parse() -> None:
    assert extract_json('{"a": 1e308, "b": -1e-999, "c": ' + "9" * 308 + "}") == {
        "a": 1e308, "b": -0.0, "c": int("9" * 308)}


def test_a_number_error_does_not_hide_a_later_object() -> None:
    assert extract_json('{"a": NaN} or rather {"a": 1}') == {"a": 1}


def test_huge_strings_are_bounded() -> None:
    big = "x" * (MAX_REPLY_CHARS * 16)
    assert extract_json('{"message": "hi"}' + big) == {"message": "hi"}
    with pytest.raises(ValueError, match=f"first {MAX_REPLY_CHARS} characters"):
        extract_json('{"message": "' + big + '"}')
    with pytest.raises(ValueError, match=f"first {MAX_REPLY_CHARS} characters"):
        extract_json(big + '{"message": "late"}')
    fits = "y" * (MAX_REPLY_CHARS - 20)
    assert extract_json('{"m": "' + fits + '"}') == {"m": fits}


def test_not_text_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="expected the reply as text"):
        extract_json(None)  # type: ignore[arg-type]


# -- validate_output and nesting_depth ---------------------------------------------------------

def deep_value(levels: int) -> object:
    value: object = 1
    for index in range(levels):
        value = [value] if index % 2 else {"a": value}
    return value


def test_validate_output_reports_a_too_deep_object_instead_of_recursing() -> None:
    problems = validate_output({"a": deep_value(DEEP * 10)}, {"type": "object"})
    assert problems == [f"(root): nested more than {MAX_DEPTH} levels deep"]
    looped: list[object] = []
    looped.append(looped)
    assert validate_output({"a": looped}, {"type": "object"}) == problems


@FUZZ
@given(documents(SCALARS), st.sampled_from([
    {"type": "object"}, {"properties": {"a": {"type": "number", "minimum": 0}}},
    {"required": ["operations"], "properties": {"operations": {"type": "array"}}},
]))
def test_validate_output_on_any_document(doc: dict[str, Any], schema: dict[str, Any]) -> None:
    assert all(isinstance(p, str) for p in validate_output(doc, schema))


def test_nesting_depth() -> None:
    assert nesting_depth(1) == 0
    assert nesting_depth([]) == 1
    assert nesting_depth({"a": [1, {"b": ()}]}) == 4
    assert nesting_depth(deep_value(DEEP * 10)) == DEEP * 10
    assert nesting_depth(deep_value(DEEP * 10), limit=MAX_DEPTH) == MAX_DEPTH + 1
    assert nesting_depth(deep_value(MAX_DEPTH), limit=MAX_DEPTH) == MAX_DEPTH
