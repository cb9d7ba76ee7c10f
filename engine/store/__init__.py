"""Session stores: ``open_store("sqlite:///path")``, ``postgresql://...`` or ``memory://``."""

from __future__ import annotations

from engine.errors import FlowRuntimeError
from engine.store.base import LeaseLost, SessionRecord, SessionStore, VersionConflict
from engine.store.memory import MemoryStore
from engine.store.sqlite import SqliteStore

__all__ = ["LeaseLost", "MemoryStore", "SessionRecord", "SessionStore", "SqliteStore",
           "VersionConflict", "open_store"]


def open_store(url: str) -> SessionStore:
    """``sqlite:///relative.db``, ``sqlite:////abs/path.db``, a bare path, ``memory://``, or
    ``postgresql://user:password@host:port/database`` (``postgres://`` too; any libpq URL)."""
    if url in ("memory://", "memory"):
        return MemoryStore()
    if url.startswith(("postgresql://", "postgres://")):
        from engine.store.postgres import PostgresStore  # psycopg only when it is used

        return PostgresStore(url)
    if url.startswith("sqlite://"):
        path = url.removeprefix("sqlite://").removeprefix("/")
        if not path:
            raise FlowRuntimeError(f"store URL {url!r} names no file; e.g. sqlite:///sessions.db")
        return SqliteStore(path)
    if "://" in url:
        raise FlowRuntimeError(f"unknown store {url!r}; use sqlite:///PATH, "
                               "postgresql://HOST/DATABASE or memory://")
    return SqliteStore(url)
