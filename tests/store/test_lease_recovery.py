"""Leases recover from crashes: a lease whose process was SIGKILLed is taken at once (by a
store opened afterwards, by a waiter already polling, by a restarted ``flowctl serve``),
while a live process's lease is waited for and a stalled one cannot commit over the process
that took its session over. Every holder is a real process using the store's public API."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from engine.store import LeaseLost, SqliteStore

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

# Holds the lease on argv[2] and says "held"; on a line from stdin commits (if argv[4] says
# so) and prints what happened. The event loop keeps running meanwhile, renewing the lease.
# A second store registered on the file first (as another worker would be) makes the turn
# take a lease: a store alone on its file takes none until a commit that is not final.
_HOLDER = """
import asyncio, sys
from engine.store import SqliteStore

async def main(path: str, session_id: str, lease_seconds: float, commit: bool) -> None:
    neighbour = SqliteStore(path)
    store = SqliteStore(path, lease_seconds=lease_seconds)
    async with store.lock(session_id):
        record = await store.load(session_id)
        print("held", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        if commit:
            try:
                await store.commit(session_id, {"by": "holder"},
                                   expected_version=record.version if record else 0)
                print("committed", flush=True)
            except Exception as err:
                print(type(err).__name__, flush=True)
    await store.close()

asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4] == "commit"))
"""


class Holder:
    """A process holding the lease on ``session_id`` until told to go on."""

    def __init__(self, db: Path, session_id: str, *, lease_seconds: float,
                 commit: bool = False) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _HOLDER, str(db), session_id, str(lease_seconds),
             "commit" if commit else "hold"],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        assert line == "held", (line, self.proc.stderr.read() if self.proc.stderr else "")

    def go_on(self) -> str:
        """Let it finish its turn; what it printed."""
        out, err = self.proc.communicate("go\n", timeout=20)
        assert self.proc.returncode == 0, err
        return out.strip()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)


@pytest.fixture
def holders() -> Iterator[list[Holder]]:
    made: list[Holder] = []
    yield made
    for holder in made:
        if holder.proc.poll() is None:
            holder.proc.kill()
        holder.proc.communicate(timeout=20)


def lease_row(db: Path, session_id: str) -> tuple[str, float] | None:
    """The lease row of ``session_id`` as every process sees it: (owner, until)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT owner, until FROM leases WHERE id = ?",
                            (session_id,)).fetchone()


async def timed_lock(store: SqliteStore, session_id: str) -> float:
    started = time.monotonic()
    async with store.lock(session_id):
        return time.monotonic() - started


async def test_a_store_opened_after_a_crash_finds_the_lease_free(tmp_path: Path,
                                                                 holders: list[Holder]) -> None:
    db = tmp_path / "s.db"
    holders.append(holder := Holder(db, "s", lease_seconds=60))  # a turn in flight...
    holder.kill()  # ...killed: its lease would last another minute
    holder.proc.wait()
    assert lease_row(db, "s") is not None
    started = time.monotonic()
    store = SqliteStore(db)  # what a restarted server does first
    assert lease_row(db, "s") is None  # the dead owner's lease went at open
    waited = await timed_lock(store, "s")
    assert time.monotonic() - started < 10.0 and waited < 5.0  # the lease had 60 s left
    await store.close()


async def test_a_waiter_takes_the_lease_as_soon_as_its_holder_is_killed(
        tmp_path: Path, holders: list[Holder]) -> None:
    db = tmp_path / "s.db"
    holders.append(holder := Holder(db, "s", lease_seconds=60))
    waiter = SqliteStore(db)  # opened while the holder lives: nothing to reclaim yet
    assert not waiter.try_lease("s")
    waiting = asyncio.create_task(timed_lock(waiter, "s"))
    await asyncio.sleep(0.3)
    assert not waiting.done()
    killed = time.monotonic()
    holder.kill()  # not reaped: a zombie until the fixture waits for it, and still dead
    await asyncio.wait_for(waiting, timeout=30)
    assert time.monotonic() - killed < 10.0  # the lease had 60 s left
    stat = Path(f"/proc/{holder.proc.pid}/stat")
    if stat.exists():  # Linux: the dead holder was still a zombie when its lease was taken
        assert stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    assert lease_row(db, "s") is None  # taken, then ended by the waiter's lock exit
    await waiter.close()


async def test_a_live_holder_in_another_process_is_waited_for(tmp_path: Path,
                                                              holders: list[Holder]) -> None:
    db = tmp_path / "s.db"
    # a lease of 0.3 s that its process renews: it outlives its lifetime many times over
    holders.append(holder := Holder(db, "s", lease_seconds=0.3))
    waiter = SqliteStore(db, lease_seconds=0.3)
    waiting = asyncio.create_task(timed_lock(waiter, "s"))
    await asyncio.sleep(1.5)
    assert not waiting.done()
    late = SqliteStore(db)  # a new process's start-up sweep does not touch it either
    assert (late.reclaim_dead(), late.holder_is_dead("s"), late.try_lease("s")) == \
        (0, False, False)
    released = time.monotonic()
    assert holder.go_on() == ""
    await asyncio.wait_for(waiting, timeout=5)
    assert time.monotonic() - released < 3.0
    await waiter.close()
    await late.close()


async def test_a_stalled_holder_cannot_commit_over_the_turn_that_took_over(
        tmp_path: Path, holders: list[Holder]) -> None:
    db = tmp_path / "s.db"
    holders.append(holder := Holder(db, "s", lease_seconds=0.3, commit=True))
    holder.proc.send_signal(signal.SIGSTOP)  # alive, but renews nothing
    try:
        taker = SqliteStore(db, lease_seconds=0.3)
        waited = await timed_lock(taker, "s")  # leaves at once: lock, then release
        assert 0.1 < waited < 2.0  # it waited for the lease to expire, not for a death
        async with taker.lock("s"):
            assert await taker.load("s") is None
            await taker.commit("s", {"by": "taker"}, expected_version=0)
    finally:
        holder.proc.send_signal(signal.SIGCONT)
    assert holder.go_on() == "LeaseLost"
    record = await taker.load("s")
    assert record is not None and (record.version, record.data) == (1, {"by": "taker"})
    await taker.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_flowctl_serve_restarted_after_a_crash_answers_at_once(
        tmp_path: Path, holders: list[Holder]) -> None:
    db = tmp_path / "sessions.db"
    holders.append(crashed := Holder(db, "user-001", lease_seconds=15))
    crashed.kill()
    crashed.proc.wait()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "cli.py"), "serve", str(ROOT / "flows" / "transfer.yaml"),
         "--port", str(port), "--store", f"sqlite:///{db}"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            deadline = time.monotonic() + 20
            while True:
                assert server.poll() is None and time.monotonic() < deadline, "no server"
                try:
                    if (await client.get("/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
            started = time.monotonic()
            response = await client.post("/v1/agent/chat", json={
                "session_id": "user-001", "message": "엄마한테 1만원 보내줘"})
            took = time.monotonic() - started
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=20)
    assert response.status_code == 200, out
    interaction = response.json()["interaction"]
    assert interaction["state_snapshot"]["stage"] == "READY", json.dumps(interaction)
    assert took < 8.0, out  # the crashed lease had 15 s left


async def test_an_owner_whose_pid_now_names_another_process_is_dead(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    gone = SqliteStore(db, lease_seconds=60)
    assert gone.try_lease("s")
    # as if its process had exited and this one had been given its pid since
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE owners SET started = '0' WHERE owner = ?", (gone.owner,))
    store = SqliteStore(db)
    assert await timed_lock(store, "s") < 0.1
    await store.close()
    await gone.close()


async def test_an_owner_of_another_pid_namespace_keeps_its_lease_until_it_expires(
        tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    elsewhere = SqliteStore(db, lease_seconds=1.0)
    assert elsewhere.try_lease("s")
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:  # a pid we cannot judge
        conn.execute("UPDATE owners SET machine = 'linux:another-container', pid = 1 "
                     "WHERE owner = ?", (elsewhere.owner,))
    store = SqliteStore(db)
    assert (store.reclaim_dead(), store.holder_is_dead("s")) == (0, False)
    assert 0.3 < await timed_lock(store, "s") < 2.0  # after its expiry, no sooner
    await store.close()
    await elsewhere.close()


async def test_a_turn_that_stalls_past_its_lease_cannot_commit(tmp_path: Path) -> None:
    slow = SqliteStore(tmp_path / "s.db", lease_seconds=0.2)
    other = SqliteStore(tmp_path / "s.db")
    async with slow.lock("s"):
        time.sleep(0.3)  # the event loop stalls: no renewal
        assert other.try_lease("s")
        with pytest.raises(LeaseLost, match="taken over"):
            await slow.commit("s", {"n": 1}, expected_version=0)
    assert await slow.load("s") is None
    assert lease_row(tmp_path / "s.db", "s") == (other.owner, pytest.approx(time.time(), abs=6))
    await slow.close()
    await other.close()


def test_a_store_is_not_carried_across_a_fork(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db")

    async def enter() -> None:
        async with store.lock("s"):
            pass

    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads, 3.12+
        pid = os.fork()
    if pid == 0:  # the child: its leases would be judged by its parent's pid
        try:
            asyncio.run(enter())
            said = "entered"
        except BaseException as err:  # noqa: BLE001
            said = str(err)
        os.write(write, said.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        said = pipe.read().decode()
    os.waitpid(pid, 0)
    assert "opened before a fork" in said
    asyncio.run(store.close())


# -- turns that commit more than once -----------------------------------------------------------

async def test_a_commit_the_turn_goes_on_after_keeps_the_session_locked(tmp_path: Path) -> None:
    a = SqliteStore(tmp_path / "s.db", lease_seconds=0.2)
    b = SqliteStore(tmp_path / "s.db")
    async with a.lock("s"):
        await a.commit("s", {"journal": "pending"}, expected_version=0, final=False)
        for _ in range(5):  # the action's call, longer than the lease: renewed meanwhile
            await asyncio.sleep(0.1)
            assert not b.try_lease("s")
        await a.commit("s", {"journal": "done"}, expected_version=1)
    assert b.try_lease("s")
    await a.close()
    await b.close()


async def test_a_turn_that_fails_after_a_commit_that_is_not_final_frees_the_session(
        tmp_path: Path) -> None:
    a, b = SqliteStore(tmp_path / "s.db"), SqliteStore(tmp_path / "s.db")
    with pytest.raises(RuntimeError):
        async with a.lock("s"):
            await a.commit("s", {}, expected_version=0, final=False)
            raise RuntimeError("the call failed")
    assert lease_row(tmp_path / "s.db", "s") is None and b.try_lease("s")
    await a.close()
    await b.close()


@pytest.mark.parametrize("taken", [False, True])
async def test_a_second_commit_of_a_turn_is_fenced_against_a_takeover_in_between(
        tmp_path: Path, taken: bool) -> None:
    a, b = SqliteStore(tmp_path / "s.db"), SqliteStore(tmp_path / "s.db")
    async with a.lock("s"):
        await a.commit("s", {"n": 1}, expected_version=0)  # final: the lease ended here...
        if taken:
            assert b.try_lease("s")  # ...so another process could take the session
            with pytest.raises(LeaseLost):
                await a.commit("s", {"n": 2}, expected_version=1)
        else:
            assert await a.commit("s", {"n": 2}, expected_version=1, final=False) == 2
            assert not b.try_lease("s")  # not final: it holds the session again
    record = await a.load("s")
    assert record is not None and record.data == {"n": 1 if taken else 2}
    await a.close()
    await b.close()
