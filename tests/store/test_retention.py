"""Deleting a session, expiring old ones, finding the ones a dead process left pending:
the same behaviour from every store."""

from __future__ import annotations

import asyncio

from engine.store.base import SessionStore


async def test_delete_forgets_the_session_and_its_completed_tasks(store: SessionStore) -> None:
    await store.commit("a", {"stage": "X"}, expected_version=0, completed=[{"outcome": "E"}])
    await store.commit("b", {"stage": "Y"}, expected_version=0, completed=[{"outcome": "F"}])
    assert await store.delete("a") is True
    assert await store.load("a") is None and await store.completed("a") == []
    assert await store.delete("a") is False
    assert (await store.load("b")) is not None and await store.completed("b") == [{"outcome": "F"}]


async def test_expire_deletes_only_what_is_older_than_the_ttl(store: SessionStore) -> None:
    await store.commit("old", {"n": 1}, expected_version=0, completed=[{"outcome": "E"}])
    await asyncio.sleep(0.3)
    await store.commit("new", {"n": 2}, expected_version=0)
    assert await store.expire(0.2) == 1
    assert await store.load("old") is None and await store.completed("old") == []
    assert await store.load("new") is not None
    assert await store.expire(60) == 0


async def test_pending_sessions_are_the_ones_with_a_pending_journal_entry(
        store: SessionStore) -> None:
    entry = {"action": "pay", "key": "k", "args": {}, "ok": "paid", "error": None,
             "result": None}
    await store.commit("dead", {"journal": {"pay": {**entry, "status": "pending"}}},
                       expected_version=0)
    await store.commit("fine", {"journal": {"pay": {**entry, "status": "done"}}},
                       expected_version=0)
    await store.commit("none", {"journal": {}}, expected_version=0)
    assert await store.pending_sessions() == ["dead"]
