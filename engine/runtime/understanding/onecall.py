"""Streamed text of the turn's one model call -> its routing head, then its `message` chunks.

The one call of a turn that the rules could not settle answers with ONE JSON object whose
routing fields come first and whose ``message`` (the reply to the user) comes last::

    {"intent": null, "confidence": 0.2, "operations": [], "message": "안녕하세요! ..."}

``OneCallReader`` is fed the text as the provider streams it. As soon as the ``message``
value opens, everything before it (the head) is parsed, so the turn knows where it goes
before a single character of the message reaches the user; the message's characters are
then handed out as they arrive (``take``). A model that writes ``message`` before the
routing fields is read to its end first. A reply that does not start with ``{`` (or a code
fence) is plain text: no routing, and the whole text is the message, used as it is.
"""

from __future__ import annotations

from typing import Any, Literal

from engine.precompiled import re_compile
from engine.providers.jsonout import JsonFieldStreamer, extract_json

_MESSAGE_KEY = re_compile(r'"message"\s*:\s*"')
_TRAILING_COMMA = re_compile(r",\s*$")
_ROUTING_KEYS = ("intent", "operations")
Kind = Literal["unknown", "json", "plain"]


class OneCallReader:
    """Feed chunks; ``head`` is known as soon as the routing fields are complete.

    Example::

        reader = OneCallReader()
        reader.feed('{"intent": null, "operations": [], "mess')   # head not known yet
        reader.feed('age": "Hel')
        reader.head, reader.take()       # ({'intent': None, 'operations': []}, 'Hel')
    """

    __slots__ = ("kind", "head", "problem", "finished", "_text", "_field", "_pending")

    def __init__(self) -> None:
        self.kind: Kind = "unknown"
        self.head: dict[str, Any] | None = None
        """The routing fields, once known (None: not yet, or the reply has none)."""
        self.problem = ""
        """Why the head could not be read (a JSON reply that does not parse)."""
        self.finished = False
        self._text: list[str] = []
        self._field = JsonFieldStreamer("message")
        self._pending: list[str] = []

    @property
    def head_known(self) -> bool:
        """The turn may decide now: the head was read, the reply is plain text, or it ended."""
        return self.finished or self.kind == "plain" or self.head is not None

    @property
    def text(self) -> str:
        return "".join(self._text)

    def feed(self, chunk: str) -> None:
        self._text.append(chunk)
        if self.kind == "unknown":
            start = self.text.lstrip()
            if not start:
                return
            self.kind = "json" if start[0] in "{`" else "plain"
            chunk = self.text
        if self.kind == "plain":
            self._pending.append(chunk)
            return
        self._pending.append(self._field.feed(chunk))
        if self.head is None and self._opened():
            self._read_head()

    def finish(self, text: str) -> None:
        """The whole reply arrived (``text`` as the provider reports it)."""
        self.finished = True
        if self.kind == "unknown":
            self.kind = "json" if text.lstrip()[:1] in ("{", "`") else "plain"
            if self.kind == "plain":
                self._pending.append(text)
        if self.kind == "json" and self.head is None:
            try:
                self.head = extract_json(text)
            except ValueError as err:
                self.problem = str(err)

    def take(self) -> str:
        """The message's characters that arrived since the last ``take``."""
        out = "".join(self._pending)
        self._pending.clear()
        return out

    @property
    def message(self) -> str:
        """The whole message so far (plain text: the whole reply)."""
        if self.kind == "plain":
            return self.text
        if self._field.text or self.head is None:
            return self._field.text
        value = self.head.get("message")
        return value if isinstance(value, str) else ""

    def _opened(self) -> bool:
        return self._field.done or self._field.opened

    def _read_head(self) -> None:
        text = self.text
        cut = [m.start() for m in _MESSAGE_KEY.finditer(text)]
        if not cut:
            return  # the object ended without a message string: read at the end
        head = _TRAILING_COMMA.sub("", text[:cut[-1]].rstrip()) + "}"
        try:
            obj = extract_json(head)
        except ValueError:
            return  # read at the end
        if any(key in obj for key in _ROUTING_KEYS):
            self.head = obj


__all__ = ["OneCallReader"]
