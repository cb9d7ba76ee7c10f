"""Background runs: a stage declared ``background: true`` runs its steps after the turn that
reached it, in the server, with a replayable event log (see docs/server.md, "Long runs").

``open_run_log(store)`` keeps the runs next to the sessions, in the same database;
``Runs(engine, log)`` hosts them (``host.py``); ``execute.py`` is a run's work on the engine.
"""

from __future__ import annotations

from typing import Any

from engine.runs.host import Runs
from engine.runs.log import MemoryRunLog, RunLog, RunRecord, SqliteRunLog
from engine.store.sqlite import SqliteStore


def open_run_log(store: Any) -> RunLog:
    """The run log of ``store``'s database (in memory for a store with no file)."""
    if isinstance(store, SqliteStore) and store.path != ":memory:":
        return SqliteRunLog(store.path)
    if type(store).__name__ == "PostgresStore":  # psycopg only when it is used
        from engine.runs.pg import PostgresRunLog

        return PostgresRunLog(store)
    return MemoryRunLog()


__all__ = ["MemoryRunLog", "RunLog", "RunRecord", "Runs", "SqliteRunLog", "open_run_log"]
