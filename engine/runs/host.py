"""The engine's background runs in this process: start, record, cancel, follow, recover.

``Runs(engine, log)`` becomes ``engine.runs``. When a committed turn asked for a run
(``begin``), the run is recorded ``pending`` and started as a task of its own; it takes the
session's lock, goes ``running``, records every event it produces (the turn's wire events,
then ``RUN_STATUS`` at each status) and ends ``success`` or ``failed`` (a stage marked
``failed``, or an error), ``cancelled`` or ``interrupted``. A message for a session a run
holds is answered at once (``intercept``): a cancel word cancels the run, anything else
says a run is going on; it never waits for the run's lock.

``watch`` beats the heartbeat of this process's runs, cancels the ones whose cancel another
instance asked for, and marks ``interrupted`` the runs of processes that are gone (a dead
pid on this machine, or a heartbeat older than ``stale``); ``start`` does the latter once
before the server answers, so a restart never leaves a run ``running`` for ever.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from engine.nlu import yes_no
from engine.runs.execute import Outcome, run_stage
from engine.runs.log import ACTIVE, FINAL, RunEvent, RunLog, Runner, RunRecord, Status
from engine.runtime.engine import Engine, plain_done
from engine.runtime.values.events import Done, Event, wire
from engine.runtime.values.session import RunRef, SessionState
from engine.store.sqlite import _gone, _machine, _started

log = logging.getLogger("flowctl.runs")
STATUS = "RUN_STATUS"


class Runs:
    """Hosts ``engine``'s background runs, recorded in ``log``."""

    def __init__(self, engine: Engine, runs: RunLog, *, heartbeat: float = 2.0,
                 stale: float = 30.0, keep_days: float | None = None) -> None:
        self.engine, self.log = engine, runs
        self.heartbeat, self.stale = heartbeat, stale
        self.keep_days = keep_days
        """Runs that ended longer ago are deleted, at start-up and hourly (None: kept)."""
        self._expired_at = 0.0
        self.me = Runner(uuid.uuid4().hex, _machine(), os.getpid(), _started(os.getpid()))
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.stopping = False
        self._changed = asyncio.Event()
        self.enabled = any(st.background for f in engine.service.flows.values()
                           for st in f.stages.values())
        engine.runs = self

    # -- the engine's side (RunHost) --------------------------------------------------------

    async def intercept(self, session_id: str, message: str,
                        owner: str | None) -> Done | None:
        if not self.enabled:
            return None
        run = await self.log.active(session_id)
        if run is None:
            return await self._cancel_waiting(session_id, message, owner)
        if run.owner != owner:
            return None  # a stranger's session: the turn refuses it as usual
        if yes_no(message, self._words(run)) == "cancel":
            return await self._cancelled_by_word(run)
        return await self._answer(session_id, self.engine.text("run_busy", run=run.id))

    async def begin(self, session_id: str, ref: RunRef, owner: str | None) -> None:
        now = time.time()
        await self.log.create(RunRecord(ref["id"], session_id, owner, ref["flow"], ref["stage"],
                                        "pending", now, self.me, now))
        await self._status(ref["id"], "pending")
        self.tasks[ref["id"]] = asyncio.create_task(self._run(session_id, ref),
                                                    name=f"run {ref['id']}")

    # -- the API's side ---------------------------------------------------------------------

    async def cancel(self, run_id: str) -> RunRecord | None:
        """Cancel a pending or running run (here at once; on another instance at its next
        heartbeat); the run as it is afterwards."""
        task = self.tasks.get(run_id)
        if task is not None:
            task.cancel()
            await asyncio.wait([task])
        else:
            await self.log.request_cancel(run_id)
        return await self.log.get(run_id)

    async def follow(self, run_id: str, after: int = 0) -> AsyncIterator[RunEvent]:
        """The run's events after the ``after``-th, live, until its final status."""
        while True:
            changed = self._changed
            events = await self.log.events(run_id, after)
            for event in events:
                yield event
                after = event.seq
                if event.name == STATUS and event.data.get("status") in FINAL:
                    return
            if not events:
                run = await self.log.get(run_id)
                if run is None or (run.status in FINAL and not await self.log.events(run_id,
                                                                                     after)):
                    return
                try:  # woken by this process's runs; other instances' are polled
                    await asyncio.wait_for(changed.wait(), timeout=1.0)
                except TimeoutError:
                    pass

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        """Before serving: mark ``interrupted`` the runs of processes that are gone, and
        delete the ones past retention."""
        await self.sweep()
        await self.expire()

    async def expire(self, *, every: float = 3600.0) -> int:
        """Delete the runs that ended more than ``keep_days`` ago (at most once ``every``
        seconds); how many."""
        now = time.monotonic()
        if self.keep_days is None or (self._expired_at and now - self._expired_at < every):
            return 0
        self._expired_at = now
        gone = await self.log.expire(self.keep_days * 86400)
        if gone:
            log.info("retention: deleted %d run(s) older than %g days", gone, self.keep_days)
        return gone

    async def watch(self) -> None:
        """Heartbeats, cancels asked of other instances, and the sweep, for ever."""
        while True:
            await asyncio.sleep(self.heartbeat)
            try:
                for run_id in await self.log.beat(list(self.tasks)):
                    if run_id in self.tasks:
                        self.tasks[run_id].cancel()
                await self.sweep()
                await self.expire()
            except Exception as err:  # the store is down: try again at the next beat
                log.error("runs: heartbeat failed: %s: %s", type(err).__name__, err)

    async def stop(self, timeout: float) -> None:
        """At shutdown: the runs still going end ``interrupted``."""
        self.stopping = True
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    async def sweep(self) -> int:
        """Mark ``interrupted`` every unfinished run whose runner is gone; how many."""
        count = 0
        now = time.time()
        for run in await self.log.unfinished():
            if run.runner.instance == self.me.instance or not self._gone(run, now):
                continue
            count += await self._end(run.id, "interrupted",
                                     self.engine.text("run_interrupted"))
        if count:
            log.warning("runs: marked %d run(s) of stopped processes interrupted", count)
        return count

    def _gone(self, run: RunRecord, now: float) -> bool:
        r = run.runner
        if r.machine == self.me.machine and _gone(r.pid, r.started):
            return True
        return now - run.heartbeat > self.stale

    # -- a run ------------------------------------------------------------------------------

    async def _run(self, session_id: str, ref: RunRef) -> None:
        run_id, outcome = ref["id"], Outcome()
        try:
            await self.log.move(run_id, "running", source=("pending",),
                                event=(STATUS, {"run_id": run_id, "status": "running"}))
            self._notify()
            async for event in run_stage(self.engine, session_id, ref, outcome):
                await self._record(run_id, event)
        except asyncio.CancelledError:
            await self._stopped(session_id, ref)
            return
        except Exception as err:
            log.error("run %s of session %s failed: %s: %s", run_id, session_id,
                      type(err).__name__, err)
            await self._end(run_id, "failed", self.engine.text("turn_failed"))
            return
        finally:
            self.tasks.pop(run_id, None)
        if outcome.done is None:
            await self._end(run_id, "cancelled", self.engine.text("run_outdated"))
        else:
            await self._end(run_id, "failed" if outcome.failed else "success",
                            outcome.done.message)

    async def _stopped(self, session_id: str, ref: RunRef) -> None:
        """A cancelled run: interrupted at shutdown; else the flow's ``cancel`` fires."""
        run_id = ref["id"]
        self.tasks.pop(run_id, None)
        if self.stopping:
            await self._end(run_id, "interrupted", self.engine.text("run_interrupted"))
            return
        outcome = Outcome()
        try:
            async for event in run_stage(self.engine, session_id, ref, outcome, cancel=True):
                await self._record(run_id, event)
        except Exception as err:
            log.error("run %s: cancelling session %s failed: %s: %s", run_id, session_id,
                      type(err).__name__, err)
        message = outcome.done.message if outcome.done else ""
        await self._end(run_id, "cancelled", message or self.engine.text("run_cancelled"))

    async def _record(self, run_id: str, event: Event) -> None:
        name, payload = wire(event)
        await self.log.append(run_id, name, payload)
        self._notify()

    async def _status(self, run_id: str, status: Status) -> None:
        await self.log.append(run_id, STATUS, {"run_id": run_id, "status": status})
        self._notify()

    async def _end(self, run_id: str, status: Status, summary: str) -> bool:
        """End the run with ``status`` (and its final ``RUN_STATUS``) unless it has ended."""
        body = {"run_id": run_id, "status": status, "summary": summary}
        if not await self.log.move(run_id, status, source=ACTIVE, summary=summary,
                                   event=(STATUS, body)):
            return False
        self._notify()
        return True

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    # -- a message while a run holds the session ------------------------------------------

    def _words(self, run: RunRecord) -> Any:
        flow = self.engine.service.flows.get(run.flow)
        stage = flow.stages.get(run.stage) if flow else None
        return (stage.words if stage and stage.words else None) or self.engine.service.words

    async def _cancelled_by_word(self, run: RunRecord) -> Done:
        after = await self.cancel(run.id)
        if after is not None and after.status in FINAL:
            done = await self._last_done(run.id)
            if done is not None:
                return done
            return await self._answer(run.session_id, after.summary or "")
        return await self._answer(run.session_id, self.engine.text("run_cancelling"))

    async def _cancel_waiting(self, session_id: str, message: str,
                              owner: str | None) -> Done | None:
        """A cancel word for a session whose last run was interrupted or failed (it still
        waits in the run's stage): the flow's ``cancel`` fires there, even in a flow that
        reads no cancel words, instead of a new run starting."""
        last = await self.log.recent(session_id, 1)
        if not last or last[0].owner != owner or last[0].status not in ("interrupted",
                                                                         "failed"):
            return None
        if yes_no(message, self._words(last[0])) != "cancel":
            return None
        run, outcome = last[0], Outcome()
        ref = RunRef(id=run.id, flow=run.flow, stage=run.stage)
        async for _ in run_stage(self.engine, session_id, ref, outcome, cancel=True):
            pass
        return outcome.done

    async def _last_done(self, run_id: str) -> Done | None:
        """The DONE the run's cancellation ended with, as the answer to the cancel word."""
        for event in reversed(await self.log.events(run_id)):
            if event.name == "DONE":
                p = event.data
                return Done(message=p["message"], next_action=p["next_action"],
                            ui_hint=p["ui_hint"], state_snapshot=p["state_snapshot"],
                            hooks=p["hooks"], trace=p["_trace"])
        return None

    async def _answer(self, session_id: str, message: str) -> Done:
        record = await self.engine.store.load(session_id)
        state = SessionState.from_json(record.data if record else None)
        return plain_done(message, state, self.engine.service, f"{uuid.uuid4().hex[:8]}",
                          time.perf_counter())


__all__ = ["STATUS", "Runs"]
