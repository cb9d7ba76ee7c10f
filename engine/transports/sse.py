"""Event -> SSE frame: ``event:`` is the wire name, ``data:`` its JSON payload (DESIGN §4).

Frames carry an ``id:`` (``<stream>-<n>``) so that a browser ``EventSource`` that lost its
connection sends ``Last-Event-ID`` when it reconnects; the server answers such a reconnect
with 204 instead of running the message a second time. The first frame also sets
``retry:`` very high, so a browser does not reconnect on its own at all.
"""

from __future__ import annotations

import json
from typing import Any

from sse_starlette import ServerSentEvent

from engine.runtime.events import Event, wire

# One day: an EventSource must not resend a message by itself; the page decides.
NO_RETRY_MS = 86_400_000


def dumps(payload: Any) -> str:
    """Compact JSON that keeps Korean readable on the wire.

    >>> dumps({"message": "확인"})
    '{"message":"확인"}'
    """
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def frame(event: Event, *, stream_id: str, index: int) -> ServerSentEvent:
    """The SSE frame of ``event``, the ``index``-th of stream ``stream_id``.

    >>> from engine.runtime.events import LlmToken
    >>> frame(LlmToken("누"), stream_id="ab12", index=1).encode().decode()
    'id: ab12-1\\r\\nevent: LLM_TOKEN\\r\\ndata: "누"\\r\\n\\r\\n'
    """
    name, payload = wire(event)
    return ServerSentEvent(dumps(payload), event=name, id=f"{stream_id}-{index}",
                           retry=NO_RETRY_MS if index == 0 else None)
