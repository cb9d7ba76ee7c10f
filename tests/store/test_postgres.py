"""PostgreSQL specifics: migrations, one-line errors at open, and the advisory lock that
serialises one session across instances -- freed at once when its holder is killed, taken
from a holder that stalls past its lease, which then cannot commit. Holders are real
processes (or separate stores with their own pools) on a real cluster."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from engine.errors import FlowRuntimeError
from engine.store import LeaseLost, open_store
from engine.store.pg_schema import LATEST
from engine.store.postgres import PostgresStore
from engine.store.urls import redact
from tests.pg_cluster import Cluster, free_port

ROOT = Path(__file__).resolve().parents[2]

# Takes the lock on argv[2] and says "held"; on a line from stdin commits and prints what
# happened (the class name of the error, or "committed").
_HOLDER = """
import asyncio, sys
from engine.store.postgres import PostgresStore

async def main(url: str, session_id: str, lease: float) -> None:
    store = PostgresStore(url, lease_seconds=lease)
    async with store.lock(session_id):
        record = await store.load(session_id)
        print("held", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        try:
            await store.commit(session_id, {"by": "holder"},
                               expected_version=record.version if record else 0)
            print("committed", flush=True)
        except Exception as err:
            print(type(err).__name__, flush=True)
    await store.close()

asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
"""


class Holder:
    def __init__(self, url: str, session_id: str, lease: float = 10.0) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _HOLDER, url, session_id, str(lease)],
                                     cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "held"

    def go_on(self) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()


@pytest.fixture
def holders() -> Iterator[list[Holder]]:
    made: list[Holder] = []
    yield made
    for holder in made:
        holder.proc.kill()
        holder.proc.communicate()  # waits, and closes its pipes


async def timed_lock(store: PostgresStore, session_id: str) -> float:
    started = time.monotonic()
    async with store.lock(session_id):
        return time.monotonic() - started


def test_the_schema_is_migrated_once_and_recorded(pg_url: str) -> None:
    PostgresStore(pg_url)
    assert PostgresStore(pg_url).migrated == []  # already at LATEST: nothing to do
    with psycopg.connect(pg_url) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM flowctl_schema_versions")]
    assert versions == list(range(1, LATEST + 1))


def test_a_database_migrated_by_a_newer_flowctl_is_refused(pg_url: str) -> None:
    PostgresStore(pg_url)
    with psycopg.connect(pg_url) as conn:
        conn.execute("INSERT INTO flowctl_schema_versions VALUES (%s, 'future')", (LATEST + 1,))
    try:
        with pytest.raises(FlowRuntimeError, match="newer than this flowctl knows"):
            PostgresStore(pg_url)
    finally:
        with psycopg.connect(pg_url) as conn:
            conn.execute("DELETE FROM flowctl_schema_versions WHERE version > %s", (LATEST,))


def test_an_unreachable_server_fails_at_open_with_one_line_and_no_password() -> None:
    url = f"postgresql://flowctl:s3cret@127.0.0.1:{free_port()}/flowctl"
    with pytest.raises(FlowRuntimeError, match="cannot open session store") as caught:
        open_store(url)
    assert "\n" not in str(caught.value) and "s3cret" not in str(caught.value)
    assert redact(url) in str(caught.value)


def test_open_store_takes_postgres_urls_and_its_pool_size(pg_url: str) -> None:
    store = open_store(pg_url.replace("postgresql://", "postgres://") + "?pool_size=3")
    assert isinstance(store, PostgresStore) and store.pool_size == 3
    with pytest.raises(FlowRuntimeError, match="pool_size"):
        open_store(pg_url + "?pool_size=lots")


async def test_a_turn_needs_one_connection_only(pg_url: str) -> None:
    store = PostgresStore(pg_url, pool_size=1)  # loads and commits use the lock's connection
    for expected in range(3):
        async with store.lock("s"):
            record = await store.load("s")
            assert (record.version if record else 0) == expected
            await store.commit("s", {"n": expected}, expected_version=expected, final=False)
            await store.completed("s")
    await store.close()


async def test_two_instances_never_run_turns_of_one_session_together(pg_url: str) -> None:
    a, b = PostgresStore(pg_url), PostgresStore(pg_url)  # two pools: two instances
    seen: list[int] = []

    async def turn(store: PostgresStore, name: str) -> None:
        async with store.lock("s"):
            record = await store.load("s")
            version = record.version if record else 0
            seen.append(version)
            await asyncio.sleep(0.002)
            await store.commit("s", {"last": name}, expected_version=version)

    await asyncio.gather(*(turn(a if i % 2 else b, f"t{i}") for i in range(40)))
    record = await a.load("s")
    assert record is not None and record.version == 40
    assert sorted(seen) == list(range(40))  # each turn saw the one before it: none overlapped
    await a.close()
    await b.close()


async def test_a_lock_held_elsewhere_is_waited_for_up_to_the_timeout(
        pg_url: str, holders: list[Holder]) -> None:
    holders.append(Holder(pg_url, "s"))
    store = PostgresStore(pg_url, lock_timeout=0.5)
    started = time.monotonic()
    with pytest.raises(FlowRuntimeError, match="stayed locked"):
        await timed_lock(store, "s")
    assert time.monotonic() - started >= 0.5
    assert await timed_lock(store, "other") < 0.5  # other sessions are free
    await store.close()


async def test_a_killed_holder_frees_the_session_at_once(
        pg_url: str, holders: list[Holder]) -> None:
    holders.append(holder := Holder(pg_url, "s"))
    store = PostgresStore(pg_url)
    waiting = asyncio.create_task(timed_lock(store, "s"))
    await asyncio.sleep(0.3)
    assert not waiting.done()
    killed = time.monotonic()
    holder.proc.kill()
    await waiting
    assert time.monotonic() - killed < 5.0  # the holder's lease was 10 s
    await store.close()


async def test_a_holder_that_stalls_past_its_lease_loses_it_and_cannot_commit(
        pg_url: str, holders: list[Holder]) -> None:
    holders.append(holder := Holder(pg_url, "s", lease=1.0))
    holder.proc.send_signal(signal.SIGSTOP)  # a stalled instance: no heartbeat
    taker = PostgresStore(pg_url)
    try:
        assert 0.5 < await timed_lock(taker, "s") < 5.0  # after the lease, not before
        async with taker.lock("s"):
            await taker.commit("s", {"by": "taker"}, expected_version=0)
    finally:
        holder.proc.send_signal(signal.SIGCONT)
    assert holder.go_on() == "LeaseLost"
    record = await taker.load("s")
    assert record is not None and (record.version, record.data) == (1, {"by": "taker"})
    await taker.close()


async def test_a_commit_through_a_lost_connection_is_lease_lost(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    with pytest.raises(LeaseLost):
        async with store.lock("s"):
            with psycopg.connect(pg_url, autocommit=True) as admin:  # as a failover would
                admin.execute("SELECT pg_terminate_backend(pid) FROM pg_locks "
                              "WHERE locktype = 'advisory' AND granted")
            await store.commit("s", {"n": 1}, expected_version=0)
    assert await store.load("s") is None
    assert await timed_lock(store, "s") < 1.0  # the lost connection left the pool
    await store.close()


@pytest.mark.parametrize("taken", [False, True])
async def test_a_commit_after_a_final_one_takes_the_lock_again_or_is_refused(
        pg_url: str, taken: bool) -> None:
    a = PostgresStore(pg_url)
    b = PostgresStore(pg_url, lock_timeout=0.3)
    async with a.lock("s"):
        await a.commit("s", {"n": 1}, expected_version=0)  # final: the lock ended here...
        if taken:
            async with b.lock("s"):  # ...so another instance could take the session
                with pytest.raises(LeaseLost):
                    await a.commit("s", {"n": 2}, expected_version=1)
        else:
            assert await a.commit("s", {"n": 2}, expected_version=1, final=False) == 2
            with pytest.raises(FlowRuntimeError, match="stayed locked"):
                await timed_lock(b, "s")  # not final: it holds the session again
    record = await a.load("s")
    assert record is not None and record.data == {"n": 1 if taken else 2}
    await a.close()
    await b.close()


async def test_a_long_turn_keeps_its_lease_while_its_process_runs(pg_url: str) -> None:
    a = PostgresStore(pg_url, lease_seconds=0.6)
    b = PostgresStore(pg_url, lock_timeout=0.3)
    async with a.lock("s"):
        await a.commit("s", {"journal": "pending"}, expected_version=0, final=False)
        for _ in range(4):  # the action's call, longer than the lease: pinged meanwhile
            await asyncio.sleep(0.4)
            with pytest.raises(FlowRuntimeError, match="stayed locked"):
                await timed_lock(b, "s")
        assert await a.commit("s", {"journal": "done"}, expected_version=1) == 2
    assert await timed_lock(b, "s") < 0.3
    await a.close()
    await b.close()


async def test_the_first_turn_after_a_database_restart_gets_a_fresh_connection(
        postgres: Cluster, pg_url: str) -> None:
    store = PostgresStore(pg_url)
    async with store.lock("s"):  # the pool now holds a connection...
        await store.commit("s", {"n": 1}, expected_version=0)
    postgres.restart()  # ...that the server closes
    async with store.lock("s"):
        record = await store.load("s")
        assert record is not None
        await store.commit("s", {"n": 2}, expected_version=record.version)
    assert (await store.load("s")).data == {"n": 2}  # type: ignore[union-attr]
    await store.close()
