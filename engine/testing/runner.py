"""A ``*.test.yaml`` file -> a ``ConversationResult`` per conversation, mismatches located.

Each conversation runs against an ``Engine`` on a fresh in-memory store with a fixed clock,
turn by turn, and every expectation a turn states is compared with what the turn produced
(``compare``). What each turn exercised is noted for the coverage report.
"""

from __future__ import annotations

import datetime as dt
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path as FilePath
from typing import Any

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import Settings, load_settings
from engine.runtime.calls.actions import ActionStub
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done
from engine.runtime.values.session import SessionState
from engine.source import SourceMap
from engine.store import MemoryStore
from engine.testing.compare import compare
from engine.testing.coverage import Fired, note_turn, observe
from engine.testing.names import check_names
from engine.testing.results import ConversationResult, Mismatch
from engine.testing.spec import ConversationSpec, TurnSpec, load_tests

TEST_COMMANDS = ("python -m pytest",)
"""What a test file's workspace may run: the runner allows it, never the flow or the test
file (``python`` is the interpreter flowctl runs on)."""


async def run_file(path: FilePath, *,
                   select: Callable[[str], bool] | None = None) -> list[ConversationResult]:
    """Run every conversation of the test file ``path`` against the flow it tests, or only
    those whose name ``select`` accepts (``flowctl test -k``)."""
    spec, source, flow_path = load_tests(path)
    service = compile_file(flow_path)
    check_names(spec, source, service)
    clock_time = dt.datetime.combine(spec.today, dt.time(9, 0)).astimezone()
    fired: list[Fired] = []
    workspace = path.parent / spec.workspace if spec.workspace is not None else None
    run = _Run(path, flow_path, source, observe(service, fired), load_settings(spec.env),
               clock_time, fired, workspace)
    return [await run.conversation(c, conversation)
            for c, conversation in enumerate(spec.conversations)
            if select is None or select(conversation.name)]


@dataclass
class _Run:
    """One test file's run: the service, its machines observed, logging into ``fired``."""

    path: FilePath
    flow_path: FilePath
    source: SourceMap
    service: CompiledService
    settings: Settings
    clock_time: dt.datetime
    fired: list[Fired]
    workspace: FilePath | None = None
    """The test file's workspace fixture, copied afresh for every conversation."""

    async def conversation(self, c: int, conversation: ConversationSpec) -> ConversationResult:
        if self.workspace is None:
            return await self._conversation(c, conversation, self.settings)
        with tempfile.TemporaryDirectory(prefix="flowctl-ws-") as tmp:
            root = FilePath(tmp) / "workspace"
            shutil.copytree(self.workspace, root, symlinks=True)
            settings = replace(self.settings, workspace_root=str(root.resolve()),
                               allowed_commands=TEST_COMMANDS,
                               command_programs={"python": sys.executable})
            return await self._conversation(c, conversation, settings)

    async def _conversation(self, c: int, conversation: ConversationSpec,
                            settings: Settings) -> ConversationResult:
        started = time.perf_counter()
        store = MemoryStore()
        stubs = {name: ActionStub(stub.result, stub.error)
                 for name, stub in conversation.stubs.items()}
        engine = Engine(self.service, store=store, settings=settings,
                        clock=lambda: self.clock_time, stubs=stubs)
        if conversation.slots:
            await store.commit(f"test-{c}", SessionState(slots=dict(conversation.slots))
                               .to_json(), expected_version=0)
        result = ConversationResult(str(self.path), conversation.name,
                                    self.source.locate(("conversations", c)),
                                    flow_file=str(self.flow_path))
        before: Mapping[str, Any] = {}
        try:
            for t, turn in enumerate(conversation.turns):
                before = await self._turn(engine, store, result, (c, t), turn, before,
                                          conversation.context)
        finally:
            await engine.aclose()  # its model clients, and the MCP servers it started
        result.seconds = time.perf_counter() - started
        return result

    async def _turn(self, engine: Engine, store: MemoryStore, result: ConversationResult,
                    where: tuple[int, int], turn: TurnSpec,
                    before: Mapping[str, Any],
                    context: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
        """Run one turn, note its mismatches and coverage; the state the next turn starts in."""
        c, t = where
        self.fired.clear()
        events = [e async for e in engine.turn(f"test-{c}", turn.user, context=context)]
        done = events[-1]
        assert isinstance(done, Done)
        result.stages.add(str(done.state_snapshot.get("stage")))
        location = self.source.locate(("conversations", c, "turns", t))
        records = await store.completed(f"test-{c}")
        completed = len(records)
        result.mismatches.extend(Mismatch(t + 1, turn.user, name, want, got, location)
                                 for name, want, got in compare(turn, events, done, completed))
        if turn.unmasked:  # a sensitive value as stored, not as DONE shows it
            record = await store.load(f"test-{c}")
            real = record.data.get("slots", {}) if record is not None else {}
            result.mismatches.extend(
                Mismatch(t + 1, turn.user, f"unmasked.{slot}", want, real.get(slot), location)
                for slot, want in turn.unmasked.items() if real.get(slot) != want)
        finished = records[before.get("completed", 0):]
        note_turn(result, self.fired, before, done.state_snapshot, finished)
        return {**done.state_snapshot, "completed": completed}
