"""Runs over HTTP against a real ``flowctl serve`` subprocess (SQLite file) and a loopback
worker: the run id in DONE, the runs API, SSE replay and Last-Event-ID, cancel, strangers'
runs hidden, and a server killed mid-run whose run the next start marks ``interrupted``."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.runs.worker import Worker
from tests.server.processes import Serve

FLOW = Path(__file__).parent / "flows" / "build.yaml"
KEY_A = "key-a-0123456789abcdef0123456789"
KEY_B = "key-b-0123456789abcdef0123456789"


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def worker() -> Iterator[Worker]:
    with Worker(hold=True) as w:
        yield w


def serve(tmp_path: Path, worker: Worker, **env: str) -> Serve:
    return Serve(FLOW, "--store", f"sqlite:///{tmp_path / 'runs.db'}",
                 env={"WORKER_URL": worker.url, **env}).wait_ready()


def chat(server: Serve, session: str, message: str, key: str | None = None) -> dict[str, Any]:
    response = httpx.post(f"{server.url}/v1/agent/chat", json={"session_id": session,
                                                               "message": message},
                          headers=bearer(key) if key else {}, timeout=10)
    assert response.status_code == 200, response.text
    interaction: dict[str, Any] = response.json()["interaction"]
    return interaction


def sse(server: Serve, run_id: str, headers: dict[str, str] | None = None,
        ) -> list[tuple[str, str, Any]]:
    """(id, event, data) of every frame of the run's event stream, to its end."""
    frames: list[tuple[str, str, Any]] = []
    with httpx.stream("GET", f"{server.url}/v1/runs/{run_id}/events", headers=headers or {},
                      timeout=20) as response:
        if response.status_code == 204:
            return []
        assert response.status_code == 200
        current: dict[str, str] = {}
        for line in response.iter_lines():
            if not line:
                if "event" in current:
                    frames.append((current.get("id", ""), current["event"],
                                   json.loads(current["data"])))
                current = {}
                continue
            field, _, value = line.partition(": ")
            current[field] = value
    return frames


def wait_status(server: Serve, run_id: str, *wanted: str, key: str | None = None) -> Any:
    for _ in range(400):
        run = httpx.get(f"{server.url}/v1/runs/{run_id}", headers=bearer(key) if key else {},
                        timeout=5).json()
        if run["status"] in wanted:
            return run
        time.sleep(0.05)
    raise AssertionError(f"run stayed {run['status']}")


def test_a_run_is_listed_streamed_replayed_and_succeeds(tmp_path: Path, worker: Worker) -> None:
    server = serve(tmp_path, worker)
    try:
        done = chat(server, "s1", "build please")
        run_id = done["state_snapshot"]["meta"]["run"]["id"]
        assert done["message"] == "The build has started."
        assert worker.arrived.wait(10)
        listed = httpx.get(f"{server.url}/v1/runs", params={"session_id": "s1"}).json()
        assert [r["id"] for r in listed["runs"]] == [run_id]
        assert listed["runs"][0]["status"] == "running"
        busy = chat(server, "s1", "are you done?")
        assert "still running" in busy["message"]
        worker.release()
        frames = sse(server, run_id)
        assert [f[1] for f in frames][:2] == ["RUN_STATUS", "RUN_STATUS"]
        assert frames[-1][1:] == ("RUN_STATUS", {"run_id": run_id, "status": "success",
                                                 "summary": "The build passed."})
        assert frames[-2][1] == "DONE" and frames[-2][2]["state_snapshot"]["stage"] == "PASSED"
        assert [f[0] for f in frames] == [str(i) for i in range(1, len(frames) + 1)]
        tail = sse(server, run_id, {"Last-Event-ID": frames[-3][0]})
        assert tail == frames[-2:]
        assert sse(server, run_id, {"Last-Event-ID": frames[-1][0]}) == []  # 204: all sent
        run = httpx.get(f"{server.url}/v1/runs/{run_id}").json()
        assert run["status"] == "success" and run["summary"] == "The build passed."
    finally:
        server.stop()


def test_cancel_over_the_api_fires_the_flows_cancel(tmp_path: Path, worker: Worker) -> None:
    server = serve(tmp_path, worker)
    try:
        run_id = chat(server, "s1", "build")["state_snapshot"]["meta"]["run"]["id"]
        assert worker.arrived.wait(10)
        cancelled = httpx.post(f"{server.url}/v1/runs/{run_id}/cancel", timeout=10).json()
        assert cancelled["status"] == "cancelled"
        assert cancelled["summary"] == "The build was cancelled."
        assert worker.calls == {"compile": 1}
        again = httpx.post(f"{server.url}/v1/runs/{run_id}/cancel", timeout=10).json()
        assert again["status"] == "cancelled"  # ended runs stay as they are
        completed = httpx.get(f"{server.url}/v1/agent/completed",
                              params={"session_id": "s1"}).json()["completed"]
        assert [c["outcome"] for c in completed] == ["CANCELLED"]
    finally:
        worker.release()
        server.stop()


def test_a_strangers_runs_are_not_found(tmp_path: Path, worker: Worker) -> None:
    server = serve(tmp_path, worker, FLOWCTL_API_KEYS=f"{KEY_A},{KEY_B}")
    try:
        run_id = chat(server, "s1", "build", KEY_A)["state_snapshot"]["meta"]["run"]["id"]
        for session_id in ("s1", "never-used"):  # B's own "s1" has no runs, as any new id
            listed = httpx.get(f"{server.url}/v1/runs", params={"session_id": session_id},
                               headers=bearer(KEY_B), timeout=5)
            assert listed.json() == {"session_id": session_id, "runs": []}
        theirs = httpx.get(f"{server.url}/v1/runs", params={"session_id": "s1"},
                           headers=bearer(KEY_A), timeout=5).json()
        assert [r["session_id"] for r in theirs["runs"]] == ["s1"]  # as the client named it
        for method, path in [("GET", f"/v1/runs/{run_id}"), ("GET", f"/v1/runs/{run_id}/events"),
                             ("POST", f"/v1/runs/{run_id}/cancel")]:
            response = httpx.request(method, f"{server.url}{path}", headers=bearer(KEY_B),
                                     timeout=5)
            assert response.status_code == 404, (path, response.text)
            assert httpx.request(method, f"{server.url}{path}",
                                 timeout=5).status_code == 401
        mine = httpx.get(f"{server.url}/v1/runs/{run_id}", headers=bearer(KEY_A), timeout=5)
        assert mine.status_code == 200 and mine.json()["status"] in ("pending", "running")
    finally:
        worker.release()
        server.stop()


def test_a_server_killed_mid_run_marks_it_interrupted_when_it_starts(
        tmp_path: Path, worker: Worker) -> None:
    server = serve(tmp_path, worker)
    run_id = chat(server, "s1", "build")["state_snapshot"]["meta"]["run"]["id"]
    assert worker.arrived.wait(10)
    server.proc.send_signal(signal.SIGKILL)
    server.output()  # reaped, its pipe closed
    again = serve(tmp_path, worker)
    try:
        run = httpx.get(f"{again.url}/v1/runs/{run_id}").json()
        assert run["status"] == "interrupted" and run["ended_at"] is not None
        frames = sse(again, run_id)
        assert frames[-1][2]["status"] == "interrupted"
        worker.release()
        # the session waits in the background stage: the next message starts a new run
        restarted = chat(again, "s1", "try again")
        new_id = restarted["state_snapshot"]["meta"]["run"]["id"]
        assert new_id != run_id
        assert wait_status(again, new_id, "success")["summary"] == "The build passed."
    finally:
        again.stop()


def test_a_graceful_stop_ends_its_runs_interrupted(tmp_path: Path, worker: Worker) -> None:
    server = serve(tmp_path, worker)
    run_id = chat(server, "s1", "build")["state_snapshot"]["meta"]["run"]["id"]
    assert worker.arrived.wait(10)
    server.stop()
    again = serve(tmp_path, worker)
    try:
        assert httpx.get(f"{again.url}/v1/runs/{run_id}").json()["status"] == "interrupted"
    finally:
        worker.release()
        again.stop()
