"""One conversation played in process on a fresh memory store, for the tests of how messages
are read: the last DONE's snapshot and message, and the tasks the conversation finished."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.runtime.values.session import SessionState
from engine.store import MemoryStore

CLOCK = dt.datetime(2026, 3, 11, 9, 0).astimezone()
"""A Wednesday morning: the dates the tests name are read against it."""


@dataclass(frozen=True)
class Played:
    snapshot: dict[str, Any]
    message: str
    finished: list[dict[str, Any]]

    @property
    def stage(self) -> Any:
        return self.snapshot.get("stage")

    @property
    def slots(self) -> dict[str, Any]:
        return dict(self.snapshot.get("slots") or {})


async def play(service: CompiledService, messages: Sequence[str], *,
               slots: Mapping[str, Any] | None = None,
               context: Mapping[str, Any] | None = None) -> Played:
    """``messages`` in one session (starting with ``slots`` known), turn by turn."""
    store = MemoryStore()
    engine = Engine(service, store=store, settings=load_settings({}), clock=lambda: CLOCK)
    if slots:
        await store.commit("s", SessionState(slots=dict(slots)).to_json(), expected_version=0)
    snapshot: dict[str, Any] = {}
    message = ""
    try:
        for text in messages:
            done = [e async for e in engine.turn("s", text, context=context)][-1]
            snapshot, message = dict(done.state_snapshot), done.message  # type: ignore[union-attr]
        return Played(snapshot, message, await store.completed("s"))
    finally:
        await engine.aclose()
