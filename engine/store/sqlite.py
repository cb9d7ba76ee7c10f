"""SQLite SessionStore (the default): one file, WAL mode, survives restarts.

Calls are synchronous on purpose: a local WAL commit takes tens of microseconds, less than
handing the work to a thread would. The version column makes concurrent writers from
several processes safe: a stale commit raises VersionConflict instead of overwriting.

``lock(session_id)`` serialises turns of one session across every process sharing the
file, not only inside this one: an asyncio lock queues the turns of this process in
arrival order, and the head of that queue then takes a *lease* row in the ``leases``
table. The lease is taken by one atomic upsert (a single write transaction, like
``BEGIN IMMEDIATE``) that succeeds only when the row is absent, expired or already ours;
a waiter polls with a short, growing async sleep. A held lease is renewed in the
background, so a long turn keeps it, and it expires ``lease_seconds`` after its process
died, so a crash cannot hold a session forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.errors import FlowRuntimeError
from engine.store.base import JSON, SessionLocks, SessionRecord, VersionConflict

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY, version INTEGER NOT NULL, data TEXT NOT NULL, updated_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS completed (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, data TEXT NOT NULL,
  created_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS completed_by_session ON completed (session_id, seq);
CREATE TABLE IF NOT EXISTS leases (
  session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at REAL NOT NULL);
"""

# Insert the lease, or take it over when it is ours or has expired; rowcount says which.
_TAKE_LEASE = """
INSERT INTO leases (session_id, owner, expires_at) VALUES (?, ?, ?)
ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
WHERE leases.owner = excluded.owner OR leases.expires_at <= ?
"""

_FIRST_POLL = 0.001
_MAX_POLL = 0.025


class SqliteStore:
    """Sessions in one SQLite file; ``lock`` is shared by every process using the file.

    >>> import asyncio
    >>> store = SqliteStore(":memory:")
    >>> asyncio.run(store.commit("user-1", {"stage": "READY"}, expected_version=0))
    1
    >>> asyncio.run(store.load("user-1")).data
    {'stage': 'READY'}
    """

    def __init__(self, path: str | Path, *, lease_seconds: float = 15.0,
                 lock_timeout: float = 60.0) -> None:
        self.path = str(path)
        self.lease_seconds = lease_seconds
        self.lock_timeout = lock_timeout
        self.owner = uuid.uuid4().hex
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)
            self._probe_writable()
        except (OSError, sqlite3.Error) as err:
            raise FlowRuntimeError(f"cannot open session store {self.path}: {err}") from None
        self._local = SessionLocks()

    def _probe_writable(self) -> None:
        # CREATE TABLE IF NOT EXISTS writes nothing on an existing file: make sure a write
        # works now rather than at the first commit (read-only file, full disk, ...).
        self._db.execute("DELETE FROM leases WHERE owner = ?", (self.owner,))

    # -- the per-session lock ---------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lock(self, session_id: str) -> AsyncIterator[None]:
        """Hold the session against turns of this and every other process on the file."""
        async with self._local(session_id):
            await self._acquire(session_id)
            renewal = _Renewal(self, session_id)
            try:
                yield
            finally:
                renewal.cancel()
                self._release(session_id)

    def try_lease(self, session_id: str) -> bool:
        """Take (or renew) the lease on ``session_id`` if nobody else holds it."""
        now = time.time()
        cur = self._db.execute(_TAKE_LEASE, (session_id, self.owner,
                                             now + self.lease_seconds, now))
        return cur.rowcount == 1

    async def _acquire(self, session_id: str) -> None:
        deadline = time.monotonic() + self.lock_timeout
        pause = _FIRST_POLL
        while not self.try_lease(session_id):
            if time.monotonic() >= deadline:
                raise FlowRuntimeError(
                    f"session {session_id!r} stayed locked by another process for "
                    f"{self.lock_timeout:g}s; try again later")
            await asyncio.sleep(pause)
            pause = min(pause * 2, _MAX_POLL)

    def renew(self, session_id: str) -> None:
        self._db.execute("UPDATE leases SET expires_at = ? WHERE session_id = ? AND owner = ?",
                         (time.time() + self.lease_seconds, session_id, self.owner))

    def _release(self, session_id: str) -> None:
        self._db.execute("DELETE FROM leases WHERE session_id = ? AND owner = ?",
                         (session_id, self.owner))

    # -- records ----------------------------------------------------------------------------

    async def load(self, session_id: str) -> SessionRecord | None:
        row = self._db.execute("SELECT version, data FROM sessions WHERE id = ?",
                               (session_id,)).fetchone()
        return SessionRecord(session_id, row[0], json.loads(row[1])) if row else None

    async def commit(self, session_id: str, data: JSON, *, expected_version: int,
                     completed: Sequence[Mapping[str, Any]] = ()) -> int:
        now = time.time()
        text = json.dumps(data, ensure_ascii=False)
        if not completed:  # one statement is one transaction: no BEGIN/COMMIT round trips
            self._write_session(session_id, text, now, expected_version)
            return expected_version + 1
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            self._write_session(session_id, text, now, expected_version)
            db.executemany("INSERT INTO completed (session_id, data, created_at) VALUES (?, ?, ?)",
                           [(session_id, json.dumps(c, ensure_ascii=False), now)
                            for c in completed])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return expected_version + 1

    def _write_session(self, session_id: str, text: str, now: float, expected_version: int) -> None:
        if expected_version == 0:
            cur = self._db.execute("INSERT OR IGNORE INTO sessions VALUES (?, 1, ?, ?)",
                                   (session_id, text, now))
        else:
            cur = self._db.execute("UPDATE sessions SET version = version + 1, data = ?, "
                                   "updated_at = ? WHERE id = ? AND version = ?",
                                   (text, now, session_id, expected_version))
        if cur.rowcount != 1:
            raise VersionConflict(f"session {session_id!r} changed since it was loaded")

    async def completed(self, session_id: str) -> list[JSON]:
        rows = self._db.execute("SELECT data FROM completed WHERE session_id = ? ORDER BY seq",
                                (session_id,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    async def close(self) -> None:
        self._db.close()


class _Renewal:
    """Extends a held lease every third of its lifetime (a timer, not a task: turns are short)."""

    def __init__(self, store: SqliteStore, session_id: str) -> None:
        self.store, self.session_id = store, session_id
        self.loop = asyncio.get_running_loop()
        self.handle = self.loop.call_later(store.lease_seconds / 3, self._fire)

    def _fire(self) -> None:
        self.store.renew(self.session_id)
        self.handle = self.loop.call_later(self.store.lease_seconds / 3, self._fire)

    def cancel(self) -> None:
        self.handle.cancel()
