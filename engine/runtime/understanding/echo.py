"""Model text -> the same text without the prompt's internal state, even across streamed chunks.

Internal state a prompt carries (the turn's slots, stage and completed tasks) is fenced
between ``STATE_OPEN`` and ``STATE_CLOSE``. A model that echoes the fence back is caught
here before the user sees it: ``EchoGuard`` holds back any tail of a chunk that could be the
start of a marker, drops everything between the markers (or to the end, when the closing
one never comes), and says it ``caught`` something. ``strip_state`` does the same to a whole
text at once, so a streamed reply and its final copy always agree.

Example::

    guard = EchoGuard()
    guard.feed("Hi <flow") + guard.feed("ctl-state>{...}</flowctl-state> there") \\
        + guard.flush()   # 'Hi  there'
"""

from __future__ import annotations

import re

from engine.precompiled import re_compile

STATE_OPEN = "<flowctl-state>"
STATE_CLOSE = "</flowctl-state>"
_FENCED = re_compile(re.escape(STATE_OPEN) + r".*?(?:" + re.escape(STATE_CLOSE) + r"|\Z)",
                     re.DOTALL)


def fence(text: str) -> str:
    """``text`` between the state markers, with a line telling the model not to repeat it."""
    return (f"Internal state (never repeat it, quote it or mention these markers):\n"
            f"{STATE_OPEN}\n{text}\n{STATE_CLOSE}")


def strip_state(text: str) -> str:
    """``text`` without any fenced state (an unclosed fence runs to the end)."""
    return _FENCED.sub("", text) if STATE_OPEN in text else text


def _held(text: str, marker: str) -> int:
    """Length of the longest tail of ``text`` that is a proper prefix of ``marker``."""
    for size in range(min(len(text), len(marker) - 1), 0, -1):
        if marker.startswith(text[-size:]):
            return size
    return 0


class EchoGuard:
    """Feed streamed text; get back what is safe to show now (see the module docstring)."""

    __slots__ = ("caught", "_buffer", "_inside")

    def __init__(self) -> None:
        self.caught = False
        self._buffer = ""
        self._inside = False

    def feed(self, chunk: str) -> str:
        text, out = self._buffer + chunk, []
        while text:
            marker = STATE_CLOSE if self._inside else STATE_OPEN
            at = text.find(marker)
            if at != -1:
                if not self._inside:
                    out.append(text[:at])
                    self.caught = True
                self._inside = not self._inside
                text = text[at + len(marker):]
                continue
            keep = _held(text, marker)
            if not self._inside:
                out.append(text[:len(text) - keep])
            text = text[len(text) - keep:]
            break
        self._buffer = text
        return "".join(out)

    def flush(self) -> str:
        """The held-back tail at the end of the stream (never part of a marker)."""
        rest, self._buffer = ("" if self._inside else self._buffer), ""
        return rest


__all__ = ["STATE_CLOSE", "STATE_OPEN", "EchoGuard", "fence", "strip_state"]
