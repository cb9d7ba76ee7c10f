"""SQLite specifics: the file survives restarts, bad paths fail at open, and the lease lock
serialises one session across connections and processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.errors import FlowRuntimeError
from engine.store import LeaseLost, SqliteStore, VersionConflict

ROOT = Path(__file__).resolve().parents[2]


async def test_sessions_survive_reopening_the_file(tmp_path: Path) -> None:
    first = SqliteStore(tmp_path / "s.db")
    await first.commit("s", {"stage": "READY"}, expected_version=0, completed=[{"n": 1}])
    await first.close()
    again = SqliteStore(tmp_path / "s.db")
    record = await again.load("s")
    assert record is not None and (record.version, record.data) == (1, {"stage": "READY"})
    assert await again.completed("s") == [{"n": 1}]
    await again.close()


def test_missing_parent_directories_are_created(tmp_path: Path) -> None:
    SqliteStore(tmp_path / "a" / "b" / "sessions.db")
    assert (tmp_path / "a" / "b" / "sessions.db").exists()


@pytest.mark.parametrize("make_path", [
    pytest.param(lambda tmp: tmp / "file.txt" / "sessions.db", id="parent-is-a-file"),
    pytest.param(lambda tmp: tmp, id="path-is-a-directory"),
])
def test_an_unusable_path_fails_with_one_line(tmp_path: Path, make_path) -> None:  # noqa: ANN001
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(FlowRuntimeError, match="cannot open session store") as caught:
        SqliteStore(make_path(tmp_path))
    assert "\n" not in str(caught.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files anyway")
def test_a_read_only_file_fails_at_open_not_at_first_commit(tmp_path: Path) -> None:
    SqliteStore(tmp_path / "ro.db")
    (tmp_path / "ro.db").chmod(0o444)
    with pytest.raises(FlowRuntimeError, match="cannot open session store"):
        SqliteStore(tmp_path / "ro.db")


async def test_a_lease_blocks_another_connection_until_released(tmp_path: Path) -> None:
    a, b = SqliteStore(tmp_path / "s.db"), SqliteStore(tmp_path / "s.db")
    order: list[str] = []

    async def hold() -> None:
        async with a.lock("s"):
            order.append("a+")
            await asyncio.sleep(0.1)
            order.append("a-")

    async def wait() -> None:
        await asyncio.sleep(0.02)
        async with b.lock("s"):
            order.append("b")

    await asyncio.gather(hold(), wait())
    assert order == ["a+", "a-", "b"]
    assert b.try_lease("other-session")


async def test_a_held_lease_is_renewed_past_its_lifetime(tmp_path: Path) -> None:
    a = SqliteStore(tmp_path / "s.db", lease_seconds=0.15)
    b = SqliteStore(tmp_path / "s.db", lease_seconds=0.15)
    async with a.lock("s"):
        for _ in range(10):
            await asyncio.sleep(0.05)
            assert not b.try_lease("s")
    assert b.try_lease("s")


async def test_a_crashed_holder_loses_the_lease_when_it_expires(tmp_path: Path) -> None:
    crashed = SqliteStore(tmp_path / "s.db", lease_seconds=0.3)
    assert crashed.try_lease("s")  # ...and never releases it
    alive = SqliteStore(tmp_path / "s.db")
    started = time.monotonic()
    async with alive.lock("s"):
        waited = time.monotonic() - started
    assert 0.1 < waited < 2.0


async def test_waiting_longer_than_lock_timeout_is_an_operator_error(tmp_path: Path) -> None:
    SqliteStore(tmp_path / "s.db", lease_seconds=60).try_lease("s")
    late = SqliteStore(tmp_path / "s.db", lock_timeout=0.1)
    with pytest.raises(FlowRuntimeError, match="stayed locked"):
        async with late.lock("s"):
            pass
    async with late.lock("another"):
        pass


def write_transactions(statements: list[str]) -> int:
    """How many write transactions ``statements`` (a connection's trace) made."""
    count, inside = 0, False
    for sql in statements:
        verb = sql.split()[0].upper()
        if verb == "BEGIN":
            count, inside = count + 1, True
        elif verb in ("COMMIT", "ROLLBACK"):
            inside = False
        elif verb in ("INSERT", "UPDATE", "DELETE") and not inside:
            count += 1
    return count


async def a_turn(store: SqliteStore) -> int:
    """Lock, load and commit session "s" once; the write transactions that took."""
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    async with store.lock("s"):
        record = await store.load("s")
        await store.commit("s", {"n": 1}, expected_version=record.version if record else 0)
    store._db.set_trace_callback(None)
    return write_transactions(statements)


async def test_a_store_alone_on_its_file_commits_a_turn_in_one_write(tmp_path: Path) -> None:
    alone = SqliteStore(tmp_path / "s.db")
    assert await a_turn(alone) == 1
    neighbour = SqliteStore(tmp_path / "s.db")  # another worker: now the turn takes a lease
    assert await a_turn(alone) == 2
    await neighbour.close()
    assert await a_turn(alone) == 1
    await alone.close()


async def test_a_store_alone_takes_the_lease_with_a_commit_that_is_not_final(
        tmp_path: Path) -> None:
    alone = SqliteStore(tmp_path / "s.db", lease_seconds=0.2)
    async with alone.lock("s"):
        await alone.commit("s", {"journal": "pending"}, expected_version=0, final=False)
        late = SqliteStore(tmp_path / "s.db")  # opened while the action's call runs
        for _ in range(5):  # longer than the lease: renewed meanwhile
            await asyncio.sleep(0.1)
            assert not late.try_lease("s")
        await alone.commit("s", {"journal": "done"}, expected_version=1)
    assert late.try_lease("s")
    await alone.close()
    await late.close()


async def test_a_turn_without_a_lease_loses_to_a_process_that_took_the_session(
        tmp_path: Path) -> None:
    alone = SqliteStore(tmp_path / "s.db")
    async with alone.lock("s"):
        late = SqliteStore(tmp_path / "s.db")
        assert late.try_lease("s")  # a turn of the newcomer on the same session
        with pytest.raises(LeaseLost):
            await alone.commit("s", {"n": 1}, expected_version=0)
    assert await alone.load("s") is None
    await alone.close()
    await late.close()


async def test_a_turn_alone_on_its_file_reads_once_and_writes_once(tmp_path: Path) -> None:
    """Uncontended, the lock's check reads the session the turn loads, and the update
    fences itself: a read, then BEGIN, UPDATE, COMMIT."""
    alone = SqliteStore(tmp_path / "s.db")
    await alone.commit("s", {"n": 0}, expected_version=0)
    statements: list[str] = []
    alone._db.set_trace_callback(statements.append)
    async with alone.lock("s"):
        record = await alone.load("s")
        assert record is not None and record.data == {"n": 0}
        await alone.commit("s", {"n": 1}, expected_version=record.version)
    alone._db.set_trace_callback(None)
    assert [sql.split()[0].upper() for sql in statements] == ["SELECT", "BEGIN", "UPDATE",
                                                               "COMMIT"]
    await alone.close()


async def test_a_load_after_a_commit_in_the_same_lock_reads_the_new_version(
        tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db")
    async with store.lock("s"):
        assert await store.load("s") is None
        await store.commit("s", {"n": 1}, expected_version=0)
        again = await store.load("s")
        assert again is not None and (again.version, again.data) == (1, {"n": 1})
    async with store.lock("gone"):
        await store.commit("gone", {"n": 1}, expected_version=0)
    async with store.lock("gone"):
        await store.delete("gone")
        assert await store.load("gone") is None
    await store.close()


@pytest.mark.parametrize("final", [True, False])
async def test_an_update_without_a_lease_loses_to_a_process_that_took_the_session(
        tmp_path: Path, final: bool) -> None:
    alone = SqliteStore(tmp_path / "s.db")
    await alone.commit("s", {"n": 1}, expected_version=0)
    async with alone.lock("s"):
        record = await alone.load("s")
        assert record is not None
        late = SqliteStore(tmp_path / "s.db")
        assert late.try_lease("s")
        with pytest.raises(LeaseLost):
            await alone.commit("s", {"n": 2}, expected_version=record.version, final=final)
    after = await alone.load("s")
    assert after is not None and (after.version, after.data) == (1, {"n": 1})
    await alone.close()
    await late.close()


async def test_an_update_of_a_changed_session_is_a_version_conflict(tmp_path: Path) -> None:
    alone = SqliteStore(tmp_path / "s.db")
    await alone.commit("s", {"n": 1}, expected_version=0)
    async with alone.lock("s"):
        record = await alone.load("s")
        assert record is not None
        await alone.commit("s", {"n": 2}, expected_version=record.version)
        with pytest.raises(VersionConflict):
            await alone.commit("s", {"n": 3}, expected_version=record.version)
    after = await alone.load("s")
    assert after is not None and after.data == {"n": 2}
    await alone.close()


async def test_an_update_not_final_takes_the_lease_in_its_own_write(tmp_path: Path) -> None:
    alone = SqliteStore(tmp_path / "s.db")
    await alone.commit("s", {"journal": []}, expected_version=0)
    async with alone.lock("s"):
        await alone.commit("s", {"journal": "pending"}, expected_version=1, final=False)
        late = SqliteStore(tmp_path / "s.db")  # opened while the action's call runs
        assert not late.try_lease("s")
        await alone.commit("s", {"journal": "done"}, expected_version=2)
    assert late.try_lease("s")
    await alone.close()
    await late.close()


async def test_session_json_round_trips_exactly(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db")
    data = {"big": 2**70, "text": "엄마\u200d", "nested": {"n": [1.5, None, True]}}
    await store.commit("s", data, expected_version=0, completed=[{"amount": 2**64}])
    record = await store.load("s")
    assert record is not None and record.data == data and type(record.data["big"]) is int
    assert await store.completed("s") == [{"amount": 2**64}]
    await store.close()


_COUNTER = """
import asyncio, sys
from engine.store import SqliteStore

async def main(path: str, turns: int, tag: str) -> None:
    store = SqliteStore(path)
    async def turn(i: int) -> None:
        async with store.lock("shared"):
            record = await store.load("shared")
            data = record.data if record else {"log": []}
            await asyncio.sleep(0)  # let everything else in this process run
            data["log"].append(f"{tag}{i}")
            await store.commit("shared", data, expected_version=record.version if record else 0)
    await asyncio.gather(*(turn(i) for i in range(turns)))

asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
"""


def test_two_processes_on_one_file_lose_no_turn(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    SqliteStore(db)
    procs = [subprocess.Popen([sys.executable, "-c", _COUNTER, str(db), "40", tag], cwd=ROOT,
                              stderr=subprocess.PIPE, text=True) for tag in "ab"]
    for proc in procs:
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
    record = asyncio.run(SqliteStore(db).load("shared"))
    assert record is not None and record.version == 80
    log = record.data["log"]
    for tag in "ab":
        assert [x for x in log if x.startswith(tag)] == [f"{tag}{i}" for i in range(40)]
