"""In-memory SessionStore for tests and `flowctl test`: same semantics as SQLite, no file."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from engine.store.base import JSON, SessionLocks, SessionRecord, VersionConflict, has_pending
from engine.store.codec import dumps, loads


class MemoryStore:
    """Sessions in a dict of JSON strings; ``lock`` serialises turns inside this process.

    >>> import asyncio
    >>> store = MemoryStore()
    >>> asyncio.run(store.commit("user-1", {"stage": "READY"}, expected_version=0))
    1
    """

    def __init__(self) -> None:
        self._sessions: dict[str, tuple[int, str]] = {}
        self._completed: dict[str, list[str]] = {}
        self._written: dict[str, float] = {}
        self.lock = SessionLocks()

    async def load(self, session_id: str) -> SessionRecord | None:
        hit = self._sessions.get(session_id)
        return SessionRecord(session_id, hit[0], loads(hit[1])) if hit else None

    async def commit(self, session_id: str, data: JSON, *, expected_version: int,
                     completed: Sequence[Mapping[str, Any]] = (), final: bool = True) -> int:
        current = self._sessions.get(session_id, (0, ""))[0]
        if current != expected_version:
            raise VersionConflict(f"session {session_id!r} changed since it was loaded")
        # serialise now, as SQLite would: later mutation of `data` must not leak in
        self._sessions[session_id] = (current + 1, dumps(data))
        self._written[session_id] = time.time()
        self._completed.setdefault(session_id, []).extend(
            dumps(c) for c in completed)
        return current + 1

    async def completed(self, session_id: str) -> list[JSON]:
        return [loads(c) for c in self._completed.get(session_id, [])]

    async def delete(self, session_id: str) -> bool:
        self._completed.pop(session_id, None)
        self._written.pop(session_id, None)
        return self._sessions.pop(session_id, None) is not None

    async def expire(self, older_than: float) -> int:
        cutoff = time.time() - older_than
        old = [s for s, at in self._written.items() if at < cutoff]
        for session_id in old:
            await self.delete(session_id)
        return len(old)

    async def pending_sessions(self) -> list[str]:
        return [s for s, (_, text) in self._sessions.items() if has_pending(loads(text))]

    async def close(self) -> None:
        return None
