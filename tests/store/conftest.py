"""The stores under test: every contract test runs on memory, SQLite and PostgreSQL.

PostgreSQL is a throwaway cluster (tests/pg_cluster.py) started once per test session and
stopped at its end; each test gets empty tables. Without PostgreSQL's programs the
PostgreSQL tests are skipped on a developer machine and fail in CI (``CI`` set), where
``.ci/run`` installs Debian's postgresql package.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import psycopg
import pytest

from engine.store import MemoryStore, SqliteStore
from engine.store.base import SessionStore
from engine.store.postgres import PostgresStore
from tests.pg_cluster import Cluster, NoPostgres
from tests.server.conftest import long_memory_text

STORES = ["memory", "sqlite", "postgresql"]


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """A PostgreSQL cluster of this test session (fsync off: nothing here must survive)."""
    try:
        cluster = Cluster({"fsync": "off", "max_connections": "200"}).start()
    except NoPostgres as err:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{err} (CI must run the PostgreSQL tests)")
        pytest.skip(str(err))
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(postgres: Cluster) -> str:
    """The cluster's database, emptied of flowctl's rows (its schema stays)."""
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        exists = conn.execute("SELECT to_regclass('flowctl_sessions')").fetchone()
        if exists and exists[0]:
            conn.execute("TRUNCATE flowctl_sessions, flowctl_completed")
    return postgres.url


@pytest.fixture
def flow(tmp_path: Path) -> Path:
    """transfer.yaml with a raw history long enough to hold every turn sent here."""
    shutil.copytree(Path(__file__).resolve().parents[2] / "prompts", tmp_path / "prompts")
    path = tmp_path / "transfer.yaml"
    path.write_text(long_memory_text().replace("summarize_threshold: 200",
                                               "summarize_threshold: 1000"), encoding="utf-8")
    return path


@pytest.fixture(params=STORES)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SessionStore]:
    made: SessionStore
    if request.param == "memory":
        made = MemoryStore()
    elif request.param == "sqlite":
        made = SqliteStore(tmp_path / "sessions.db")
    else:
        made = PostgresStore(request.getfixturevalue("pg_url"))
    yield made
    await made.close()
