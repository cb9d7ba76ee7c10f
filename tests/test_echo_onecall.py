"""The echo guard and the one-call reader, fed every way a stream can split their text."""

from __future__ import annotations

import json

import pytest

from engine.runtime.understanding.echo import STATE_CLOSE, STATE_OPEN, EchoGuard, strip_state
from engine.runtime.understanding.onecall import OneCallReader

ECHOES = [
    (f"Hi {STATE_OPEN}{{\"slots\": {{}}}}{STATE_CLOSE} there", "Hi  there"),
    (f"Hi {STATE_OPEN}{{\"slots\": {{}}}} and never closed", "Hi "),
    ("a < b and <flowctl-stat is not the marker", "a < b and <flowctl-stat is not the marker"),
    (f"{STATE_OPEN}x{STATE_CLOSE}{STATE_OPEN}y{STATE_CLOSE}ok", "ok"),
]


@pytest.mark.parametrize(("text", "shown"), ECHOES)
def test_the_guard_drops_fenced_state_however_the_stream_splits_it(text: str,
                                                                   shown: str) -> None:
    assert strip_state(text) == shown
    for size in range(1, len(text) + 1):
        guard = EchoGuard()
        pieces = [guard.feed(text[i:i + size]) for i in range(0, len(text), size)]
        pieces.append(guard.flush())
        assert "".join(pieces) == shown, size
        assert not any("flowctl-state" in p for p in pieces)
        assert guard.caught == (STATE_OPEN in text)


def _feed(text: str, size: int) -> tuple[OneCallReader, str]:
    """Feed ``text`` in ``size`` chunks as the turn does: the message is taken only once
    the head is known, and then the head must hold the routing fields."""
    reader, shown = OneCallReader(), ""
    for i in range(0, len(text), size):
        reader.feed(text[i:i + size])
        if reader.head_known:
            assert reader.kind == "plain" or reader.head is not None and "intent" in reader.head
            shown += reader.take()
    reader.finish(text)
    return reader, shown + reader.take()


def test_the_head_is_known_when_the_message_opens_before_it_ends() -> None:
    text = json.dumps({"intent": "transfer", "confidence": 0.9, "operations": [],
                       "message": "이건 아주 긴 메시지 " * 10}, ensure_ascii=False)
    reader = OneCallReader()
    reader.feed(text[:text.index('"message"') + 14])
    assert reader.head_known and reader.head == {"intent": "transfer", "confidence": 0.9,
                                                 "operations": []}
    assert reader.take() == "이건"


@pytest.mark.parametrize("size", [1, 2, 5, 64])
def test_routing_first_message_first_and_plain_text(size: int) -> None:
    first = json.dumps({"intent": None, "operations": [], "message": 'a "q" b'})
    reader, shown = _feed(first, size)
    assert reader.head is not None and reader.head["intent"] is None
    assert shown == reader.message == 'a "q" b'
    late = json.dumps({"message": "hi", "intent": "x", "operations": []})
    reader, shown = _feed(late, size)  # the head is known only at the end
    assert reader.head == {"message": "hi", "intent": "x", "operations": []} and shown == "hi"
    reader, shown = _feed("Hello there!", size)
    assert reader.kind == "plain" and shown == reader.message == "Hello there!"
