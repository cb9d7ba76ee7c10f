"""SQLite SessionStore (the default): one file, WAL mode, survives restarts.

Calls are synchronous on purpose: a local WAL write takes tens of microseconds, less than
handing the work to a thread would. The version column makes concurrent writers from
several processes safe: a stale commit raises VersionConflict instead of overwriting.

``lock(session_id)`` serialises turns of one session across every process sharing the
file, not only inside this one. An asyncio lock queues the turns of this process in
arrival order. When no other process is registered on the file and the session has no
lease row (one read), nobody can contend: the turn runs without a lease, and its commit is
its only write transaction. Otherwise the head of that queue takes the session's *lease*: a
row of the small ``leases`` table, set by one atomic upsert that succeeds only when the
lease is free, expired or already ours. A waiter polls with a short, growing async sleep. A
held lease is renewed by a timer, so a long turn keeps it; one not renewed for
``lease_seconds`` expires. A turn without a lease takes one in its first commit that is not
final (an irreversible action's journal entry, before the call): from then on a process
that opens the file meanwhile waits for it. A process that opens the file while a turn
without a lease is in flight and takes that session first makes that turn's commit fail
(``LeaseLost``, nothing written): the version check and the lease row both protect it.

Leases recover from crashes without waiting for that expiry. Every store registers its
owner token in the ``owners`` table with the identity of its process: the machine (this
boot of this kernel and this pid namespace, so that a pid means the same process), the pid
and the kernel's start time of that pid. Whoever finds a lease held by an owner of the same
machine whose process is provably gone (no such pid, a zombie, or a pid reused by a process
started at another time) drops that owner's leases and takes the lease at once; opening a
store does the same for every dead owner of the machine, so a restarted server finds its
crashed predecessor's sessions free. An owner that cannot be proven dead (another pid
namespace, an older flowctl that did not register) keeps its lease until it expires.

The lease has its own table so that taking it writes a few bytes, not the session's whole
row (history and completed tasks make that row several pages long). ``commit`` writes the
new version and ends the lease in one transaction (two write transactions a contended turn,
one otherwise), or with
``final=False`` renews it instead: the turn goes on, and the lease ends when the lock is
left, as it does for a turn that does not commit (it failed). Every commit inside ``lock``
refuses (``LeaseLost``) when the lease is no longer ours: a process that stalled past its
lease, whose session another process took over meanwhile, cannot write over that
process's turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sqlite3
import sys
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.errors import FlowRuntimeError
from engine.store.base import JSON, LeaseLost, SessionLocks, SessionRecord, VersionConflict
from engine.store.codec import dumps, loads

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY, version INTEGER NOT NULL, data TEXT NOT NULL, updated_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS leases (
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, until REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS owners (
  owner TEXT PRIMARY KEY, machine TEXT NOT NULL, pid INTEGER NOT NULL, started TEXT,
  host TEXT NOT NULL, opened_at REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS completed (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, data TEXT NOT NULL,
  created_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS completed_by_session ON completed (session_id, seq);
"""

# Sessions with a pending entry in the current task's action journal or in that of a task
# waiting under it (JSON1 is built into SQLite >= 3.38).
_PENDING = """
SELECT id FROM sessions WHERE EXISTS (
  SELECT 1 FROM json_each(sessions.data, '$.journal') AS entry
  WHERE json_extract(entry.value, '$.status') = 'pending')
OR EXISTS (
  SELECT 1 FROM json_each(sessions.data, '$.stack') AS frame,
                json_each(frame.value, '$.journal') AS entry
  WHERE json_extract(entry.value, '$.status') = 'pending')
"""

# Take the lease when it is free, expired or ours.
_TAKE = """
INSERT INTO leases (id, owner, until) VALUES (:id, :me, :until)
ON CONFLICT (id) DO UPDATE SET owner = :me, until = :until
WHERE leases.owner = :me OR leases.until <= :now
"""
# Whether another process may turn the session now, and the session as it stands: one read
# (taken as the turn's load when nobody else may write it).
_CONTENDED = """
SELECT EXISTS (SELECT 1 FROM owners WHERE owner != :me)
    OR EXISTS (SELECT 1 FROM leases WHERE id = :id), sessions.version, sessions.data
FROM (SELECT 1) LEFT JOIN sessions ON sessions.id = :id
"""
_END = "DELETE FROM leases WHERE id = ? AND owner = ?"
_RENEW = "UPDATE leases SET until = ? WHERE id = ? AND owner = ?"
_HOLDER = """
SELECT owners.owner, owners.pid, owners.started FROM leases
JOIN owners ON owners.owner = leases.owner
WHERE leases.id = ? AND owners.machine = ? AND owners.owner != ?
"""
_CREATE = "INSERT OR IGNORE INTO sessions (id, version, data, updated_at) VALUES (?, 1, ?, ?)"
_UPDATE = ("UPDATE sessions SET version = version + 1, data = ?, updated_at = ? "
           "WHERE id = ? AND version = ?")
# The same, written only while no process holds a lease on the session (the fence of a turn
# that took none): one statement where a read of the lease and the update were two.
_UPDATE_FREE = _UPDATE + " AND NOT EXISTS (SELECT 1 FROM leases WHERE id = ?)"
_FIRST_POLL = 0.001
_MAX_POLL = 0.025


class _Retention:
    """Deleting sessions, expiring old ones, finding the ones left pending: the store's
    maintenance, apart from its turns and leases."""

    _db: sqlite3.Connection
    _read: dict[str, tuple[int | None, str | None]]

    async def delete(self, session_id: str) -> bool:
        self._read.pop(session_id, None)
        return self._deleting(("DELETE FROM completed WHERE session_id = ?", (session_id,)),
                              ("DELETE FROM sessions WHERE id = ?", (session_id,))) == 1

    async def expire(self, older_than: float) -> int:
        cutoff = time.time() - older_than
        self._read.clear()
        return self._deleting(
            ("DELETE FROM completed WHERE created_at < ? OR session_id IN "
             "(SELECT id FROM sessions WHERE updated_at < ?)", (cutoff, cutoff)),
            ("DELETE FROM sessions WHERE updated_at < ?", (cutoff,)))

    def _deleting(self, *statements: tuple[str, tuple[Any, ...]]) -> int:
        """Run ``statements`` in one transaction; the last one's row count."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            count = 0
            for sql, args in statements:
                count = db.execute(sql, args).rowcount
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return count

    async def pending_sessions(self) -> list[str]:
        rows = self._db.execute(_PENDING).fetchall()
        return [r[0] for r in rows]


class SqliteStore(_Retention):
    """Sessions in one SQLite file; ``lock`` is shared by every process using the file.

    >>> import asyncio
    >>> store = SqliteStore(":memory:")
    >>> asyncio.run(store.commit("user-1", {"stage": "READY"}, expected_version=0))
    1
    >>> asyncio.run(store.load("user-1")).data
    {'stage': 'READY'}
    """

    def __init__(self, path: str | Path, *, lease_seconds: float = 5.0,
                 lock_timeout: float = 60.0) -> None:
        self.path = str(path)
        self.lease_seconds = lease_seconds
        self.lock_timeout = lock_timeout
        self.owner = uuid.uuid4().hex
        self.machine = _machine()
        self.pid = os.getpid()
        self._held: set[str] = set()  # sessions whose lease row is ours
        self._locked: set[str] = set()  # sessions inside our lock()
        self._renewals: dict[str, _Renewal] = {}  # held leases kept alive by a timer
        self._read: dict[str, tuple[int | None, str | None]] = {}  # rows lock() read for load
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)
            self._register()
        except (OSError, sqlite3.Error) as err:
            raise FlowRuntimeError(f"cannot open session store {self.path}: {err}") from None
        self._local = SessionLocks()

    def _register(self) -> None:
        """Record who we are, and drop what dead owners of this machine left behind.

        The insert also proves the file writable: ``CREATE TABLE IF NOT EXISTS`` writes
        nothing on an existing file, so a read-only file or a full disk would otherwise only
        show at the first commit.
        """
        self._db.execute("INSERT INTO owners (owner, machine, pid, started, host, opened_at) "
                         "VALUES (?, ?, ?, ?, ?, ?)", (self.owner, self.machine, self.pid,
                                                       _started(self.pid), socket.gethostname(),
                                                       time.time()))
        self.reclaim_dead()

    # -- the per-session lock ---------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lock(self, session_id: str) -> AsyncIterator[None]:
        """Hold the session against turns of this and every other process on the file."""
        if os.getpid() != self.pid:  # its leases would die with the parent
            raise FlowRuntimeError(f"session store {self.path} was opened before a fork; "
                                   "open one in each process")
        async with self._local(session_id):
            if self._contended(session_id):
                await self._acquire(session_id)
                self._renewals[session_id] = _Renewal(self, session_id)
            self._locked.add(session_id)
            try:
                yield
            finally:
                self._locked.discard(session_id)
                self._read.pop(session_id, None)
                renewal = self._renewals.pop(session_id, None)
                if renewal is not None:
                    renewal.cancel()
                self._release(session_id)

    def _contended(self, session_id: str) -> bool:
        """Whether another process may turn ``session_id`` now: another owner is registered
        on the file, or the session has a lease row. A read, not a write transaction.

        When nobody may, the same read's row is what ``load`` gives next: no process can
        have written the session between the two (one that opens the file meanwhile takes a
        lease first, which the commit's fence sees)."""
        row = self._db.execute(_CONTENDED, {"me": self.owner, "id": session_id}).fetchone()
        if row[0]:
            return True
        self._read[session_id] = (row[1], row[2])
        return False

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
        self._db.execute(_RENEW, (time.time() + self.lease_seconds, session_id, self.owner))

    def holder_is_dead(self, session_id: str) -> bool:
        """True (and its leases dropped) if the lease's owner is a process of this machine
        that has provably exited; False if it lives, or might, or nobody holds the lease."""
        row = self._db.execute(_HOLDER, (session_id, self.machine, self.owner)).fetchone()
        if row is None or not _gone(row[1], row[2]):
            return False
        self._forget([row[0]])
        return True

    def reclaim_dead(self) -> int:
        """Drop the leases and registrations of every dead owner of this machine."""
        rows = self._db.execute("SELECT owner, pid, started FROM owners "
                                "WHERE machine = ? AND owner != ?",
                                (self.machine, self.owner)).fetchall()
        dead = [owner for owner, pid, started in rows if _gone(pid, started)]
        self._forget(dead)
        return len(dead)

    def _forget(self, owners: list[str]) -> None:
        if owners:  # a dead owner takes no new lease: deleting in any order is safe
            self._db.executemany("DELETE FROM leases WHERE owner = ?", [(o,) for o in owners])
            self._db.executemany("DELETE FROM owners WHERE owner = ?", [(o,) for o in owners])

    async def _acquire(self, session_id: str) -> None:
        deadline = time.monotonic() + self.lock_timeout
        pause = _FIRST_POLL
        while not self.try_lease(session_id):
            if self.holder_is_dead(session_id):
                continue  # its lease is gone: take it now
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
        row = self._read.pop(session_id, None) or self._db.execute(
            "SELECT version, data FROM sessions WHERE id = ?", (session_id,)).fetchone()
        version, text = row or (None, None)
        return SessionRecord(session_id, version, loads(text)) if version and text else None

    async def commit(self, session_id: str, data: JSON, *, expected_version: int,
                     completed: Sequence[Mapping[str, Any]] = (), final: bool = True) -> int:
        """Write the new version, store completed tasks and end our lease (renew it when not
        ``final``), in one transaction.

        Inside ``lock`` the lease must still be ours, or free if an earlier commit of this
        turn ended it: one another process took meanwhile raises ``LeaseLost``, writing
        nothing.
        """
        now = time.time()
        text = dumps(data)
        db = self._db
        self._read.pop(session_id, None)
        fenced = session_id in self._held or session_id in self._locked
        db.execute("BEGIN IMMEDIATE")
        try:
            if fenced and expected_version and session_id not in self._held:
                # no lease taken: the update fences itself (written only while none stands)
                cur = db.execute(_UPDATE_FREE, (text, now, session_id, expected_version,
                                                session_id))
                if cur.rowcount != 1:
                    self._fence(session_id, now, final)  # LeaseLost if a lease was why
                elif not final:  # the turn goes on (an irreversible call): hold it now
                    self._hold(session_id, now)
            else:
                if fenced:
                    self._fence(session_id, now, final)
                cur = (db.execute(_UPDATE, (text, now, session_id, expected_version))
                       if expected_version else db.execute(_CREATE, (session_id, text, now)))
            if cur.rowcount != 1:
                raise VersionConflict(f"session {session_id!r} changed since it was loaded")
            if completed:
                db.executemany("INSERT INTO completed (session_id, data, created_at) "
                               "VALUES (?, ?, ?)", [(session_id, dumps(c), now)
                                                    for c in completed])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if final:
            self._held.discard(session_id)
        elif fenced:
            self._held.add(session_id)
            if session_id not in self._renewals:
                self._renewals[session_id] = _Renewal(self, session_id)
        return expected_version + 1

    def _fence(self, session_id: str, now: float, final: bool) -> None:
        """In the commit's transaction: end (or renew) our lease, or fail if it is not ours."""
        db, until = self._db, now + self.lease_seconds
        if session_id in self._held:
            cur = (db.execute(_END, (session_id, self.owner)) if final
                   else db.execute(_RENEW, (until, session_id, self.owner)))
            ours = cur.rowcount == 1
        else:  # no lease yet (nobody contended), or an earlier commit of this turn ended it
            ours = db.execute("SELECT 1 FROM leases WHERE id = ?",
                              (session_id,)).fetchone() is None
            if ours and not final:  # the turn goes on (an irreversible call): hold it now
                self._hold(session_id, now)
        if not ours:
            raise LeaseLost(f"session {session_id!r} was taken over by another process while "
                            "this turn held it (it stalled past its "
                            f"{self.lease_seconds:g}s lease); the turn was not saved")

    def _hold(self, session_id: str, now: float) -> None:
        self._db.execute("INSERT INTO leases (id, owner, until) VALUES (?, ?, ?)",
                         (session_id, self.owner, now + self.lease_seconds))

    async def completed(self, session_id: str) -> list[JSON]:
        rows = self._db.execute("SELECT data FROM completed WHERE session_id = ? ORDER BY seq",
                                (session_id,)).fetchall()
        return [loads(r[0]) for r in rows]


    async def close(self) -> None:
        """End our leases and registration (best effort), then close the file."""
        with contextlib.suppress(sqlite3.Error):
            self._forget([self.owner])
        self._held.clear()
        self._db.close()


class _Renewal:
    """Extends a held lease every third of its lifetime (a timer, not a task: turns are short)."""

    def __init__(self, store: SqliteStore, session_id: str) -> None:
        self.store, self.session_id = store, session_id
        self.loop = asyncio.get_running_loop()
        self.handle = self.loop.call_later(store.lease_seconds / 3, self._fire)

    def _fire(self) -> None:
        self.handle = self.loop.call_later(self.store.lease_seconds / 3, self._fire)
        with contextlib.suppress(sqlite3.Error):  # busy: the next beat tries again
            self.store.renew(self.session_id)

    def cancel(self) -> None:
        self.handle.cancel()


# -- who owns a lease -------------------------------------------------------------------------

def _machine() -> str:
    """Where a pid names the same process: this boot of this kernel, in this pid namespace.

    Linux without a readable boot id or namespace gets a key nobody shares, so its leases
    only expire; elsewhere (no pid namespaces) the host name.
    """
    if sys.platform.startswith("linux"):
        try:
            boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
            return f"linux:{boot}:{os.readlink('/proc/self/ns/pid')}"
        except OSError:
            return f"unknown:{uuid.uuid4().hex}"
    return f"{sys.platform}:{socket.gethostname()}"


def _stat(pid: int) -> tuple[str, str] | None:
    """(state, start time in clock ticks since boot) of ``pid`` from /proc, None if unknown."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rindex(b")") + 2:].split()  # the command name may hold ") "
    return fields[0].decode(), fields[19].decode()  # fields 3 and 22 of proc(5)


def _started(pid: int) -> str | None:
    stat = _stat(pid)
    return stat[1] if stat else None


def _gone(pid: int, started: str | None) -> bool:
    """True only if the process registered as (pid, started) has provably exited."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # EPERM: alive, another user's
        pass
    stat = _stat(pid)
    if stat is None:
        return False
    state, now_started = stat
    return state in ("Z", "X") or (started is not None and now_started != started)
