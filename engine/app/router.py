"""(message, service in progress) -> the service that answers, and why.

Keywords decide: every service claims words (its
own ``keywords`` and, for a local flow, its routed intents' keywords); the longest word
found in the message wins, a tie goes to the service listed first. A service in progress
(mid-flow: collecting slots, waiting for a yes, working through a batch) keeps the turn,
so "3만원" or "확인" never leave it, unless the message clearly switches: it names another
service's word and none of the current one's. A service left mid-flow that way gets the
conversation back when the other one is done and the next message names no service
("잔액 알려줘" in the middle of a transfer, then "3만원" goes on with the transfer). Nothing
matched: the default service.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from engine.runtime.understanding.llm import LlmUnderstanding
from engine.runtime.values.events import TraceEntry

Reason = Literal["keyword", "mid_flow", "switch", "resume", "default", "intent", "llm",
                 "llm_failed"]
"""Why a service answers; the last three only with an LLM router (``llm_router``)."""

__all__ = ["Route", "Router"]


@dataclass(frozen=True, slots=True)
class Route:
    service: str
    reason: Reason
    keyword: str | None = None
    understood: LlmUnderstanding | None = None
    """The router model's understanding, for the chosen local service to use."""
    call: TraceEntry | None = None
    """The router model's call, for ``_trace``."""


class Router:
    """The keyword table of an app, built once; ``route`` runs per message."""

    def __init__(self, words: Mapping[str, Sequence[str]], default: str) -> None:
        self.default = default
        self.words = {name: tuple(ws) for name, ws in words.items()}
        self._table = sorted(((w, name, order) for order, (name, ws) in enumerate(words.items())
                              for w in ws), key=lambda t: (-len(t[0]), t[2]))

    def match(self, message: str) -> tuple[str, str] | None:
        """(service, keyword) of the longest keyword in ``message``; ties: listed first."""
        for word, name, _ in self._table:
            if word in message:
                return name, word
        return None

    def route(self, message: str, active: str | None = None, *,
              mid_flow: bool = False, suspended: str | None = None) -> Route:
        """The service for ``message``; ``active`` answered the last turn (``mid_flow``: and
        is not done), ``suspended`` was left mid-flow by a switch."""
        found = self.match(message)
        if active is not None and mid_flow and active in self.words:
            if found is None or found[0] == active or \
                    any(w in message for w in self.words[active]):
                return Route(active, "mid_flow")
            return Route(found[0], "switch", found[1])
        if found is not None:
            return Route(found[0], "keyword", found[1])
        if suspended is not None and suspended in self.words:
            return Route(suspended, "resume")
        return Route(self.default, "default")
