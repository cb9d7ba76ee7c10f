"""Background runs in process: a real engine on a real SQLite file, a loopback worker.

The turn that reaches the background stage answers at once with the run's id; the run then
records its events and ends success / failed / cancelled; a message while it runs is
answered without waiting; a cancel word cancels it and the flow's `cancel` fires.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.config import Settings
from engine.runs import Runs, SqliteRunLog
from engine.runtime.engine import Engine
from engine.store import SqliteStore
from tests.fakes.llm_servers import FakeLLMServer, FakeReply
from tests.runs.worker import Worker

FLOW = Path(__file__).parent / "flows" / "build.yaml"


@pytest.fixture
async def host(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Runs]:
    worker: Worker = request.param if hasattr(request, "param") else Worker()
    with worker:
        store = SqliteStore(tmp_path / "s.db")
        engine = Engine(compile_file(FLOW), store=store,
                        settings=Settings(env={"WORKER_URL": worker.url}))
        runs = Runs(engine, SqliteRunLog(str(tmp_path / "s.db")))
        runs.worker = worker  # type: ignore[attr-defined]
        yield runs
        await runs.stop(5)
        await engine.aclose()
        await store.close()


async def ended(runs: Runs, run_id: str) -> str:
    for _ in range(2000):  # 20 s: "it ended", never "it ended quickly"
        run = await runs.log.get(run_id)
        assert run is not None
        if run.status not in ("pending", "running"):
            return run.status
        await asyncio.sleep(0.01)
    raise AssertionError("the run did not end")


async def names(runs: Runs, run_id: str) -> list[tuple[str, object]]:
    return [(e.name, e.data.get("status") if e.name == "RUN_STATUS" else None)
            for e in await runs.log.events(run_id)]


async def test_a_run_starts_after_the_turn_and_ends_success(host: Runs) -> None:
    done = await host.engine.reply("s1", "build it")
    assert done.message == "The build has started."
    run = done.state_snapshot["meta"]["run"]
    assert run["stage"] == "RUNNING" and done.state_snapshot["stage"] == "RUNNING"
    assert await ended(host, run["id"]) == "success"
    events = await names(host, run["id"])
    assert events[:2] == [("RUN_STATUS", "pending"), ("RUN_STATUS", "running")]
    assert ("AGENT_START", None) in events and events[-2:] == [("DONE", None),
                                                                 ("RUN_STATUS", "success")]
    record = await host.log.get(run["id"])
    assert record is not None and record.summary == "The build passed."
    assert host.worker.calls == {"compile": 1, "test": 1}  # type: ignore[attr-defined]
    completed = await host.engine.store.completed("s1")
    assert [c["outcome"] for c in completed] == ["PASSED"]


@pytest.mark.parametrize("host", [Worker(fail=True)], indirect=True)
async def test_a_run_that_ends_in_a_failed_stage_is_failed(host: Runs) -> None:
    done = await host.engine.reply("s1", "build it")
    run_id = done.state_snapshot["meta"]["run"]["id"]
    assert await ended(host, run_id) == "failed"
    record = await host.log.get(run_id)
    assert record is not None and record.summary == "The build failed."


@pytest.mark.parametrize("host", [Worker(hold=True)], indirect=True)
async def test_a_message_during_a_run_is_answered_at_once_and_cancel_cancels(
        host: Runs) -> None:
    worker = host.worker  # type: ignore[attr-defined]
    done = await host.engine.reply("s1", "build it")
    run_id = done.state_snapshot["meta"]["run"]["id"]
    await asyncio.to_thread(worker.arrived.wait, 10)
    busy = await asyncio.wait_for(host.engine.reply("s1", "how is it going?"), 5)
    assert run_id in busy.message and "still running" in busy.message
    cancelled = await asyncio.wait_for(host.engine.reply("s1", "cancel"), 10)
    assert cancelled.message == "The build was cancelled."
    assert await ended(host, run_id) == "cancelled"
    assert (await names(host, run_id))[-1] == ("RUN_STATUS", "cancelled")
    completed = await host.engine.store.completed("s1")
    assert [c["outcome"] for c in completed] == ["CANCELLED"]
    worker.release()


@pytest.mark.parametrize("host", [Worker(hold=True)], indirect=True)
async def test_follow_replays_then_streams_live_to_the_end(host: Runs) -> None:
    worker = host.worker  # type: ignore[attr-defined]
    done = await host.engine.reply("s1", "build it")
    run_id = done.state_snapshot["meta"]["run"]["id"]
    await asyncio.to_thread(worker.arrived.wait, 10)
    seen: list[str] = []

    async def watch() -> None:
        async for event in host.follow(run_id):
            seen.append(event.name)

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.2)
    assert seen[:2] == ["RUN_STATUS", "RUN_STATUS"] and "DONE" not in seen
    worker.release()
    await asyncio.wait_for(watcher, 10)
    assert seen[-2:] == ["DONE", "RUN_STATUS"]
    again = [e.seq async for e in host.follow(run_id, after=3)]
    assert again[0] == 4 and len(again) == len(seen) - 3


async def test_without_a_host_the_steps_run_inside_the_turn(tmp_path: Path) -> None:
    with Worker() as worker:
        engine = Engine(compile_file(FLOW), store=SqliteStore(tmp_path / "s.db"),
                        settings=Settings(env={"WORKER_URL": worker.url}))
        done = await engine.reply("s1", "build it")
        assert done.message == "The build has started. The build passed."
        assert "run" not in done.state_snapshot["meta"]
        await engine.aclose()


@pytest.mark.parametrize("host", [Worker(hold=True)], indirect=True)
async def test_a_cancel_word_after_an_interruption_cancels_the_flow(host: Runs) -> None:
    worker = host.worker  # type: ignore[attr-defined]
    done = await host.engine.reply("s1", "build it")
    run_id = done.state_snapshot["meta"]["run"]["id"]
    await asyncio.to_thread(worker.arrived.wait, 10)
    await host.stop(5)  # as a server stopping mid-run does
    run = await host.log.get(run_id)
    assert run is not None and run.status == "interrupted"
    worker.release()
    host.stopping = False
    cancelled = await host.engine.reply("s1", "cancel")
    assert cancelled.message == "The build was cancelled."
    assert [c["outcome"] for c in await host.engine.store.completed("s1")] == ["CANCELLED"]
    assert len(await host.log.recent("s1", 10)) == 1  # no new run started


async def test_retention_deletes_ended_runs_at_start_up(host: Runs) -> None:
    done = await host.engine.reply("s1", "build it")
    run_id = done.state_snapshot["meta"]["run"]["id"]
    assert await ended(host, run_id) == "success"
    await host.start()  # no retention configured: kept
    assert await host.log.get(run_id) is not None
    await asyncio.sleep(0.05)
    keeper = Runs(host.engine, host.log, keep_days=0.01 / 86400)  # 10 ms
    await keeper.start()
    assert await host.log.get(run_id) is None and await host.log.events(run_id) == []
    assert await keeper.expire() == 0  # at most hourly


async def test_a_runs_model_call_gets_the_deadline_from_its_own_start(tmp_path: Path) -> None:
    """A run outlives the turn deadline (here 1.5 s; the compile takes 1.8): its model
    call is bounded from when it starts, so the model still answers. (A deadline counted
    from the turn would have nothing left.) The SDK is imported before the clock starts: a
    loaded machine's first import of it is not what this tells apart."""
    import openai  # noqa: F401
    with Worker(hold=True) as worker, FakeLLMServer(default=FakeReply("Looks good.")) as llm:
        store = SqliteStore(tmp_path / "s.db")
        engine = Engine(compile_file(FLOW.with_name("review.yaml")), store=store,
                        settings=Settings(env={"WORKER_URL": worker.url, **llm.env()},
                                          turn_deadline_ms=1500))
        runs = Runs(engine, SqliteRunLog(str(tmp_path / "s.db")))
        try:
            done = await engine.reply("s1", "review it")
            run_id = done.state_snapshot["meta"]["run"]["id"]
            await asyncio.sleep(1.8)
            worker.release()
            assert await ended(runs, run_id) == "success"
            events = await runs.log.events(run_id)
            assert [e.data["message"] for e in events if e.name == "LLM_DONE"] == ["Looks good."]
            assert len(llm.requests) == 1
        finally:
            await runs.stop(5)
            await engine.aclose()
            await store.close()
