"""SQLite SessionStore (the default): one file, WAL mode, survives restarts.

Calls are synchronous on purpose: a local WAL write takes tens of microseconds, less than
handing the work to a thread would. The version column makes concurrent writers from
several processes safe: a stale commit raises VersionConflict instead of overwriting.

``lock(session_id)`` serialises turns of one session across every process sharing the
file, not only inside this one. An asyncio lock queues the turns of this process in
arrival order; the head of that queue then takes the session's *lease*: a row of the small
``leases`` table, set by one atomic upsert that succeeds only when the lease is free,
expired or already ours. A waiter polls with a short, growing async sleep. A held lease is
renewed by a timer, so a long turn keeps it, and it expires ``lease_seconds`` after its
process died, so a crash cannot hold a session forever.

The lease has its own table so that taking it writes a few bytes, not the session's whole
row (history and completed tasks make that row several pages long). ``commit`` writes the
new version and ends the lease in one transaction; a turn that does not commit (it failed)
ends the lease when the lock is left.
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
CREATE TABLE IF NOT EXISTS leases (
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, until REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS completed (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, data TEXT NOT NULL,
  created_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS completed_by_session ON completed (session_id, seq);
"""

# Take the lease when it is free, expired or ours.
_TAKE = """
INSERT INTO leases (id, owner, until) VALUES (:id, :me, :until)
ON CONFLICT (id) DO UPDATE SET owner = :me, until = :until
WHERE leases.owner = :me OR leases.until <= :now
"""
_END = "DELETE FROM leases WHERE id = ? AND owner = ?"
_CREATE = "INSERT OR IGNORE INTO sessions (id, version, data, updated_at) VALUES (?, 1, ?, ?)"
_UPDATE = ("UPDATE sessions SET version = version + 1, data = ?, updated_at = ? "
           "WHERE id = ? AND version = ?")

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
        self._held: set[str] = set()
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)
            self._migrate()
        except (OSError, sqlite3.Error) as err:
            raise FlowRuntimeError(f"cannot open session store {self.path}: {err}") from None
        self._local = SessionLocks()

    def _migrate(self) -> None:
        """Prove the file is writable, and drop leases a previous run of ours left behind.

        ``CREATE TABLE IF NOT EXISTS`` writes nothing on an existing file, so without the
        probe a read-only file or a full disk would only show at the first commit.
        """
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
        cur = self._db.execute(_TAKE, {"id": session_id, "me": self.owner, "now": now,
                                       "until": now + self.lease_seconds})
        if cur.rowcount == 1:
            self._held.add(session_id)
            return True
        return False

    def renew(self, session_id: str) -> None:
        self._db.execute("UPDATE leases SET until = ? WHERE id = ? AND owner = ?",
                         (time.time() + self.lease_seconds, session_id, self.owner))

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

    def _release(self, session_id: str) -> None:
        if session_id in self._held:  # not already ended by commit
            self._held.discard(session_id)
            self._db.execute(_END, (session_id, self.owner))

    # -- records ----------------------------------------------------------------------------

    async def load(self, session_id: str) -> SessionRecord | None:
        row = self._db.execute("SELECT version, data FROM sessions WHERE id = ?",
                               (session_id,)).fetchone()
        return SessionRecord(session_id, row[0], json.loads(row[1])) if row else None

    async def commit(self, session_id: str, data: JSON, *, expected_version: int,
                     completed: Sequence[Mapping[str, Any]] = ()) -> int:
        """Write the new version, store completed tasks and end our lease, in one transaction."""
        now = time.time()
        text = json.dumps(data, ensure_ascii=False)
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if expected_version == 0:
                cur = db.execute(_CREATE, (session_id, text, now))
            else:
                cur = db.execute(_UPDATE, (text, now, session_id, expected_version))
            if cur.rowcount != 1:
                raise VersionConflict(f"session {session_id!r} changed since it was loaded")
            if completed:
                db.executemany("INSERT INTO completed (session_id, data, created_at) "
                               "VALUES (?, ?, ?)", [(session_id, json.dumps(c, ensure_ascii=False),
                                                     now) for c in completed])
            if session_id in self._held:
                db.execute(_END, (session_id, self.owner))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._held.discard(session_id)
        return expected_version + 1

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
