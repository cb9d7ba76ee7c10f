"""The session store protocol: versioned JSON session records plus completed tasks.

The runtime holds ``lock(session_id)`` for a whole turn, ``load``s the record, and at the
end ``commit``s the new data with the version it loaded: session and completed tasks are
written in one transaction, or not at all. A commit the turn goes on after (an action
journal entry written before its call) passes ``final=False``: a store that frees the
session at commit (SQLite) then keeps it locked until the lock is left. A store imports
nothing from the runtime, so a Redis store (a lock per session, WATCH/MULTI for the
version check) plugs in unchanged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.errors import FlowRuntimeError

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SessionRecord:
    session_id: str
    version: int
    data: JSON


class VersionConflict(FlowRuntimeError):
    """Another writer committed this session since it was loaded; the turn was not saved."""


class LeaseLost(VersionConflict):
    """Another process took the session over while this turn held its lock (the turn
    stalled past its lease); the turn was not saved."""


class SessionStore(Protocol):
    def lock(self, session_id: str) -> Any:
        """An async context manager serialising turns of one session, in arrival order.

        A store that several processes share (SQLite file, Redis) must serialise them too.
        """
        ...

    async def load(self, session_id: str) -> SessionRecord | None:
        """The stored record, decoded afresh: the caller may mutate its data."""
        ...

    async def commit(self, session_id: str, data: JSON, *, expected_version: int,
                     completed: Sequence[Mapping[str, Any]] = (), final: bool = True) -> int:
        """Write ``data`` if the stored version is ``expected_version``; return the new one.

        ``final=False``: the turn holding ``lock(session_id)`` goes on after this commit.
        """
        ...

    async def completed(self, session_id: str) -> list[JSON]: ...

    async def delete(self, session_id: str) -> bool:
        """Forget the session and its completed tasks; False when there was none."""
        ...

    async def expire(self, older_than: float) -> int:
        """Delete sessions not written for ``older_than`` seconds (with their completed
        tasks) and completed tasks recorded that long ago; return how many sessions went."""
        ...

    async def pending_sessions(self) -> list[str]:
        """Sessions with a ``pending`` entry in an action journal (``has_pending``: a process
        died around an irreversible call, or its target gave no settling answer)."""
        ...

    async def close(self) -> None: ...


def journals(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A stored session's action journals: the current task's, then those of the tasks
    waiting under it (a flow begun while an outcome was unknown sits on top of one)."""
    frames = data.get("stack") or []
    found = [data.get("journal") or {}]
    found += [f.get("journal") or {} for f in frames if isinstance(f, Mapping)]
    return [j for j in found if isinstance(j, Mapping)]


def has_pending(data: Mapping[str, Any]) -> bool:
    """Whether an action journal of the session holds a ``pending`` entry."""
    return any(isinstance(entry, Mapping) and entry.get("status") == "pending"
               for journal in journals(data) for entry in journal.values())


class SessionLocks:
    """One asyncio.Lock per session, dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    def __call__(self, session_id: str) -> _Held:
        """``async with locks(session_id):`` holds the session's lock."""
        return _Held(self._locks, session_id)

    def __len__(self) -> int:
        return len(self._locks)


class _Held:
    """One ``async with`` of a session's lock (a class, not a generator: it is on every
    turn's path)."""

    __slots__ = ("_locks", "_session_id", "_lock")

    def __init__(self, locks: dict[str, tuple[asyncio.Lock, int]], session_id: str) -> None:
        self._locks, self._session_id = locks, session_id

    async def __aenter__(self) -> None:
        lock, users = self._locks.get(self._session_id) or (asyncio.Lock(), 0)
        self._locks[self._session_id] = (lock, users + 1)
        try:
            await lock.acquire()
        except BaseException:  # cancelled while waiting: no longer a user
            self._leave()
            raise
        self._lock = lock

    async def __aexit__(self, *exc: object) -> None:
        self._lock.release()
        self._leave()

    def _leave(self) -> None:
        lock, users = self._locks[self._session_id]
        if users <= 1:
            del self._locks[self._session_id]
        else:
            self._locks[self._session_id] = (lock, users - 1)
