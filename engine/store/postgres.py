"""PostgreSQL SessionStore: every ``flowctl serve`` instance, on any machine, shares sessions.

Opening the store connects once (synchronously, so a wrong URL or an unreachable server
fails at start-up with one line) and migrates the schema (``pg_schema``). Turns then use a
pool of async connections (psycopg 3 + psycopg_pool), opened on first use in the running
event loop, in autocommit mode.

``lock(session_id)`` serialises turns of one session across every instance. An asyncio lock
queues this process's turns in arrival order, so each instance has at most one connection
waiting per session; the head of that queue takes a connection from the pool and a
session-level advisory lock on the session (``pg_advisory_lock`` on a 64-bit hash of its
id), held for the turn. PostgreSQL queues the instances' waiters and grants the lock the
moment the holder releases it. The holding connection is also the turn's *lease*: it has
``idle_session_timeout`` set to ``lease_seconds`` and a heartbeat pings it every third of
that, so a process that stalls (a blocked event loop, SIGSTOP, a lost machine) loses its
connection and with it the lock, and a process killed with SIGKILL loses it at once when
the server sees the socket close. No dead-owner bookkeeping is needed.

Each write is one statement, hence one transaction: the session row (its action journal
included) and the tasks it completed are written together, or not at all. Inside ``lock``
reads and writes go through the holding connection (never a second one from the pool, so
turns cannot starve the pool into a deadlock), and a plain turn costs two round trips:
taking the lock also reads the session (the turn's first ``load``), and the final commit
also ends the lock and the lease, after its transaction, as SQLite's commit ends its lease.
Statements that share a round trip are sent as one simple query, their parameters bound by
psycopg on the client. The session's version is the fencing token:
a commit writes only if the stored version is the one the turn loaded or last wrote, so a
stalled instance whose lease ended, and whose session another instance has since moved on,
gets ``LeaseLost`` (its connection is gone) or ``VersionConflict`` and writes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg.pq import TransactionStatus
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from engine.errors import FlowRuntimeError
from engine.store.base import (
    JSON,
    LeaseLost,
    SessionLocks,
    SessionRecord,
    VersionConflict,
    has_pending,
)
from engine.store.pg_schema import migrate
from engine.store.urls import redact

_CREATE = """
WITH s AS (
  INSERT INTO flowctl_sessions (id, version, data, pending, updated_at)
  VALUES (%(id)s, 1, %(data)s::json, %(pending)s, now())
  ON CONFLICT (id) DO NOTHING RETURNING version),
c AS (
  INSERT INTO flowctl_completed (session_id, data, created_at)
  SELECT %(id)s, u.d::json, now() FROM s, unnest(%(done)s::text[]) WITH ORDINALITY AS u(d, n)
  ORDER BY u.n)
SELECT version FROM s
"""
_UPDATE = """
WITH s AS (
  UPDATE flowctl_sessions SET version = version + 1, data = %(data)s::json,
    pending = %(pending)s, updated_at = now()
  WHERE id = %(id)s AND version = %(expected)s RETURNING version),
c AS (
  INSERT INTO flowctl_completed (session_id, data, created_at)
  SELECT %(id)s, u.d::json, now() FROM s, unnest(%(done)s::text[]) WITH ORDINALITY AS u(d, n)
  ORDER BY u.n)
SELECT version FROM s
"""
_DELETE = """
WITH c AS (DELETE FROM flowctl_completed WHERE session_id = %(id)s)
DELETE FROM flowctl_sessions WHERE id = %(id)s
"""
_EXPIRE = """
WITH gone AS (
  DELETE FROM flowctl_sessions WHERE updated_at < now() - make_interval(secs => %(age)s)
  RETURNING id),
c AS (
  DELETE FROM flowctl_completed
  WHERE created_at < now() - make_interval(secs => %(age)s)
     OR session_id IN (SELECT id FROM gone))
SELECT count(*) FROM gone
"""

_LOAD = "SELECT version, data::text FROM flowctl_sessions WHERE id = %s"
_NO_LEASE = "SET idle_session_timeout = 0"
_NOTHING: Any = object()  # no row read ahead

_OWN_PARAMETERS = ("pool_size",)  # flowctl's, not libpq's: taken out of the URL


class PostgresStore:
    """Sessions in PostgreSQL; ``lock`` is shared by every instance using the database."""

    def __init__(self, url: str, *, pool_size: int | None = None, lease_seconds: float = 10.0,
                 lock_timeout: float = 60.0, connect_timeout: float = 10.0) -> None:
        self.conninfo, options = split_url(url)
        self.where = redact(url)
        self.pool_size = pool_size or int(options.get("pool_size", 20))
        self.lease_seconds = lease_seconds
        self.lock_timeout = lock_timeout
        self.connect_timeout = connect_timeout
        try:
            with psycopg.connect(self.conninfo, autocommit=True,
                                 connect_timeout=max(1, int(connect_timeout))) as conn:
                self.migrated = migrate(conn)
        except psycopg.Error as err:
            raise FlowRuntimeError(f"cannot open session store {self.where}: "
                                   f"{one_line(err)}") from None
        self._pool: AsyncConnectionPool | None = None
        self._pool_loop: asyncio.AbstractEventLoop | None = None
        self._opening = asyncio.Lock()
        self._held: dict[str, _Hold] = {}
        self._local = SessionLocks()

    # -- connections ------------------------------------------------------------------------

    async def pool(self) -> AsyncConnectionPool:
        """The connection pool of the running event loop, opened on first use."""
        loop = asyncio.get_running_loop()
        if self._pool is not None and self._pool_loop is loop:
            return self._pool
        async with self._opening:
            if self._pool is None or self._pool_loop is not loop:
                pool = AsyncConnectionPool(
                    self.conninfo, min_size=1, max_size=self.pool_size, open=False,
                    kwargs={"autocommit": True}, configure=self._configure,
                    timeout=self.lock_timeout, name="flowctl")
                try:
                    await pool.open(wait=True, timeout=self.connect_timeout)
                except PoolTimeout as err:
                    raise FlowRuntimeError(f"cannot connect to session store {self.where}: "
                                           f"{one_line(err)}") from None
                self._pool, self._pool_loop = pool, loop
        return self._pool

    async def _configure(self, conn: psycopg.AsyncConnection[Any]) -> None:
        ms = int(self.lock_timeout * 1000)
        await conn.execute(f"SET lock_timeout = {ms}")  # also bounds an advisory-lock wait

    @contextlib.asynccontextmanager
    async def _connection(self, session_id: str) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """The connection holding ``session_id``'s lock, else one from the pool."""
        held = self._held.get(session_id)
        if held is not None:
            try:
                yield held.conn
            except psycopg.OperationalError as err:
                raise LeaseLost(f"session {session_id!r}: the connection holding its lock "
                                f"was lost ({one_line(err)}); the turn was not saved") from None
            return
        pool = await self.pool()
        try:
            async with pool.connection() as conn:
                yield conn
        except (psycopg.OperationalError, PoolTimeout) as err:
            raise FlowRuntimeError(f"session store {self.where}: {one_line(err)}") from None

    # -- the per-session lock ---------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lock(self, session_id: str) -> AsyncIterator[None]:
        """Hold the session against turns of this and every other instance."""
        async with self._local(session_id):
            pool = await self.pool()
            hold = await self._take(pool, session_id)
            clean = False
            try:
                self._held[session_id] = hold
                beat = _Heartbeat(hold.conn, self.lease_seconds / 3)
                try:
                    yield
                finally:
                    await beat.stop()
                    del self._held[session_id]
                    clean = await self._release(hold)
            finally:
                if not clean:  # closing it ends whatever lock the server still holds for it
                    await hold.conn.close()
                await pool.putconn(hold.conn)

    async def _take(self, pool: AsyncConnectionPool, session_id: str) -> _Hold:
        """A connection from the pool holding the session's lock. One the server closed
        while it sat in the pool (a restart, a failover) is replaced, once."""
        for again in (True, False):
            try:
                conn = await pool.getconn()
            except PoolTimeout as err:
                raise FlowRuntimeError(f"session store {self.where}: {one_line(err)}") from None
            hold = _Hold(conn, advisory_key(session_id))
            try:
                await self._acquire(hold, session_id)
                return hold
            except BaseException as err:
                broken = conn.broken
                await conn.close()  # whatever the server granted it ends with it
                await pool.putconn(conn)
                if not (again and broken and isinstance(err, psycopg.OperationalError)):
                    raise self._lock_error(session_id, err) from None
        raise AssertionError("unreachable")

    async def _acquire(self, hold: _Hold, session_id: str) -> None:
        """Set the lease, wait for the lock and read the session: one round trip (the
        session is what the turn loads first)."""
        lease = int(self.lease_seconds * 1000)
        cur = await run(hold.conn, f"SET idle_session_timeout = {lease}; "
                        f"SELECT pg_advisory_lock({hold.key}); {_LOAD}", (session_id,))
        hold.prefetched = await last_row(cur)
        hold.locked = True

    def _lock_error(self, session_id: str, err: BaseException) -> BaseException:
        if isinstance(err, psycopg.errors.LockNotAvailable):
            return FlowRuntimeError(f"session {session_id!r} stayed locked by another instance "
                                    f"for {self.lock_timeout:g}s; try again later")
        if isinstance(err, psycopg.OperationalError):
            return FlowRuntimeError(f"session store {self.where}: {one_line(err)}")
        return err

    @staticmethod
    async def _release(hold: _Hold) -> bool:
        """Unlock and end the lease (unless a final commit did); False when the connection
        could not (it is lost)."""
        if not hold.locked:
            return hold.conn.info.transaction_status == TransactionStatus.IDLE
        try:
            await hold.conn.execute(f"SELECT pg_advisory_unlock({hold.key}); {_NO_LEASE}")
        except psycopg.Error:
            return False
        return True

    # -- records ----------------------------------------------------------------------------

    async def load(self, session_id: str) -> SessionRecord | None:
        hold = self._held.get(session_id)
        if hold is not None and hold.prefetched is not _NOTHING:
            row, hold.prefetched = hold.prefetched, _NOTHING  # read as the lock was taken
        else:
            async with self._connection(session_id) as conn:
                cur = await conn.execute(_LOAD, (session_id,))
                row = await cur.fetchone()
        return SessionRecord(session_id, row[0], json.loads(row[1])) if row else None

    async def commit(self, session_id: str, data: JSON, *, expected_version: int,
                     completed: Sequence[Mapping[str, Any]] = (), final: bool = True) -> int:
        """Write the session and its completed tasks in one statement if the stored version
        is ``expected_version``; return the new version.

        Inside ``lock`` a final commit also ends the lock and the lease once its transaction
        is committed (a waiting instance may go on at once); one that is not final keeps
        them. A commit after a final one takes the lock again, or raises ``LeaseLost`` if
        another instance has it."""
        params = {"id": session_id, "data": json.dumps(data, ensure_ascii=False),
                  "pending": has_pending(data), "expected": expected_version,
                  "done": [json.dumps(c, ensure_ascii=False) for c in completed]}
        statement = _CREATE if expected_version == 0 else _UPDATE
        hold = self._held.get(session_id)
        async with self._connection(session_id) as conn:
            if hold is None:
                cur = await conn.execute(statement, params)
                row = await cur.fetchone()
            else:
                row = await self._fenced(hold, session_id, statement, params, final)
        if row is None:
            raise VersionConflict(f"session {session_id!r} changed since it was loaded")
        return int(row[0])

    async def _fenced(self, hold: _Hold, session_id: str, statement: str,
                      params: dict[str, Any], final: bool) -> Any:
        """A commit inside ``lock``, through the lock's connection. A final one also ends
        the lock and the lease after its transaction, in the same round trip."""
        hold.prefetched = _NOTHING
        if not hold.locked:  # an earlier final commit of this turn let the session go
            lease = int(self.lease_seconds * 1000)
            cur = await run(hold.conn, f"SET idle_session_timeout = {lease}; "
                            "SELECT pg_try_advisory_lock(%s)", (hold.key,))
            if not (await last_row(cur) or (False,))[0]:
                raise LeaseLost(f"session {session_id!r} was taken by another instance after "
                                "this turn's last commit; the turn was not saved")
            hold.locked = True
        if not final:
            return await (await hold.conn.execute(statement, params)).fetchone()
        ended = await run(hold.conn, f"BEGIN; {statement}; COMMIT; "
                          f"SELECT pg_advisory_unlock({hold.key}); {_NO_LEASE}", params)
        hold.locked = False
        return await version_row(ended)

    async def completed(self, session_id: str) -> list[JSON]:
        async with self._connection(session_id) as conn:
            cur = await conn.execute("SELECT data::text FROM flowctl_completed "
                                     "WHERE session_id = %s ORDER BY seq", (session_id,))
            rows = await cur.fetchall()
        return [json.loads(r[0]) for r in rows]

    async def delete(self, session_id: str) -> bool:
        async with self._connection(session_id) as conn:
            cur = await conn.execute(_DELETE, {"id": session_id})
        return cur.rowcount == 1

    async def expire(self, older_than: float) -> int:
        async with self._connection("") as conn:
            cur = await conn.execute(_EXPIRE, {"age": older_than})
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def pending_sessions(self) -> list[str]:
        async with self._connection("") as conn:
            cur = await conn.execute("SELECT id FROM flowctl_sessions WHERE pending ORDER BY id")
            rows = await cur.fetchall()
        return [r[0] for r in rows]

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None and self._pool_loop is asyncio.get_running_loop():
            await pool.close()


@dataclass(slots=True)
class _Hold:
    """A session this process holds: the connection its lock lives on."""

    conn: psycopg.AsyncConnection[Any]
    key: int
    locked: bool = False
    """The advisory lock is ours (a final commit ends it before the turn leaves ``lock``)."""
    prefetched: Any = _NOTHING
    """The session's row as read when the lock was taken, for the turn's first ``load``."""


class _Heartbeat:
    """Pings a held connection every ``every`` seconds, so a long turn keeps its lease (a
    timer, not a task: most turns end before it first fires)."""

    def __init__(self, conn: psycopg.AsyncConnection[Any], every: float) -> None:
        self.conn, self.every = conn, every
        self.loop = asyncio.get_running_loop()
        self.handle: asyncio.TimerHandle | None = self.loop.call_later(every, self._fire)
        self.ping: asyncio.Task[None] | None = None

    def _fire(self) -> None:
        self.ping = self.loop.create_task(self._send())

    async def _send(self) -> None:
        try:
            await self.conn.execute("SELECT 1")
        except psycopg.Error:
            return  # the connection is lost: so is the lease
        if self.handle is not None:
            self.handle = self.loop.call_later(self.every, self._fire)

    async def stop(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None
        if self.ping is not None:
            await asyncio.wait([self.ping])  # never cancelled inside a query


async def run(conn: psycopg.AsyncConnection[Any], statements: str,
              params: Any) -> psycopg.AsyncClientCursor[Any]:
    """Several statements in one round trip (parameters bound by the client, as literals)."""
    cur = psycopg.AsyncClientCursor(conn)
    await cur.execute(statements, params)
    return cur


async def last_row(cur: psycopg.AsyncClientCursor[Any]) -> Any:
    """The row of the last statement that returned rows, None when it had none."""
    row = None
    while True:
        if cur.description is not None:
            row = await cur.fetchone()
        if not cur.nextset():
            return row


async def version_row(cur: psycopg.AsyncClientCursor[Any]) -> Any:
    """The row of the statement whose column is ``version`` (None: nothing written)."""
    while True:
        if cur.description is not None and cur.description[0].name == "version":
            return await cur.fetchone()
        if not cur.nextset():
            return None


def advisory_key(session_id: str) -> int:
    """A signed 64-bit key for ``pg_advisory_lock``, the same in every process."""
    digest = hashlib.blake2b(session_id.encode(), digest_size=8, person=b"flowctl").digest()
    return int.from_bytes(digest, "big", signed=True)



def split_url(url: str) -> tuple[str, dict[str, str]]:
    """(the URL libpq reads, flowctl's own query parameters taken out of it)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    own = {k: v for k, v in query if k in _OWN_PARAMETERS}
    rest = urlencode([(k, v) for k, v in query if k not in _OWN_PARAMETERS])
    if "pool_size" in own and not (own["pool_size"].isdigit() and int(own["pool_size"]) > 0):
        raise FlowRuntimeError(f"store URL {redact(url)}: pool_size={own['pool_size']!r} "
                               "is not a positive whole number")
    return urlunsplit(parts._replace(query=rest)), own


def one_line(err: BaseException) -> str:
    return " ".join(str(err).split()) or type(err).__name__
