"""The shipped flows' conversation tests (flows/*.test.yaml, what ``flowctl test flows/``
runs) pass with the PostgreSQL store in place of the in-memory one: every turn locks, loads
and commits through a real database."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from engine.store.postgres import PostgresStore
from engine.testing import runner

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("path", sorted((ROOT / "flows").glob("*.test.yaml")),
                         ids=lambda p: p.name)
async def test_conversation_tests_pass_on_postgresql(
        path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[PostgresStore] = []

    def fresh_store() -> PostgresStore:  # what each conversation gets instead of memory://
        made.append(PostgresStore(pg_url))  # (creates the tables on a fresh cluster)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("TRUNCATE flowctl_sessions, flowctl_completed")
        return made[-1]

    monkeypatch.setattr(runner, "MemoryStore", fresh_store)
    try:
        results = await runner.run_file(path)
    finally:
        for store in made:
            await store.close()
    assert len(made) == len(results) > 0
    assert [(r.name, r.mismatches) for r in results] == [(r.name, []) for r in results]
