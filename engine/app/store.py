"""One session store -> a key space per service of an app, plus the app's own record.

Every service of an app keeps its session under ``<service>/<session_id>`` and the app its
routing record (owner, service in progress) under ``@/<session_id>``: a service name is an
identifier, so no session id can reach another's key. ``ServiceStore`` is what a local
service's engine sees (its own key space only); ``AppStore`` is what the HTTP routes see:
``completed`` merges every service's tasks (each carrying its ``service``) and ``load``
shows the app record with each service's state under ``services`` (sensitive slots masked).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from engine.compiler.compiled import scrubbed, secrets_of
from engine.store.base import JSON, SessionRecord, SessionStore

APP = "@"

__all__ = ["APP", "AppStore", "ServiceStore", "key"]


class Elsewhere(Protocol):
    async def completed(self, session_id: str, owner: str | None) -> list[JSON]: ...


def key(space: str, session_id: str) -> str:
    """The stored key of ``session_id`` in ``space`` (a service name, or ``APP``)."""
    return f"{space}/{session_id}"


class ServiceStore:
    """``store`` seen by one service: its own sessions, its own pending actions."""

    def __init__(self, store: SessionStore, space: str) -> None:
        self.raw = store
        self.space = space

    def lock(self, session_id: str) -> Any:
        return self.raw.lock(key(self.space, session_id))

    async def load(self, session_id: str) -> SessionRecord | None:
        return await self.raw.load(key(self.space, session_id))

    async def commit(self, session_id: str, data: JSON, *, expected_version: int,
                     completed: Sequence[Mapping[str, Any]] = (), final: bool = True) -> int:
        return await self.raw.commit(key(self.space, session_id), data,
                                     expected_version=expected_version, completed=completed,
                                     final=final)

    async def completed(self, session_id: str) -> list[JSON]:
        return await self.raw.completed(key(self.space, session_id))

    async def delete(self, session_id: str) -> bool:
        return await self.raw.delete(key(self.space, session_id))

    async def expire(self, older_than: float) -> int:
        return 0  # the app's own store expires every key space at once

    async def pending_sessions(self) -> list[str]:
        prefix = key(self.space, "")
        return [s.removeprefix(prefix) for s in await self.raw.pending_sessions()
                if s.startswith(prefix)]

    async def close(self) -> None:
        """The app owns the store; a service never closes it."""


class AppStore(ServiceStore):
    """The store as the app's HTTP routes see it: the app record and merged completed tasks."""

    def __init__(self, store: SessionStore, services: Mapping[str, frozenset[str]]) -> None:
        """``services``: each local service's name and its sensitive slots."""
        super().__init__(store, APP)
        self.services = tuple(services)
        self.sensitive = dict(services)
        self.elsewhere: dict[str, Elsewhere] = {}
        """Services that keep their completed tasks on another server, by name."""

    async def load(self, session_id: str) -> SessionRecord | None:
        record = await self.raw.load(key(APP, session_id))
        if record is None:
            return None
        states = {}
        for name in self.services:
            found = await self.raw.load(key(name, session_id))
            if found is not None:  # sensitive slots masked wherever they appear
                secrets = secrets_of(found.data.get("slots") or {}, self.sensitive[name])
                states[name] = scrubbed({k: v for k, v in found.data.items() if k != "owner"},
                                        secrets)
        return SessionRecord(session_id, record.version, {**record.data, "services": states})

    async def completed(self, session_id: str) -> list[JSON]:
        """Every service's completed tasks (a remote one's asked for), each with its
        ``service``, oldest first."""
        tasks = [{**task, "service": name} for name in self.services
                 for task in await self.raw.completed(key(name, session_id))]
        record = await self.raw.load(key(APP, session_id))
        owner = record.data.get("owner") if record else None
        for name, service in self.elsewhere.items():
            tasks += [{**task, "service": name}
                      for task in await service.completed(session_id, owner)]
        return sorted(tasks, key=lambda t: str(t.get("at", "")))

    async def delete(self, session_id: str) -> bool:
        gone = [await self.raw.delete(key(space, session_id))
                for space in (APP, *self.services)]
        return any(gone)

    async def expire(self, older_than: float) -> int:
        return await self.raw.expire(older_than)

    async def pending_sessions(self) -> list[str]:
        return []  # each local service finishes its own

    async def close(self) -> None:
        await self.raw.close()
