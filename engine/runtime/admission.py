"""A request for a turn -> admitted (None), or a ``Refusal``: why, and what the user is told.

Every transport asks the engine (``Engine.admit``) before it starts a turn, and the engine
asks again inside the turn for in-process callers; both measure the same text, the message
as understanding reads it (``clean_text``). A transport maps a refusal's ``kind`` to its own
answer in one place (HTTP: ``transports/http/errors.refusal_response``); a turn refused is a
DONE carrying the refusal, the session untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RefusalKind = Literal["empty_message", "message_too_long", "bad_context", "forbidden"]
"""``forbidden``: the session is someone else's (found only under the session's lock)."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a turn did not run, and the text that tells the user."""

    kind: RefusalKind
    text: str
    problems: tuple[str, ...] = ()
    """A bad context's problems, one per line of the service's schema it breaks."""
    limit: int | None = None
    """A message's length limit, when it was over it."""

    @property
    def tags(self) -> list[str]:
        """The DONE's failure tags."""
        return ["CONTEXT_OVERFLOW"] if self.kind == "message_too_long" else []

    @property
    def error(self) -> str | None:
        """``_trace.error`` of the DONE (the empty and over-long messages are answers, not
        errors)."""
        return self.kind if self.kind in ("bad_context", "forbidden") else None


__all__ = ["Refusal", "RefusalKind"]
