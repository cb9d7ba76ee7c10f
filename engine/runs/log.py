"""Runs and their event logs, kept in the session store's database: the record types, the
``RunLog`` protocol and its in-memory and SQLite forms (PostgreSQL: ``pg.py``).

A run is a row (id, session, owner, status, summary, who runs it, a heartbeat) plus an
append-only list of events numbered from 1 per run, so a reader can replay from the start or
from any event it already has. Status moves pending -> running -> success | failed |
cancelled | interrupted, each move conditional on the status it leaves (``finish``), so a
run ends exactly once however many processes race to end it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

Status = Literal["pending", "running", "success", "failed", "cancelled", "interrupted"]
ACTIVE: tuple[Status, ...] = ("pending", "running")
FINAL: tuple[Status, ...] = ("success", "failed", "cancelled", "interrupted")


@dataclass(frozen=True, slots=True)
class Runner:
    """Who runs a run: a process, and where a pid names it (``engine.store.sqlite``)."""

    instance: str
    machine: str
    pid: int
    started: str | None


@dataclass(frozen=True, slots=True)
class RunRecord:
    id: str
    session_id: str
    owner: str | None
    flow: str
    stage: str
    status: Status
    created_at: float
    runner: Runner
    heartbeat: float
    ended_at: float | None = None
    summary: str | None = None
    cancel_requested: bool = False

    def public(self) -> dict[str, Any]:
        """What the API shows of the run (not who runs it; its session id as the client sent
        it, without the owner the store key carries)."""
        shown = self.session_id.removeprefix(f"{self.owner}:") if self.owner else self.session_id
        return {"id": self.id, "session_id": shown, "flow": self.flow,
                "stage": self.stage, "status": self.status, "created_at": self.created_at,
                "ended_at": self.ended_at, "summary": self.summary,
                "cancel_requested": self.cancel_requested}


@dataclass(frozen=True, slots=True)
class RunEvent:
    seq: int
    name: str
    data: Any
    at: float


class RunLog(Protocol):
    async def create(self, run: RunRecord) -> None: ...

    async def get(self, run_id: str) -> RunRecord | None: ...

    async def recent(self, session_id: str, limit: int) -> list[RunRecord]:
        """The session's runs, newest first."""
        ...

    async def active(self, session_id: str) -> RunRecord | None:
        """The session's pending or running run, if any."""
        ...

    async def unfinished(self) -> list[RunRecord]:
        """Every pending or running run (to find the ones whose runner died)."""
        ...

    async def move(self, run_id: str, status: Status, *, source: Sequence[Status],
                   summary: str | None = None, event: tuple[str, Any] | None = None) -> bool:
        """Set ``status`` if the run's status is one of ``source``, and append ``event``
        (name, data) in the same transaction: a reader never sees the status without it.
        True when it moved."""
        ...

    async def append(self, run_id: str, name: str, data: Any) -> int:
        """Add an event (numbered after the last) and beat the heartbeat; its number."""
        ...

    async def events(self, run_id: str, after: int = 0) -> list[RunEvent]: ...

    async def request_cancel(self, run_id: str) -> None: ...

    async def beat(self, run_ids: Sequence[str]) -> set[str]:
        """Beat the heartbeat of ``run_ids``; those whose cancel was requested."""
        ...

    async def expire(self, older_than: float) -> int:
        """Delete the runs that ended ``older_than`` seconds ago, with their events."""
        ...

    async def close(self) -> None: ...


# -- in memory ------------------------------------------------------------------------------

@dataclass
class MemoryRunLog:
    """Runs in dicts (``memory://`` stores and tests)."""

    runs: dict[str, RunRecord] = field(default_factory=dict)
    logs: dict[str, list[RunEvent]] = field(default_factory=dict)

    async def create(self, run: RunRecord) -> None:
        self.runs[run.id] = run
        self.logs[run.id] = []

    async def get(self, run_id: str) -> RunRecord | None:
        return self.runs.get(run_id)

    async def recent(self, session_id: str, limit: int) -> list[RunRecord]:
        mine = [r for r in self.runs.values() if r.session_id == session_id]
        return sorted(mine, key=lambda r: r.created_at, reverse=True)[:limit]

    async def active(self, session_id: str) -> RunRecord | None:
        return next((r for r in await self.recent(session_id, 1_000_000)
                     if r.status in ACTIVE), None)

    async def unfinished(self) -> list[RunRecord]:
        return [r for r in self.runs.values() if r.status in ACTIVE]

    async def move(self, run_id: str, status: Status, *, source: Sequence[Status],
                   summary: str | None = None, event: tuple[str, Any] | None = None) -> bool:
        run = self.runs.get(run_id)
        if run is None or run.status not in source:
            return False
        ended = time.time() if status in FINAL else None
        self.runs[run_id] = replace(run, status=status, ended_at=ended,
                                    summary=summary if summary is not None else run.summary)
        if event is not None:
            await self.append(run_id, *event)
        return True

    async def append(self, run_id: str, name: str, data: Any) -> int:
        log = self.logs.setdefault(run_id, [])
        log.append(RunEvent(len(log) + 1, name, json.loads(json.dumps(data)), time.time()))
        await self.beat([run_id])
        return len(log)

    async def events(self, run_id: str, after: int = 0) -> list[RunEvent]:
        return list(self.logs.get(run_id, [])[after:])

    async def request_cancel(self, run_id: str) -> None:
        if run_id in self.runs:
            self.runs[run_id] = replace(self.runs[run_id], cancel_requested=True)

    async def beat(self, run_ids: Sequence[str]) -> set[str]:
        now = time.time()
        for run_id in run_ids:
            if run_id in self.runs:
                self.runs[run_id] = replace(self.runs[run_id], heartbeat=now)
        return {r for r in run_ids if r in self.runs and self.runs[r].cancel_requested}

    async def expire(self, older_than: float) -> int:
        cutoff = time.time() - older_than
        old = [r.id for r in self.runs.values() if r.ended_at is not None
               and r.ended_at < cutoff]
        for run_id in old:
            del self.runs[run_id]
            self.logs.pop(run_id, None)
        return len(old)

    async def close(self) -> None:
        return None


# -- SQLite ---------------------------------------------------------------------------------

SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL, owner TEXT, flow TEXT NOT NULL,
  stage TEXT NOT NULL, status TEXT NOT NULL, created_at REAL NOT NULL, ended_at REAL,
  summary TEXT, cancel_requested INTEGER NOT NULL DEFAULT 0, instance TEXT NOT NULL,
  machine TEXT NOT NULL, pid INTEGER NOT NULL, started TEXT, heartbeat REAL NOT NULL);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs (session_id, created_at);
CREATE INDEX IF NOT EXISTS runs_active ON runs (status) WHERE status IN ('pending', 'running');
CREATE TABLE IF NOT EXISTS run_events (
  run_id TEXT NOT NULL, seq INTEGER NOT NULL, name TEXT NOT NULL, data TEXT NOT NULL,
  at REAL NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
"""
COLUMNS = ("id, session_id, owner, flow, stage, status, created_at, ended_at, summary, "
           "cancel_requested, instance, machine, pid, started, heartbeat")


def record(row: Sequence[Any]) -> RunRecord:
    """A ``runs`` row (``COLUMNS``, in order) as a RunRecord."""
    (id_, session_id, owner, flow, stage, status, created, ended, summary, cancel,
     instance, machine, pid, started, heartbeat) = row
    return RunRecord(id_, session_id, owner, flow, stage, status, float(created),
                     Runner(instance, machine, int(pid), started), float(heartbeat),
                     float(ended) if ended is not None else None, summary, bool(cancel))


def row_of(run: RunRecord) -> tuple[Any, ...]:
    r = run.runner
    return (run.id, run.session_id, run.owner, run.flow, run.stage, run.status,
            run.created_at, run.ended_at, run.summary, run.cancel_requested, r.instance,
            r.machine, r.pid, r.started, run.heartbeat)


class SqliteRunLog:
    """Runs in the session store's SQLite file (a connection of its own)."""

    def __init__(self, path: str) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(SQLITE_SCHEMA)

    def _rows(self, sql: str, args: Iterable[Any] = ()) -> list[RunRecord]:
        return [record(r) for r in self._db.execute(f"SELECT {COLUMNS} FROM runs {sql}",
                                                    tuple(args)).fetchall()]

    async def create(self, run: RunRecord) -> None:
        self._db.execute(f"INSERT INTO runs ({COLUMNS}) VALUES ({', '.join('?' * 15)})",
                         row_of(run))

    async def get(self, run_id: str) -> RunRecord | None:
        found = self._rows("WHERE id = ?", (run_id,))
        return found[0] if found else None

    async def recent(self, session_id: str, limit: int) -> list[RunRecord]:
        return self._rows("WHERE session_id = ? ORDER BY created_at DESC LIMIT ?",
                          (session_id, limit))

    async def active(self, session_id: str) -> RunRecord | None:
        found = self._rows("WHERE session_id = ? AND status IN ('pending', 'running') "
                           "ORDER BY created_at DESC LIMIT 1", (session_id,))
        return found[0] if found else None

    async def unfinished(self) -> list[RunRecord]:
        return self._rows("WHERE status IN ('pending', 'running')")

    async def move(self, run_id: str, status: Status, *, source: Sequence[Status],
                   summary: str | None = None, event: tuple[str, Any] | None = None) -> bool:
        ended = time.time() if status in FINAL else None
        marks = ", ".join("?" * len(source))
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            moved = db.execute(
                f"UPDATE runs SET status = ?, ended_at = ?, summary = COALESCE(?, summary) "
                f"WHERE id = ? AND status IN ({marks})",
                (status, ended, summary, run_id, *source)).rowcount == 1
            if moved and event is not None:
                self._insert(run_id, *event)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return moved

    async def append(self, run_id: str, name: str, data: Any) -> int:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            seq = self._insert(run_id, name, data)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return seq

    def _insert(self, run_id: str, name: str, data: Any) -> int:
        """Inside a transaction: the next event of the run, and a heartbeat."""
        now, db = time.time(), self._db
        seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM run_events WHERE run_id = ?",
                         (run_id,)).fetchone()[0]
        db.execute("INSERT INTO run_events (run_id, seq, name, data, at) VALUES (?, ?, ?, ?, ?)",
                   (run_id, seq, name, json.dumps(data, ensure_ascii=False), now))
        db.execute("UPDATE runs SET heartbeat = ? WHERE id = ?", (now, run_id))
        return int(seq)

    async def events(self, run_id: str, after: int = 0) -> list[RunEvent]:
        rows = self._db.execute("SELECT seq, name, data, at FROM run_events "
                                "WHERE run_id = ? AND seq > ? ORDER BY seq",
                                (run_id, after)).fetchall()
        return [RunEvent(int(s), n, json.loads(d), float(a)) for s, n, d, a in rows]

    async def request_cancel(self, run_id: str) -> None:
        self._db.execute("UPDATE runs SET cancel_requested = 1 WHERE id = ?", (run_id,))

    async def beat(self, run_ids: Sequence[str]) -> set[str]:
        if not run_ids:
            return set()
        marks = ", ".join("?" * len(run_ids))
        self._db.execute(f"UPDATE runs SET heartbeat = ? WHERE id IN ({marks})",
                         (time.time(), *run_ids))
        rows = self._db.execute(f"SELECT id FROM runs WHERE cancel_requested = 1 "
                                f"AND id IN ({marks})", tuple(run_ids)).fetchall()
        return {r[0] for r in rows}

    async def expire(self, older_than: float) -> int:
        cutoff = time.time() - older_than
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM run_events WHERE run_id IN (SELECT id FROM runs "
                       "WHERE ended_at < ?)", (cutoff,))
            gone = db.execute("DELETE FROM runs WHERE ended_at < ?", (cutoff,)).rowcount
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return int(gone)

    async def close(self) -> None:
        self._db.close()


__all__ = ["ACTIVE", "FINAL", "MemoryRunLog", "RunEvent", "RunLog", "RunRecord", "Runner",
           "SqliteRunLog", "Status"]
