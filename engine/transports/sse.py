"""Event -> SSE frame: ``event:`` is the wire name, ``data:`` its JSON payload.

Frames carry an ``id:`` (``<stream>-<n>``) so that a client that lost its connection (a
browser ``EventSource`` does it by itself) sends ``Last-Event-ID`` when it reconnects: the
server then replays the frames after that one from the store, DONE included, and never runs
the message a second time; with nothing left to send it answers 204, which stops an
``EventSource``. The first frame sets ``retry:`` to one second.
"""

from __future__ import annotations

from typing import Any

from sse_starlette import ServerSentEvent

from engine.runtime.values.events import Event, wire
from engine.transports.fastjson import dumps as _dumps

RETRY_MS = 1_000
"""How soon a browser reconnects a dropped stream (a reconnect replays; it runs nothing)."""


def dumps(payload: Any) -> str:
    """Compact JSON that keeps Korean readable on the wire.

    >>> dumps({"message": "확인"})
    '{"message":"확인"}'
    """
    return _dumps(payload)


def frame(event: Event, *, stream_id: str, index: int) -> ServerSentEvent:
    """The SSE frame of ``event``, the ``index``-th of stream ``stream_id``.

    >>> from engine.runtime.values.events import LlmToken
    >>> frame(LlmToken("누"), stream_id="ab12", index=1).encode().decode()
    'id: ab12-1\\r\\nevent: LLM_TOKEN\\r\\ndata: "누"\\r\\n\\r\\n'
    """
    name, payload = wire(event)
    return wire_frame(name, payload, stream_id=stream_id, index=index)


def wire_frame(name: str, payload: Any, *, stream_id: str, index: int) -> ServerSentEvent:
    """The SSE frame of an event already in its wire form (a replayed one)."""
    return ServerSentEvent(dumps(payload), event=name, id=f"{stream_id}-{index}",
                           retry=RETRY_MS if index == 0 else None)


def parse_event_id(value: str) -> tuple[str, int] | None:
    """``(stream, index)`` of a ``Last-Event-ID`` this server sent, else None.

    >>> parse_event_id("ab12-3"), parse_event_id("nonsense")
    (('ab12', 3), None)
    """
    stream, _, index = value.strip().rpartition("-")
    if not stream or not index.isdigit() or len(index) > 9:
        return None
    return stream, int(index)
