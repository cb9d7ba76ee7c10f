"""SQLite SessionStore (the default): one file, WAL mode, survives restarts.

Calls are synchronous on purpose: a local WAL commit takes tens of microseconds, less than
handing the work to a thread would. The version column makes concurrent writers from
several processes safe: a stale commit raises VersionConflict instead of overwriting.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping, Sequence
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
"""


class SqliteStore:
    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as err:
            raise FlowRuntimeError(f"cannot open session store {self.path}: {err}") from None
        self.lock = SessionLocks()

    async def load(self, session_id: str) -> SessionRecord | None:
        row = self._db.execute("SELECT version, data FROM sessions WHERE id = ?",
                               (session_id,)).fetchone()
        return SessionRecord(session_id, row[0], json.loads(row[1])) if row else None

    async def commit(self, session_id: str, data: JSON, *, expected_version: int,
                     completed: Sequence[Mapping[str, Any]] = ()) -> int:
        now = time.time()
        text = json.dumps(data, ensure_ascii=False)
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if expected_version == 0:
                cur = db.execute("INSERT OR IGNORE INTO sessions VALUES (?, 1, ?, ?)",
                                 (session_id, text, now))
            else:
                cur = db.execute("UPDATE sessions SET version = version + 1, data = ?, "
                                 "updated_at = ? WHERE id = ? AND version = ?",
                                 (text, now, session_id, expected_version))
            if cur.rowcount != 1:
                raise VersionConflict(f"session {session_id!r} changed since it was loaded")
            if completed:
                db.executemany("INSERT INTO completed (session_id, data, created_at) "
                               "VALUES (?, ?, ?)",
                               [(session_id, json.dumps(c, ensure_ascii=False), now)
                                for c in completed])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return expected_version + 1

    async def completed(self, session_id: str) -> list[JSON]:
        rows = self._db.execute("SELECT data FROM completed WHERE session_id = ? ORDER BY seq",
                                (session_id,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    async def close(self) -> None:
        self._db.close()
