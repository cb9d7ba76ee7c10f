"""SQLite SessionStore (the default): one file, WAL mode, survives restarts.

Calls are synchronous on purpose: a local WAL write takes tens of microseconds, less than
handing the work to a thread would. The version column makes concurrent writers from
several processes safe: a stale commit raises VersionConflict instead of overwriting.

``lock(session_id)`` serialises turns of one session across every process sharing the
file, not only inside this one. An asyncio lock queues the turns of this process in
arrival order; the head of that queue then takes the session's *lease*: two columns of its
row (``lease_owner``, ``lease_until``), set by one atomic upsert (a single write
transaction, like ``BEGIN IMMEDIATE``) that succeeds only when the lease is free, expired
or already ours. A waiter polls with a short, growing async sleep. A held lease is renewed
by a timer, so a long turn keeps it, and it expires ``lease_seconds`` after its process
died, so a crash cannot hold a session forever.

The lease lives in the session row so that a turn costs two writes, not three: taking the
lease, then ``commit``, which writes the new version *and* ends the lease in one
statement. A turn that does not commit (it failed) ends the lease when the lock is left.
A row at version 0 is only a lease on a session that has not been committed yet;
``load`` does not see it.
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
  id TEXT PRIMARY KEY, version INTEGER NOT NULL, data TEXT NOT NULL, updated_at REAL NOT NULL,
  lease_owner TEXT, lease_until REAL NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS completed (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, data TEXT NOT NULL,
  created_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS completed_by_session ON completed (session_id, seq);
"""
_LEASE_COLUMNS = ("ALTER TABLE sessions ADD COLUMN lease_owner TEXT",
                  "ALTER TABLE sessions ADD COLUMN lease_until REAL NOT NULL DEFAULT 0")

# Take the lease when it is free, expired or ours (a new session gets a version-0 row).
_TAKE = """
INSERT INTO sessions (id, version, data, updated_at, lease_owner, lease_until)
VALUES (:id, 0, '{}', :now, :me, :until)
ON CONFLICT (id) DO UPDATE SET lease_owner = :me, lease_until = :until
WHERE sessions.lease_owner IS :me OR sessions.lease_until <= :now
"""
# Commit ends our lease in the same statement (and leaves anybody else's alone).
_END_OURS = ("lease_owner = CASE WHEN lease_owner IS :me THEN NULL ELSE lease_owner END, "
             "lease_until = CASE WHEN lease_owner IS :me THEN 0 ELSE lease_until END")
_CREATE = f"""
INSERT INTO sessions (id, version, data, updated_at) VALUES (:id, 1, :data, :now)
ON CONFLICT (id) DO UPDATE SET version = 1, data = :data, updated_at = :now, {_END_OURS}
WHERE sessions.version = 0
"""
_UPDATE = f"""
UPDATE sessions SET version = version + 1, data = :data, updated_at = :now, {_END_OURS}
WHERE id = :id AND version = :expected
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
        """Add the lease columns to a file from before them; prove the file is writable.

        ``CREATE TABLE IF NOT EXISTS`` writes nothing on an existing file, so without the
        probe a read-only file or a full disk would only show at the first commit.
        """
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(sessions)")}
        for statement in _LEASE_COLUMNS if "lease_owner" not in columns else ():
            self._db.execute(statement)
        self._db.execute("UPDATE sessions SET lease_owner = NULL WHERE lease_owner = ?",
                         (self.owner,))

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
        self._db.execute("UPDATE sessions SET lease_until = ? WHERE id = ? AND lease_owner = ?",
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
            self._db.execute("UPDATE sessions SET lease_owner = NULL, lease_until = 0 "
                             "WHERE id = ? AND lease_owner = ?", (session_id, self.owner))

    # -- records ----------------------------------------------------------------------------

    async def load(self, session_id: str) -> SessionRecord | None:
        row = self._db.execute("SELECT version, data FROM sessions WHERE id = ? AND version > 0",
                               (session_id,)).fetchone()
        return SessionRecord(session_id, row[0], json.loads(row[1])) if row else None

    async def commit(self, session_id: str, data: JSON, *, expected_version: int,
                     completed: Sequence[Mapping[str, Any]] = ()) -> int:
        """Write the new version and end our lease on the session, in one transaction."""
        now = time.time()
        values = {"id": session_id, "data": json.dumps(data, ensure_ascii=False), "now": now,
                  "me": self.owner, "expected": expected_version}
        statement = _CREATE if expected_version == 0 else _UPDATE
        if not completed:  # one statement is one transaction: no BEGIN/COMMIT round trips
            self._write(session_id, statement, values)
            return expected_version + 1
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            self._write(session_id, statement, values)
            db.executemany("INSERT INTO completed (session_id, data, created_at) VALUES (?, ?, ?)",
                           [(session_id, json.dumps(c, ensure_ascii=False), now)
                            for c in completed])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return expected_version + 1

    def _write(self, session_id: str, statement: str, values: dict[str, Any]) -> None:
        if self._db.execute(statement, values).rowcount != 1:
            raise VersionConflict(f"session {session_id!r} changed since it was loaded")
        self._held.discard(session_id)

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
