"""The run log contract on every store's database: memory, SQLite and PostgreSQL (a
throwaway cluster, tests/pg_cluster.py), and a whole run on PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest

from engine.compiler import compile_file
from engine.config import Settings
from engine.runs import MemoryRunLog, RunLog, Runs, SqliteRunLog, open_run_log
from engine.runs.log import Runner, RunRecord
from engine.runtime.engine import Engine
from engine.store.postgres import PostgresStore
from tests.pg_cluster import Cluster
from tests.runs.worker import Worker

FLOW = Path(__file__).parent / "flows" / "build.yaml"
ME = Runner("instance-1", "machine", 42, "123")


@pytest.fixture
def pg_runs_url(postgres: Cluster) -> str:
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        PostgresStore(postgres.url)  # migrated
        conn.execute("TRUNCATE flowctl_sessions, flowctl_completed, flowctl_runs, "
                     "flowctl_run_events")
    return str(postgres.url)


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
async def runlog(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[RunLog]:
    if request.param == "memory":
        yield MemoryRunLog()
    elif request.param == "sqlite":
        log = SqliteRunLog(str(tmp_path / "runs.db"))
        yield log
        await log.close()
    else:
        store = PostgresStore(request.getfixturevalue("pg_runs_url"))
        yield open_run_log(store)
        await store.close()


def run(run_id: str, session: str = "s1", at: float = 1.0, owner: str | None = None
        ) -> RunRecord:
    return RunRecord(run_id, session, owner, "build", "RUNNING", "pending", at, ME, at)


async def test_runs_are_listed_newest_first_and_the_active_one_found(runlog: RunLog) -> None:
    await runlog.create(run("a", at=1.0))
    await runlog.create(run("b", at=2.0, owner="key-x"))
    await runlog.create(run("c", session="s2", at=3.0))
    assert [r.id for r in await runlog.recent("s1", 10)] == ["b", "a"]
    assert [r.id for r in await runlog.recent("s1", 1)] == ["b"]
    got = await runlog.get("b")
    assert got is not None and got.owner == "key-x" and got.runner == ME
    assert await runlog.get("nope") is None
    assert await runlog.move("b", "success", source=("pending", "running"), summary="ok")
    active = await runlog.active("s1")
    assert active is not None and active.id == "a"
    assert sorted(r.id for r in await runlog.unfinished()) == ["a", "c"]


async def test_a_run_ends_once(runlog: RunLog) -> None:
    await runlog.create(run("a"))
    assert await runlog.move("a", "running", source=("pending",))
    assert not await runlog.move("a", "running", source=("pending",))
    assert await runlog.move("a", "cancelled", source=("pending", "running"), summary="x")
    assert not await runlog.move("a", "interrupted", source=("pending", "running"),
                                 summary="y")
    ended = await runlog.get("a")
    assert ended is not None and (ended.status, ended.summary) == ("cancelled", "x")
    assert ended.ended_at is not None
    assert await runlog.events("a") == []


async def test_a_move_writes_its_event_with_it_and_a_lost_one_writes_none(
        runlog: RunLog) -> None:
    await runlog.create(run("a"))
    await runlog.append("a", "AGENT_START", {})
    final = ("RUN_STATUS", {"status": "success"})
    assert await runlog.move("a", "success", source=("pending",), event=final)
    assert not await runlog.move("a", "interrupted", source=("pending",),
                                 event=("RUN_STATUS", {"status": "interrupted"}))
    assert [(e.seq, e.name, e.data) for e in await runlog.events("a")] == [
        (1, "AGENT_START", {}), (2, "RUN_STATUS", {"status": "success"})]


async def test_events_are_numbered_per_run_and_read_after_any_one(runlog: RunLog) -> None:
    await runlog.create(run("a"))
    await runlog.create(run("b"))
    assert [await runlog.append("a", "AGENT_START", {"agent": "확인", "n": i})
            for i in range(3)] == [1, 2, 3]
    assert await runlog.append("b", "DONE", {"message": "x"}) == 1
    after = await runlog.events("a", 1)
    assert [(e.seq, e.name, e.data) for e in after] == [
        (2, "AGENT_START", {"agent": "확인", "n": 1}),
        (3, "AGENT_START", {"agent": "확인", "n": 2})]
    assert await runlog.events("a", 3) == []


async def test_a_cancel_request_shows_at_the_next_beat(runlog: RunLog) -> None:
    await runlog.create(run("a"))
    await runlog.create(run("b"))
    assert await runlog.beat(["a", "b"]) == set()
    await runlog.request_cancel("b")
    assert await runlog.beat(["a", "b"]) == {"b"}
    beaten = await runlog.get("a")
    assert beaten is not None and beaten.heartbeat > 1.0


async def test_a_whole_run_on_postgresql(pg_runs_url: str) -> None:
    store = PostgresStore(pg_runs_url)
    with Worker() as worker:
        engine = Engine(compile_file(FLOW), store=store,
                        settings=Settings(env={"WORKER_URL": worker.url}))
        runs = Runs(engine, open_run_log(store))
        done = await engine.reply("s1", "build")
        run_id = done.state_snapshot["meta"]["run"]["id"]
        for _ in range(500):
            record = await runs.log.get(run_id)
            if record and record.status == "success":
                break
            await asyncio.sleep(0.01)
        assert record is not None and record.status == "success"
        assert [e.name for e in await runs.log.events(run_id)][-2:] == ["DONE", "RUN_STATUS"]
        assert [c["outcome"] for c in await store.completed("s1")] == ["PASSED"]
        await runs.stop(5)
        await engine.aclose()
    await store.close()


async def test_runs_that_ended_long_ago_expire_with_their_events(runlog: RunLog) -> None:
    for run_id in ("old", "new", "going"):
        await runlog.create(run(run_id))
        await runlog.append(run_id, "RUN_STATUS", {"status": "pending"})
    await runlog.move("old", "success", source=("pending",), summary="done")
    await runlog.move("new", "failed", source=("pending",), summary="no")
    assert await runlog.expire(3600) == 0
    await asyncio.sleep(0.05)
    await runlog.move("new", "failed", source=("failed",))  # ended again: just now
    assert await runlog.expire(0.03) == 1
    assert await runlog.get("old") is None and await runlog.events("old") == []
    assert await runlog.get("new") is not None and await runlog.get("going") is not None
    assert len(await runlog.events("going")) == 1
