"""Two real ``flowctl serve`` processes share one PostgreSQL database (a throwaway cluster):
a run started on one is listed, replayed and followed live on the other, a cancel asked
of the other stops it at its next heartbeat, and a message to either while the run holds
the session is answered at once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from engine.store.postgres import PostgresStore
from tests.pg_cluster import Cluster
from tests.runs.test_runs_http import chat, sse, wait_status
from tests.runs.worker import Worker
from tests.server.processes import Serve

FLOW = Path(__file__).parent / "flows" / "build.yaml"


@pytest.fixture
def pg(postgres: Cluster) -> str:
    PostgresStore(postgres.url)  # migrated
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        conn.execute("TRUNCATE flowctl_sessions, flowctl_completed, flowctl_runs, "
                     "flowctl_run_events")
    return str(postgres.url)


@pytest.fixture
def two(pg: str) -> Iterator[tuple[Serve, Serve, Worker]]:
    with Worker(hold=True) as worker:
        servers = [Serve(FLOW, "--store", pg, env={"WORKER_URL": worker.url})
                   for _ in range(2)]
        try:
            for server in servers:
                server.wait_ready()
            yield servers[0], servers[1], worker
        finally:
            worker.release()
            for server in servers:
                server.stop()


def test_a_run_on_one_instance_is_seen_and_cancelled_on_the_other(
        two: tuple[Serve, Serve, Worker]) -> None:
    a, b, worker = two
    run_id = chat(a, "s1", "build")["state_snapshot"]["meta"]["run"]["id"]
    assert worker.arrived.wait(10)
    listed = httpx.get(f"{b.url}/v1/runs", params={"session_id": "s1"}, timeout=5).json()
    assert [(r["id"], r["status"]) for r in listed["runs"]] == [(run_id, "running")]
    assert "still running" in chat(b, "s1", "done yet?")["message"]
    asked = httpx.post(f"{b.url}/v1/runs/{run_id}/cancel", timeout=10).json()
    assert asked["cancel_requested"] is True
    ended = wait_status(b, run_id, "cancelled")
    assert ended["summary"] == "The build was cancelled."
    frames = sse(b, run_id)
    assert frames[-1][2]["status"] == "cancelled" and frames[-2][1] == "DONE"
    assert worker.calls == {"compile": 1}


def test_a_run_is_followed_live_from_the_other_instance(
        two: tuple[Serve, Serve, Worker]) -> None:
    a, b, worker = two
    run_id = chat(a, "s1", "build")["state_snapshot"]["meta"]["run"]["id"]
    assert worker.arrived.wait(10)
    seen: list[str] = []
    with httpx.stream("GET", f"{b.url}/v1/runs/{run_id}/events", timeout=20) as response:
        for line in response.iter_lines():
            if line.startswith("event: "):
                seen.append(line.removeprefix("event: "))
                if seen == ["RUN_STATUS", "RUN_STATUS", "AGENT_START"]:
                    worker.release()  # the rest happens while B's stream is open
    assert seen[-2:] == ["DONE", "RUN_STATUS"] and seen.count("AGENT_START") == 2
    assert wait_status(a, run_id, "success")["summary"] == "The build passed."
