"""engine/store/codec.py: what the SQLite and memory stores write and read back."""

from __future__ import annotations

import json

import pytest

from engine.store import MemoryStore
from engine.store.codec import dumps, loads

VALUES = [
    {"big": 2**70, "neg": -(2**64), "edge": 2**63 - 1, "float": 0.1, "n": [1.5, None, True]},
    {"text": "엄마\u200d 🙂", 1: "a key that is a number"},
    {"account": "1234567890123456789012"},  # 22 digits in a string stay a string
]


@pytest.mark.parametrize("value", VALUES)
def test_what_is_written_reads_back_as_json_would(value: dict) -> None:  # type: ignore[type-arg]
    text = dumps(value)
    assert loads(text) == json.loads(json.dumps(value, ensure_ascii=False))
    assert "\\u" not in text  # Korean and invisible characters as they are, never escaped


def test_an_integer_beyond_64_bits_stays_an_integer() -> None:
    assert type(loads(dumps({"x": 2**70}))["x"]) is int
    assert type(loads('{"x": 123456789012345678901}')["x"]) is int  # written by json


async def test_the_memory_store_keeps_values_exactly() -> None:
    store = MemoryStore()
    await store.commit("s", {"big": 2**70}, expected_version=0, completed=[{"n": 2**65}])
    record = await store.load("s")
    assert record is not None and record.data == {"big": 2**70}
    assert await store.completed("s") == [{"n": 2**65}]


def test_text_json_wrote_is_read_by_json_and_orjsons_by_orjson() -> None:
    old = json.dumps({"amount": 123456789012345678901, "memo": "a"}, ensure_ascii=False)
    assert type(loads(old)["amount"]) is int  # a row written before orjson
    assert '": ' not in dumps({"a": [1, {"b": "c"}], "d": "x: y"})  # orjson reads it
    quoted = {"d": 'say "x": y'}  # its text has \\": inside the string: json reads it
    assert loads(dumps(quoted)) == quoted
