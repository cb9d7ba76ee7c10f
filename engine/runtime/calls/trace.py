"""What ran in a turn -> DONE's ``_trace`` entries, one typed entry per agent, call or action.

Entries are appended as each piece of work finishes and never edited by position: a caller
that must amend an entry (a model reply that turned out unusable) holds the entry it got.

Outside FLOWCTL_DEV_MODE an error in the trace is only its kind (``auth``, ``timeout``,
``malformed``, ``HTTP 400``): an upstream message can carry a key, an account number or an
internal host, and DONE goes to every client. The server's log keeps the details.
"""

from __future__ import annotations

import time
from typing import Any

from engine.providers.reliability import CallRecord
from engine.registry import FAILURE_TAGS
from engine.runtime.calls.models import LiveModel
from engine.runtime.values.events import SelectedAgent, TraceEntry


def ms(started: float) -> float:
    """Milliseconds since ``started`` (a ``time.perf_counter()`` reading), rounded to µs."""
    return round((time.perf_counter() - started) * 1000, 3)


class Tracer:
    """Collects a turn's trace entries."""

    __slots__ = ("entries", "redact", "tags", "selected", "requests")

    def __init__(self, *, redact: bool = True) -> None:
        self.entries: list[TraceEntry] = []
        self.redact = redact
        self.tags: list[str] = []
        """The turn's failure tags (``registry.FAILURE_TAGS``), each once, in order."""
        self.selected: list[SelectedAgent] = []
        """The agent steps and actions that ran, in order, with what each gave (the
        orchestrator shape's ``selected_agents``)."""
        self.requests: list[dict[str, Any]] = []
        """Action requests the gateway let through (``action_requests``)."""

    def ran(self, agent: str, output: Any) -> None:
        """Agent step or action ``agent`` ran and gave ``output`` (already scrubbed)."""
        self.selected.append(SelectedAgent(agent_name=agent, order=len(self.selected) + 1,
                                           output=output))

    def tag(self, name: str) -> None:
        """Note failure tag ``name`` for DONE's ``_trace.failure_tags``."""
        assert name in FAILURE_TAGS, name
        if name not in self.tags:
            self.tags.append(name)

    def step(self, agent: str, started: float, *, error: str | None = None) -> TraceEntry:
        """A built-in agent (intent, understand) or an action that took since ``started``."""
        entry: TraceEntry = {"agent": agent, "elapsed_ms": ms(started),
                             "success": error is None, "retries": 0,
                             "error": error and self._shown(error)}
        self.entries.append(entry)
        return entry

    def llm(self, agent: str, record: CallRecord | None, live: LiveModel, *,
            error: str | None = None) -> TraceEntry:
        """One logical model call (all its attempts); ``error`` when it gave no answer."""
        entry = TraceEntry(agent=agent, provider=live.config.provider, model=live.config.model,
                           elapsed_ms=0.0, success=error is None, retries=0,
                           error=self._shown(error), tokens_in=0, tokens_out=0,
                           fallback=error is not None)
        if record is not None:
            entry["elapsed_ms"] = round(record.elapsed_ms, 3)
            entry["retries"], entry["error"] = record.retries, self._shown(error or record.error)
            entry["tokens_in"], entry["tokens_out"] = record.tokens_in, record.tokens_out
            if record.tokens_cached:
                entry["tokens_cached"] = record.tokens_cached
            entry["success"] = error is None and not record.error
        self.entries.append(entry)
        return entry

    def _shown(self, error: str | None) -> str | None:
        if error is None or not self.redact:
            return error
        return error.split(":", 1)[0]  # "auth: <the provider's words>" -> "auth"

    def unusable(self, entry: TraceEntry, reason: str) -> None:
        """The call answered, but its reply could not be used: the fallback answers instead."""
        entry["success"], entry["fallback"] = False, True
        entry["error"] = self._shown(f"malformed: {reason}")


__all__ = ["Tracer", "ms"]
