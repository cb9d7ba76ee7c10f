"""Every store keeps the same contract (memory, SQLite, PostgreSQL: the `store` fixture of
conftest.py): versioned records, completed tasks, FIFO locks."""

from __future__ import annotations

import asyncio
import doctest
import importlib
from pathlib import Path

import pytest

from engine.errors import FlowRuntimeError
from engine.store import MemoryStore, SqliteStore, VersionConflict, open_store
from engine.store.base import SessionLocks, SessionStore


async def test_commit_then_load_returns_the_new_version(store: SessionStore) -> None:
    assert await store.load("s") is None
    assert await store.commit("s", {"stage": "READY", "slots": {"target": "엄마"}},
                              expected_version=0) == 1
    record = await store.load("s")
    assert record is not None
    assert (record.version, record.data["slots"]["target"]) == (1, "엄마")
    assert await store.commit("s", {"stage": "EXECUTED"}, expected_version=1) == 2


@pytest.mark.parametrize("expected", [0, 2, 7])
async def test_stale_commit_raises_version_conflict(store: SessionStore, expected: int) -> None:
    await store.commit("s", {"n": 1}, expected_version=0)
    with pytest.raises(VersionConflict):
        await store.commit("s", {"n": 2}, expected_version=expected)
    record = await store.load("s")
    assert record is not None and record.data == {"n": 1}


async def test_completed_is_written_with_the_session_and_kept_per_session(
        store: SessionStore) -> None:
    await store.commit("a", {}, expected_version=0, completed=[{"outcome": "EXECUTED", "n": 1}])
    await store.commit("a", {}, expected_version=1, completed=[{"outcome": "CANCELLED", "n": 2}])
    await store.commit("b", {}, expected_version=0, completed=[{"outcome": "EXECUTED", "n": 3}])
    assert [c["n"] for c in await store.completed("a")] == [1, 2]
    assert [c["n"] for c in await store.completed("b")] == [3]
    assert await store.completed("nobody") == []


async def test_a_conflicting_commit_stores_no_completed_task(store: SessionStore) -> None:
    await store.commit("s", {}, expected_version=0)
    with pytest.raises(VersionConflict):
        await store.commit("s", {}, expected_version=0, completed=[{"outcome": "EXECUTED"}])
    assert await store.completed("s") == []


async def test_later_mutation_of_committed_data_does_not_leak(store: SessionStore) -> None:
    data = {"slots": {"amount": 10000}}
    await store.commit("s", data, expected_version=0)
    data["slots"]["amount"] = 99
    record = await store.load("s")
    assert record is not None and record.data["slots"]["amount"] == 10000


async def test_lock_serialises_one_session_in_arrival_order(store: SessionStore) -> None:
    order: list[str] = []

    async def turn(name: str) -> None:
        async with store.lock("s"):
            order.append(f"{name}+")
            await asyncio.sleep(0.005)
            order.append(f"{name}-")

    await asyncio.gather(*(turn(str(i)) for i in range(8)))
    assert order == [f"{i}{sign}" for i in range(8) for sign in "+-"]


async def test_lock_lets_different_sessions_run_together(store: SessionStore) -> None:
    inside = 0
    most = 0

    async def turn(session_id: str) -> None:
        nonlocal inside, most
        async with store.lock(session_id):
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.3)  # longer than a PostgreSQL pool takes to grow
            inside -= 1

    await asyncio.gather(*(turn(f"s{i}") for i in range(5)))
    assert most == 5


async def test_session_locks_forget_sessions_nobody_holds() -> None:
    locks = SessionLocks()
    async with locks("a"), locks("b"):
        assert len(locks) == 2
    assert len(locks) == 0


async def test_a_waiter_cancelled_before_its_turn_leaves_no_lock_behind() -> None:
    locks = SessionLocks()
    async with locks("a"):
        waiter = asyncio.create_task(locks("a").__aenter__())
        await asyncio.sleep(0.01)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert len(locks) == 1  # only the holder
    assert len(locks) == 0
    async with locks("a"):  # and the lock is free again
        pass


@pytest.mark.parametrize("url, kind", [
    ("memory://", MemoryStore),
    ("sqlite:///{tmp}/x.db", SqliteStore),
    ("{tmp}/bare.db", SqliteStore),
])
def test_open_store_understands_urls(url: str, kind: type, tmp_path: Path) -> None:
    assert isinstance(open_store(url.format(tmp=tmp_path)), kind)


@pytest.mark.parametrize("url, message", [
    ("redis://localhost", "unknown store"),
    ("sqlite://", "names no file"),
])
def test_open_store_rejects_unknown_urls(url: str, message: str) -> None:
    with pytest.raises(FlowRuntimeError, match=message):
        open_store(url)


@pytest.mark.parametrize("name", ["sqlite", "memory", "urls"])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(f"engine.store.{name}"))
    assert (result.failed, result.attempted > 0) == (0, True)


def test_the_store_is_the_option_then_flowctl_store_then_the_default() -> None:
    from engine.config import store_url

    env = {"FLOWCTL_STORE": " postgresql://db/flowctl "}
    assert store_url(None, "memory://", {}) == "memory://"
    assert store_url(None, "memory://", env) == "postgresql://db/flowctl"
    assert store_url("sqlite:///s.db", "memory://", env) == "sqlite:///s.db"
