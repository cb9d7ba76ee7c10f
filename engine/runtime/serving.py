"""What a transport needs of an engine: ``TurnEngine``, and ``About`` what it serves.

HTTP, the terminal chat, the A2A server and the background-run host depend on this
Protocol, never on a class: a flow's ``Engine`` and an app's ``AppEngine`` both implement
it, each in its own way (an app routes each turn to one of its services and keeps its own
record of who answered). ``About`` is what a transport shows of the service: its name,
description and version (health check, OpenAPI, the A2A agent card), the request context
it takes, and its skills.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from engine.runtime.values.events import Done, Event

if TYPE_CHECKING:
    import datetime as dt

    from engine.compiler.compiled import CompiledService
    from engine.config import Settings
    from engine.runtime.calls.folding import BackgroundFolds
    from engine.runtime.calls.models import ModelPool
    from engine.runtime.understanding.llm import LlmUnderstanding
    from engine.runtime.values.admission import Refusal
    from engine.store.base import SessionStore


@dataclass(frozen=True, slots=True)
class Skill:
    """One thing the service does, as an A2A agent card lists it."""

    id: str
    description: str
    tags: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class About:
    """What a transport shows of what it serves."""

    name: str
    description: str
    version: str
    context_schema: Mapping[str, Any] | None
    """The JSON Schema of the request's ``context`` (None: it takes none)."""
    skills: tuple[Skill, ...]

    @classmethod
    def of(cls, service: CompiledService) -> About:
        """A flow's: one skill per intent it routes."""
        spec = service.spec
        skills = tuple(Skill(name, intent.description or name, tuple(intent.keywords),
                             tuple(intent.examples))
                       for name, intent in spec.intents.items() if name in spec.routes)
        return cls(service.name, service.description or "", str(spec.version or "0"),
                   service.context_schema, skills)


class TurnEngine(Protocol):
    """Runs turns of one served service (a flow, or an app of many)."""

    @property
    def about(self) -> About:
        """What it serves, as a transport shows it."""
        ...

    @property
    def service(self) -> CompiledService:
        """The flow the playground draws and edits, whose models the supervisor probes and
        whose texts refusals use (an app's: its first local service's)."""
        ...

    @property
    def store(self) -> SessionStore:
        """Where its sessions are (an app's: its own record with each service's inside)."""
        ...

    @property
    def settings(self) -> Settings:
        """The operator's settings, the flow's defaults applied."""
        ...

    @property
    def models(self) -> ModelPool:
        """The service's models, as the operator set them."""
        ...

    @property
    def folds(self) -> BackgroundFolds:
        """Memory summaries still being written after a turn (a chat waits for them)."""
        ...

    def clock(self) -> dt.datetime:
        """Now, in the service's time zone (tests fix it)."""
        ...

    def turn(self, session_id: str, message: str, *, owner: str | None = None,
             stream: str | None = None, context: Mapping[str, Any] | None = None,
             understood: LlmUnderstanding | None = None) -> AsyncIterator[Event]:
        """Run one turn: its events, always ending with DONE."""
        ...

    def admit(self, message: str, context: Mapping[str, Any] | None = None, *,
              session_id: str | None = None, owner: str | None = None) -> Refusal | None:
        """Whether a turn of ``message`` may run (None), or why not; with ``session_id``
        the caller's rate is asked too (the turn counts itself)."""
        ...

    async def refused(self, session_id: str, refusal: Refusal, owner: str | None, *,
                      turn_id: str | None = None, started: float | None = None) -> Done:
        """The DONE of a turn ``admit`` refused, the session untouched."""
        ...

    def text(self, key: str, **values: Any) -> str:
        """A built-in text, or the service's message of the same name."""
        ...

    async def replay(self, session_id: str, stream: str, after: int, *,
                     owner: str | None = None) -> list[tuple[int, str, Any]]:
        """The events of ``stream`` after its ``after``-th, once its turn has finished."""
        ...

    async def finish_pending(self, session_id: str) -> Done | None:
        """Finish the irreversible action a dead process left pending in ``session_id``."""
        ...

    async def prepare(self) -> None:
        """Start, before any turn, what the first turn would wait for (MCP servers)."""
        ...

    async def finish_all_pending(self) -> int:
        """``finish_pending`` for every session left pending; how many were."""
        ...

    async def may_use(self, session_id: str, owner: str | None) -> bool:
        """Whether ``owner`` may read or act in ``session_id``."""
        ...

    async def delete(self, session_id: str, owner: str | None) -> bool:
        """Forget ``session_id``, if ``owner`` may."""
        ...

    async def aclose(self) -> None:
        """Close what the engine opened (providers, hooks, remote clients)."""
        ...


async def last_done(events: AsyncIterator[Event]) -> Done:
    """The DONE that ends a turn's ``events`` (the others are dropped)."""
    done: Done | None = None
    async for event in events:
        if isinstance(event, Done):
            done = event
    assert done is not None, "a turn always ends with DONE"
    return done

__all__ = ["About", "Skill", "TurnEngine", "last_done"]
