"""The PostgreSQL store's schema, created and migrated by flowctl itself.

Each migration has a version; ``flowctl_schema_versions`` records the ones applied. Opening
a store applies the missing ones in order, each in its own transaction, under a
transaction-scoped advisory lock so that instances starting together migrate once. A
database migrated by a newer flowctl (a version this one does not know) is refused rather
than written with an older idea of the schema. Migrations are only ever appended.
"""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from engine.errors import FlowRuntimeError

MIN_SERVER_VERSION = 140000  # idle_session_timeout ends the connection of a stalled holder
_MIGRATION_LOCK = 0x666C6F7763746C  # "flowctl": one advisory key for every migrating instance


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    description: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "sessions and completed tasks", """
CREATE TABLE flowctl_sessions (
  id text PRIMARY KEY,
  version bigint NOT NULL,
  data json NOT NULL,
  pending boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX flowctl_sessions_updated ON flowctl_sessions (updated_at);
CREATE INDEX flowctl_sessions_pending ON flowctl_sessions (id) WHERE pending;
CREATE TABLE flowctl_completed (
  seq bigserial PRIMARY KEY,
  session_id text NOT NULL,
  data json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX flowctl_completed_session ON flowctl_completed (session_id, seq);
CREATE INDEX flowctl_completed_created ON flowctl_completed (created_at);
"""),
    Migration(2, "background runs and their event logs", """
CREATE TABLE flowctl_runs (
  id text PRIMARY KEY, session_id text NOT NULL, owner text, flow text NOT NULL,
  stage text NOT NULL, status text NOT NULL, created_at double precision NOT NULL,
  ended_at double precision, summary text, cancel_requested boolean NOT NULL DEFAULT false,
  instance text NOT NULL, machine text NOT NULL, pid integer NOT NULL, started text,
  heartbeat double precision NOT NULL);
CREATE INDEX flowctl_runs_session ON flowctl_runs (session_id, created_at);
CREATE INDEX flowctl_runs_active ON flowctl_runs (status)
  WHERE status IN ('pending', 'running');
CREATE TABLE flowctl_run_events (
  run_id text NOT NULL, seq integer NOT NULL, name text NOT NULL, data json NOT NULL,
  at double precision NOT NULL, PRIMARY KEY (run_id, seq));
"""),
)
LATEST = MIGRATIONS[-1].version

_VERSIONS = """
CREATE TABLE IF NOT EXISTS flowctl_schema_versions (
  version integer PRIMARY KEY, description text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now())
"""


def migrate(conn: psycopg.Connection) -> list[int]:
    """Bring the database to ``LATEST``; the versions applied now (none when up to date)."""
    if conn.info.server_version < MIN_SERVER_VERSION:
        raise FlowRuntimeError(f"PostgreSQL {conn.info.server_version // 10000} is too old; "
                               "flowctl needs PostgreSQL 14 or newer")
    applied_now: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute(_VERSIONS)
        applied = {row[0] for row in conn.execute("SELECT version FROM flowctl_schema_versions")}
        if applied and max(applied) > LATEST:
            raise FlowRuntimeError(f"the database's flowctl schema is at version "
                                   f"{max(applied)}, newer than this flowctl knows ({LATEST}); "
                                   "upgrade flowctl")
        for migration in MIGRATIONS:
            if migration.version in applied:
                continue
            with conn.transaction():  # a savepoint: one migration, all of it or nothing
                conn.execute(migration.sql.encode())
                conn.execute("INSERT INTO flowctl_schema_versions (version, description) "
                             "VALUES (%s, %s)", (migration.version, migration.description))
            applied_now.append(migration.version)
    return applied_now
