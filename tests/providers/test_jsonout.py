"""extract_json, validate_output and JsonFieldStreamer as tables."""

from __future__ import annotations

import json

import pytest

from engine.providers.jsonout import JsonFieldStreamer, extract_json, validate_output

DOCUMENTS = [
    {"action": "ASK", "message": "얼마를 보낼까요?"},
    {"message": 'He said "hi" \\ back\nthen left\ttabbed'},
    {"action": "CONFIRM", "meta": {"message": "nested, ignored", "list": [1, {"x": "}{"}]},
     "note": "a \"quoted\" } brace", "message": "emoji 😀 and snowman ☃ and \u0001 control"},
    {"items": [{"message": "no"}, []], "message": "", "after": "x"},
    {"message": "surrogates 𝄞𝄞 next to ascii", "message2": "not me"},
]


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _render(doc: dict[str, object], style: str) -> str:
    if style == "ascii":
        return json.dumps(doc)  # non-ASCII becomes \uXXXX, including surrogate pairs
    if style == "unicode":
        return json.dumps(doc, ensure_ascii=False)
    return "Here you go:\n```json\n" + json.dumps(doc, ensure_ascii=False, indent=2) + "\n```\n"


@pytest.mark.parametrize("size", range(1, 8))
@pytest.mark.parametrize("style", ["ascii", "unicode", "fenced-pretty"])
@pytest.mark.parametrize("doc", DOCUMENTS, ids=range(len(DOCUMENTS)))
def test_field_streamer_any_chunking(doc: dict[str, object], style: str, size: int) -> None:
    streamer = JsonFieldStreamer("message")

    pieces = [streamer.feed(chunk) for chunk in _chunks(_render(doc, style), size)]

    assert "".join(pieces) == doc["message"]
    assert streamer.text == doc["message"]
    assert streamer.done


def test_field_streamer_is_incremental_and_silent_around_the_field() -> None:
    streamer = JsonFieldStreamer()
    assert streamer.feed('{"action": "ASK", "mess') == ""
    assert streamer.feed('age": "Hel') == "Hel"
    assert streamer.feed("lo\\") == "lo"
    assert streamer.feed("nwor") == "\nwor"
    assert streamer.feed('ld", "slots": {"message": "x"}}') == "ld"
    assert streamer.feed(' trailing "message": "nope"') == ""


def test_field_streamer_other_field_and_non_string_value() -> None:
    streamer = JsonFieldStreamer("reply")
    assert streamer.feed('{"message": "a", "reply": null, "x": "b"}') == ""
    streamer = JsonFieldStreamer("reply")
    assert streamer.feed('{"message": "a", "reply": "b\\u00e9"}') == "bé"


@pytest.mark.parametrize("text, expected", [
    ('{"a": 1}', {"a": 1}),
    ('```json\n{"action": "ASK"}\n```', {"action": "ASK"}),
    ('Sure! Here it is:\n```\n{"a": [1, 2]}\n```\nAnything else?', {"a": [1, 2]}),
    ('The answer is {"a": {"b": {"c": "}"}}} as requested.', {"a": {"b": {"c": "}"}}}),
    ('{"broken": } and then {"ok": true}', {"ok": True}),
    ('```json\n{"fenced": 1}\n``` but also {"bare": 2}', {"fenced": 1}),
    ('  \n{"message": "줄바꿈\\n"}\n', {"message": "줄바꿈\n"}),
], ids=["bare", "fenced", "prose-around", "nested", "skip-invalid", "fence-first", "unicode"])
def test_extract_json(text: str, expected: dict[str, object]) -> None:
    assert extract_json(text) == expected


@pytest.mark.parametrize("text, reason", [
    ("no json here", "no JSON object"),
    ("[1, 2, 3]", "no JSON object"),
    ('{"a": 1', "not closed"),
    ("{'a': 1}", "invalid JSON"),
    ("", "no JSON object"),
], ids=["prose", "array", "cut-off", "single-quotes", "empty"])
def test_extract_json_errors(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        extract_json(text)


SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"enum": ["ASK", "CONFIRM", "DONE"]},
        "amount": {"type": "integer", "minimum": 1},
        "message": {"type": "string"},
    },
    "required": ["action", "message"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("obj, expected", [
    ({"action": "ASK", "message": "?"}, []),
    ({"action": "NOPE", "message": "?"},
     ["action: 'NOPE' is not one of ['ASK', 'CONFIRM', 'DONE']"]),
    ({"action": "ASK", "message": "?", "amount": 0}, ["amount: 0 is less than the minimum of 1"]),
    ({"message": 3}, ["(root): 'action' is a required property",
                      "message: 3 is not of type 'string'"]),
    ({"action": "ASK", "message": "", "x": 1},
     ["(root): Additional properties are not allowed ('x' was unexpected)"]),
])
def test_validate_output(obj: dict[str, object], expected: list[str]) -> None:
    assert validate_output(obj, SCHEMA) == expected
