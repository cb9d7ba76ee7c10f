"""Raw history due for folding -> its summary, written in the background after the turn.

Folding never adds a model call to a turn: when the history reaches its threshold, the
summary model is asked after the turn, in a task of its own, with a copy of the turns to
fold; a later turn of the same session (on this process) applies the summary at its start,
if its history still begins with those turns, and commits it with everything else. So no
write ever happens outside a turn and its lock. Without a live summary model, or when its
call failed, the deterministic summary (``memory.offline_summary``) is used, at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from engine.runtime.calls.agent import ModelCall
from engine.runtime.calls.memory import MemoryPolicy, split_for_folding, summarise
from engine.runtime.calls.memory import fold as fold_turns
from engine.runtime.calls.models import LiveModel, ModelPool
from engine.runtime.calls.trace import Tracer
from engine.runtime.values.session import SessionState


@dataclass(slots=True)
class _Fold:
    task: asyncio.Task[str | None]
    folded: list[dict[str, str]]
    tracer: Tracer


class BackgroundFolds:
    """Summaries being written, one at most per session."""

    def __init__(self) -> None:
        self._folds: dict[str, _Fold] = {}

    def start(self, session_id: str, state: SessionState, policy: MemoryPolicy,
              models: ModelPool, call_of: Callable[[LiveModel, Tracer], ModelCall]) -> None:
        """After a turn whose history is due: fold offline now, or start the model's summary."""
        folded, _ = split_for_folding(state.raw_history, policy)
        if not folded or session_id in self._folds:
            return
        live = models.summary(policy.summary_model)
        if live is None or not live.breaker.allow():
            fold_turns(state, folded, None)
            return
        tracer = Tracer(redact=True)
        task = asyncio.create_task(summarise(call_of(live, tracer), policy.system,
                                             state.summary_text, [dict(h) for h in folded]))
        self._folds[session_id] = _Fold(task, [dict(h) for h in folded], tracer)

    def apply(self, session_id: str, state: SessionState, tracer: Tracer) -> None:
        """At the start of a turn: a summary written since goes in (its call is traced)."""
        fold = self._folds.get(session_id)
        if fold is None or not fold.task.done():
            return
        del self._folds[session_id]
        summary = None if fold.task.cancelled() or fold.task.exception() else fold.task.result()
        tracer.entries.extend(fold.tracer.entries)
        size = len(fold.folded)
        if state.raw_history[:size] != fold.folded:
            return  # the session changed meanwhile (reset, another process): fold again later
        fold_turns(state, fold.folded, summary)

    async def settled(self) -> None:
        """Wait for every summary being written (tests, benchmarks, shutdown)."""
        tasks = [fold.task for fold in self._folds.values()]
        if tasks:
            await asyncio.wait(tasks)

    async def aclose(self) -> None:
        for fold in self._folds.values():
            fold.task.cancel()
        await self.settled()
        self._folds.clear()


__all__ = ["BackgroundFolds"]
