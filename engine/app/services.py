"""What an app holds: services that run a turn -> async Events, DONE last.

``LocalService`` is a flow file's ``Engine`` over the app's store (its own key space);
``remote.RemoteService`` and ``a2a.A2AService`` reach other servers. All three give the
same stream the runtime gives: progress events, then exactly one DONE, never an exception.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping
from typing import Any, Protocol

from engine.runtime.engine import Engine
from engine.runtime.understanding.llm import LlmUnderstanding
from engine.runtime.values.events import Done, Event, StateSnapshot, Trace, TraceEntry, UiHint

__all__ = ["LocalService", "Service", "empty_snapshot", "failure_done"]


class Service(Protocol):
    name: str

    def turn(self, session_id: str, message: str, *, owner: str | None = None,
             context: Mapping[str, Any] | None = None,
             understood: LlmUnderstanding | None = None) -> AsyncIterator[Event]:
        """One turn; ``context`` is the request's, ``understood`` the app router's reading
        of the message (a local service uses it instead of its own call; others ignore it)."""
        ...

    async def completed(self, session_id: str, owner: str | None) -> list[dict[str, Any]]:
        """Completed tasks this service keeps elsewhere (a remote server's); [] if none."""
        ...

    async def delete(self, session_id: str, owner: str | None) -> None: ...

    async def aclose(self) -> None: ...


class LocalService:
    """A compiled flow file run in this process."""

    def __init__(self, name: str, engine: Engine) -> None:
        self.name = name
        self.engine = engine

    def turn(self, session_id: str, message: str, *, owner: str | None = None,
             context: Mapping[str, Any] | None = None,
             understood: LlmUnderstanding | None = None) -> AsyncIterator[Event]:
        # a service that declares no request context is not given the one meant for others
        given = context if self.engine.service.context_schema is not None else None
        return self.engine.turn(session_id, message, owner=owner, context=given,
                                understood=understood)

    async def completed(self, session_id: str, owner: str | None) -> list[dict[str, Any]]:
        return []  # in the app's store already

    async def delete(self, session_id: str, owner: str | None) -> None:
        """Deleted with the app's store keys."""

    async def aclose(self) -> None:
        await self.engine.aclose()


def empty_snapshot() -> StateSnapshot:
    return {"flow": None, "stage": None, "slots": {}, "missing_required": [],
            "filling_turns": 0, "meta": {"slot_errors": {}}, "task_queue": [], "stack": []}


def failure_done(message: str, service: str, started: float, turn_id: str,
                 error: str) -> Done:
    """The DONE of a turn a remote service could not answer (timeout, refused, broken)."""
    elapsed = round((time.perf_counter() - started) * 1000, 1)
    entry: TraceEntry = {"agent": f"service:{service}", "elapsed_ms": elapsed,
                         "success": False, "retries": 0, "error": error}
    trace: Trace = {"turn_id": turn_id, "total_elapsed_ms": elapsed, "agents": [entry],
                    "error": "service_unavailable"}
    return Done(message=message, next_action="ASK", ui_hint=UiHint(buttons=[]),
                state_snapshot=empty_snapshot(), trace=trace)
