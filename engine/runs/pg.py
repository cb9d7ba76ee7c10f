"""Runs and their event logs in PostgreSQL, through the session store's connection pool
(tables from migration 2 of ``engine.store.pg_schema``); the semantics of ``log.RunLog``."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import psycopg

from engine.runs.log import COLUMNS, FINAL, RunEvent, RunRecord, Status, record, row_of
from engine.store.postgres import PostgresStore

_APPEND = """
WITH e AS (
  INSERT INTO flowctl_run_events (run_id, seq, name, data, at)
  SELECT %(id)s, COALESCE(MAX(seq), 0) + 1, %(name)s, %(data)s::json, %(at)s
  FROM flowctl_run_events WHERE run_id = %(id)s
  RETURNING seq),
h AS (UPDATE flowctl_runs SET heartbeat = %(at)s WHERE id = %(id)s)
SELECT seq FROM e
"""

_MOVE = """
WITH m AS (
  UPDATE flowctl_runs SET status = %(status)s, ended_at = %(ended)s,
    summary = COALESCE(%(summary)s, summary), heartbeat = %(at)s
  WHERE id = %(id)s AND status = ANY(%(source)s) RETURNING id),
e AS (
  INSERT INTO flowctl_run_events (run_id, seq, name, data, at)
  SELECT m.id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM flowctl_run_events
                WHERE run_id = %(id)s), %(name)s, %(data)s::json, %(at)s
  FROM m WHERE %(with_event)s)
SELECT count(*) FROM m
"""
_EXPIRE = """
WITH gone AS (DELETE FROM flowctl_runs WHERE ended_at < %(cutoff)s RETURNING id),
e AS (DELETE FROM flowctl_run_events WHERE run_id IN (SELECT id FROM gone))
SELECT count(*) FROM gone
"""


class PostgresRunLog:
    """Runs in the session store's database; every instance sees every run."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    async def _fetch(self, sql: str, args: Any = ()) -> list[Any]:
        pool = await self.store.pool()
        async with pool.connection() as conn:
            cur = await conn.execute(sql, args)
            return await cur.fetchall() if cur.description is not None else []

    async def _runs(self, where: str, args: Any = ()) -> list[RunRecord]:
        return [record(r) for r in await self._fetch(
            f"SELECT {COLUMNS} FROM flowctl_runs {where}", args)]

    async def create(self, run: RunRecord) -> None:
        await self._fetch(f"INSERT INTO flowctl_runs ({COLUMNS}) VALUES "
                          f"({', '.join(['%s'] * 15)})", row_of(run))

    async def get(self, run_id: str) -> RunRecord | None:
        found = await self._runs("WHERE id = %s", (run_id,))
        return found[0] if found else None

    async def recent(self, session_id: str, limit: int) -> list[RunRecord]:
        return await self._runs("WHERE session_id = %s ORDER BY created_at DESC LIMIT %s",
                                (session_id, limit))

    async def active(self, session_id: str) -> RunRecord | None:
        found = await self._runs("WHERE session_id = %s AND status IN ('pending', 'running') "
                                 "ORDER BY created_at DESC LIMIT 1", (session_id,))
        return found[0] if found else None

    async def unfinished(self) -> list[RunRecord]:
        return await self._runs("WHERE status IN ('pending', 'running')")

    async def move(self, run_id: str, status: Status, *, source: Sequence[Status],
                   summary: str | None = None, event: tuple[str, Any] | None = None) -> bool:
        name, data = event if event is not None else ("", None)
        rows = await self._retried(_MOVE, {
            "id": run_id, "status": status, "summary": summary, "source": list(source),
            "ended": time.time() if status in FINAL else None, "at": time.time(),
            "name": name, "data": json.dumps(data, ensure_ascii=False),
            "with_event": event is not None})
        return int(rows[0][0]) == 1

    async def append(self, run_id: str, name: str, data: Any) -> int:
        rows = await self._retried(_APPEND, {"id": run_id, "name": name, "at": time.time(),
                                             "data": json.dumps(data, ensure_ascii=False)})
        return int(rows[0][0])

    async def _retried(self, sql: str, params: dict[str, Any]) -> list[Any]:
        """``sql`` once more if another writer took the event number it chose."""
        for again in (True, False):
            try:
                return await self._fetch(sql, params)
            except psycopg.errors.UniqueViolation:
                if not again:
                    raise
        raise AssertionError("unreachable")

    async def events(self, run_id: str, after: int = 0) -> list[RunEvent]:
        rows = await self._fetch("SELECT seq, name, data::text, at FROM flowctl_run_events "
                                 "WHERE run_id = %s AND seq > %s ORDER BY seq", (run_id, after))
        return [RunEvent(int(s), n, json.loads(d), float(a)) for s, n, d, a in rows]

    async def request_cancel(self, run_id: str) -> None:
        await self._fetch("UPDATE flowctl_runs SET cancel_requested = true WHERE id = %s",
                          (run_id,))

    async def beat(self, run_ids: Sequence[str]) -> set[str]:
        if not run_ids:
            return set()
        rows = await self._fetch("UPDATE flowctl_runs SET heartbeat = %s WHERE id = ANY(%s) "
                                 "RETURNING id, cancel_requested", (time.time(), list(run_ids)))
        return {r[0] for r in rows if r[1]}

    async def expire(self, older_than: float) -> int:
        rows = await self._fetch(_EXPIRE, {"cutoff": time.time() - older_than})
        return int(rows[0][0]) if rows else 0

    async def close(self) -> None:
        return None  # the pool is the store's


__all__ = ["PostgresRunLog"]
