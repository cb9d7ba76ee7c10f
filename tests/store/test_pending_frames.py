"""Every store lists a session whose pending action waits under another flow.

A user may begin another flow while an irreversible action's outcome is unknown: the
waiting task's journal then sits in a stack frame, not at the top of the session. The
store's ``pending_sessions`` (start-up, the background rounds, ``/v1/admin/pending``, the
gauge) must still find it — on memory, SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from engine.store.base import SessionStore
from tests.test_pending_meanwhile import frame_pending

ENTRY = {"action": "send_money", "key": "t:send_money", "status": "pending"}


async def test_every_store_lists_a_task_waiting_under_another_flow(
        store: SessionStore) -> None:
    await store.commit("top", {"journal": {"send_money": ENTRY}}, expected_version=0)
    await store.commit("under", frame_pending({"journal": {"send_money": ENTRY}}),
                       expected_version=0)
    await store.commit("done", {"journal": {"send_money": {**ENTRY, "status": "done"}}},
                       expected_version=0)
    assert sorted(await store.pending_sessions()) == ["top", "under"]
    settled = frame_pending({"journal": {"send_money": {**ENTRY, "status": "done"}}})
    await store.commit("under", settled, expected_version=1)
    assert sorted(await store.pending_sessions()) == ["top"]
