"""An engine is composed with listeners (the flow's webhooks are one): each is told of every
DONE the engine sends, after its turn was saved, and closed with the engine."""

from __future__ import annotations

from typing import Any

from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done
from engine.store import MemoryStore


class CountingStore(MemoryStore):
    """Counts the commits that ended a turn."""

    def __init__(self) -> None:
        super().__init__()
        self.commits = 0

    async def commit(self, session_id: str, data: Any, **kw: Any) -> int:
        version = await super().commit(session_id, data, **kw)
        self.commits += 1
        return version


class Listener:
    def __init__(self, store: CountingStore) -> None:
        self.store = store
        self.told: list[tuple[str, str, int]] = []
        self.closed = False

    def done(self, session_id: str, done: Done) -> None:
        self.told.append((session_id, done.message, self.store.commits))

    async def aclose(self) -> None:
        self.closed = True


async def test_every_done_is_told_once_refusals_too(transfer: CompiledService) -> None:
    store = CountingStore()
    first, second = Listener(store), Listener(store)
    engine = Engine(transfer, store=store, listeners=[first, second])
    dones = [await engine.reply("s", m) for m in ("엄마한테 1만원 보내줘", "", "확인")]
    dones.append(await engine.reply("s", "잔액", owner="someone else"))  # not theirs
    assert dones[1].refusal is not None and dones[3].refusal is not None
    assert [(s, m) for s, m, _ in first.told] == [("s", d.message) for d in dones]
    assert first.told == second.told
    await engine.aclose()
    assert first.closed and second.closed


async def test_a_listener_hears_a_done_after_its_turn_was_saved(
        transfer: CompiledService) -> None:
    store = CountingStore()
    listener = Listener(store)
    engine = Engine(transfer, store=store, listeners=[listener])
    await engine.reply("s", "엄마한테 1만원 보내줘")
    await engine.reply("s", "")  # refused: nothing saved
    await engine.reply("s", "확인")  # the money moves: the journal is saved before the call
    assert [commits for _, _, commits in listener.told] == [1, 1, store.commits]
    assert store.commits >= 3


async def test_an_engine_without_listeners_streams_its_own_turn(
        transfer: CompiledService) -> None:
    engine = Engine(transfer, store=MemoryStore())
    events = [e async for e in engine.turn("s", "엄마한테 1만원 보내줘")]
    assert isinstance(events[-1], Done) and engine.listeners == ()
