"""Scale-out: turns/s and latency of ``flowctl serve`` on SQLite vs PostgreSQL, 1..N workers.

Three measurements, each against real ``flowctl serve`` processes on loopback:

1. **latency** -- serial keep-alive POSTs, one at a time: a bare ASGI hello app under
   ``uvicorn --workers 1`` and ``--workers 2``, and ``flowctl serve`` (SQLite) with
   ``--workers 1`` and ``2``. This is where ``uvicorn --workers``' ~40 ms shows.
2. **throughput** -- ``--users`` virtual users replay the transfer conversations of
   bench/conversations.py (a fresh session each, turns of a session in order) against
   ``flowctl serve --workers N`` for each store and N: turns/s, p50, p99.
3. **stored sessions** -- per-turn latency of one user replaying the conversations while the
   store already holds 10 000, then 1 000 000 other sessions (bulk-loaded: COPY into
   PostgreSQL, one transaction of executemany into SQLite), with ``--workers 1``.

PostgreSQL is a throwaway cluster from Debian's package (tests/pg_cluster.py) with its
default durability (fsync on, synchronous_commit on); SQLite runs as flowctl opens it (WAL,
synchronous=NORMAL). The client is bench/http.py's keep-alive client on raw asyncio streams.

Run: python3 bench/scale.py [--workers 1,2] [--turns 2000] [--users 32] [--skip-million]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

import argparse  # noqa: E402
import asyncio  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402

import psycopg  # noqa: E402

from bench.conversations import CONVERSATIONS  # noqa: E402
from bench.http import Connection, Round, free_port  # noqa: E402
from engine.store import SqliteStore  # noqa: E402
from engine.store.postgres import PostgresStore  # noqa: E402
from tests.pg_cluster import Cluster  # noqa: E402

FLOW = ROOT / "flows" / "transfer.yaml"
# a stored session as a finished transfer conversation leaves it (~1 KB of JSON)
SESSION = json.dumps({"stage": "EXECUTED", "flow": "transfer", "owner": None, "turns": 2,
                      "slots": {"target": "엄마", "amount": 10000},
                      "history": [{"role": "user", "content": "엄마한테 1만원 보내줘"},
                                  {"role": "assistant", "content": "엄마에게 1만원 보낼까요?"},
                                  {"role": "user", "content": "확인"},
                                  {"role": "assistant", "content": "이체가 완료됐어요." * 8}],
                      "journal": {"send_money": {"status": "done", "key": "t:send_money",
                                                 "args": {"target": "엄마", "amount": 10000},
                                                 "result": {"transaction_id": "x" * 32}}},
                      "padding": "p" * 500}, ensure_ascii=False)
ENV = {k: v for k, v in os.environ.items()
       if not k.startswith(("OPENAI_", "ANTHROPIC_", "FLOWCTL_", "MEMORY_"))}


# -- servers ------------------------------------------------------------------------------------

class Server:
    """A command serving HTTP on a free loopback port, stopped with SIGTERM."""

    def __init__(self, *command: str) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen([part.replace("{port}", str(self.port)) for part in command],
                                     cwd=ROOT, env={**ENV, "PYTHONPATH": str(ROOT)},
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    async def ready(self) -> Server:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                conn = await Connection.open(self.port)
                await conn.close()
                await asyncio.sleep(0.5)  # every worker up, not only the first
                return self
            except OSError:
                await asyncio.sleep(0.05)
        raise SystemExit("a server did not start")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=60)


def flowctl(store: str, workers: int) -> Server:
    return Server(sys.executable, "-m", "cli", "serve", str(FLOW), "--port", "{port}",
                  "--store", store, "--workers", str(workers))


def uvicorn(workers: int) -> Server:
    return Server(sys.executable, "-m", "uvicorn", "bench.scale:hello", "--port", "{port}",
                  "--workers", str(workers), "--log-level", "warning")


async def hello(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
    """A bare ASGI app: the floor of uvicorn itself."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200,  # type: ignore[operator]
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"{}"})  # type: ignore[operator]


# -- load -------------------------------------------------------------------------------------

async def replay(port: int, *, turns: int, users: int, tag: str) -> Round:
    """``users`` keep-alive users replay the conversations until ``turns`` turns are done."""
    result = Round(tag)
    budget = iter(range(turns))

    async def user(u: int) -> None:
        conn = await Connection.open(port)
        try:
            for n in range(10**9):
                for message in CONVERSATIONS[(u + n) % len(CONVERSATIONS)]:
                    if next(budget, None) is None:
                        return
                    sent = time.perf_counter()
                    status, body = await conn.post("/v1/agent/chat", {
                        "session_id": f"{tag}-{u}-{n}", "message": message})
                    result.latencies.append(time.perf_counter() - sent)
                    result.turns += 1
                    if status != 200 or "error" in json.loads(body)["interaction"]["_trace"]:
                        result.errors += 1
        finally:
            await conn.close()

    started = time.perf_counter()
    await asyncio.gather(*(user(u) for u in range(users)))
    result.seconds = time.perf_counter() - started
    return result


async def serial_posts(port: int, count: int) -> list[float]:
    conn = await Connection.open(port)
    times = []
    try:
        for i in range(count):
            sent = time.perf_counter()
            await conn.post("/v1/agent/chat", {"session_id": f"lat-{i % 7}", "message": "안녕"})
            times.append((time.perf_counter() - sent) * 1000)
    finally:
        await conn.close()
    return times


def row(name: str, r: Round) -> str:
    return (f"{name:<34}{r.turns:>6}{r.errors:>7}{r.rate:>9.0f}{r.percentile(50):>8.1f}"
            f"{r.percentile(99):>8.1f}")


HEADER = f"{'target':<34}{'turns':>6}{'errors':>7}{'turns/s':>9}{'p50 ms':>8}{'p99 ms':>8}"


# -- stores -----------------------------------------------------------------------------------

@contextmanager
def stores(tmp: Path) -> Iterator[dict[str, str]]:
    cluster = Cluster().start()
    try:
        yield {"SQLite": f"sqlite:///{tmp}/bench.db", "PostgreSQL": cluster.url}
    finally:
        cluster.stop()


async def fill(url: str, count: int) -> None:
    """Bring the store to ``count`` stored filler sessions (adds the missing ones)."""
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        await SqliteStore(path).close()  # the schema
        with sqlite3.connect(path) as db:
            have = db.execute("SELECT count(*) FROM sessions WHERE id LIKE 'fill-%'").fetchone()[0]
            db.executemany("INSERT INTO sessions (id, version, data, updated_at) "
                           "VALUES (?, 1, ?, ?)", ((f"fill-{i}", SESSION, time.time())
                                                   for i in range(have, count)))
        return
    PostgresStore(url)  # the schema
    with psycopg.connect(url, autocommit=True) as conn:
        have = conn.execute("SELECT count(*) FROM flowctl_sessions "
                            "WHERE id LIKE 'fill-%%'").fetchone()[0]  # type: ignore[index]
        with conn.cursor() as cur, cur.copy("COPY flowctl_sessions (id, version, data) "
                                            "FROM STDIN") as copy:
            chunk = io.StringIO()
            text = SESSION.replace("\\", "\\\\")
            for i in range(have, count):
                chunk.write(f"fill-{i}\t1\t{text}\n")
                if chunk.tell() > 1 << 22:
                    copy.write(chunk.getvalue())
                    chunk = io.StringIO()
            copy.write(chunk.getvalue())
        conn.execute("VACUUM ANALYZE flowctl_sessions")


# -- the run ----------------------------------------------------------------------------------

async def latency(args: argparse.Namespace, tmp: Path) -> None:
    print("1. serial keep-alive POSTs, median / p99 ms")
    for name, server in (("uvicorn --workers 1, hello app", uvicorn(1)),
                         ("uvicorn --workers 2, hello app", uvicorn(2)),
                         ("flowctl serve --workers 1", flowctl(f"sqlite:///{tmp}/l1.db", 1)),
                         ("flowctl serve --workers 2", flowctl(f"sqlite:///{tmp}/l2.db", 2))):
        try:
            await server.ready()
            await serial_posts(server.port, 50)
            times = sorted(await serial_posts(server.port, args.serial))
        finally:
            server.stop()
        print(f"   {name:<34}{statistics.median(times):>8.1f}"
              f"{times[int(0.99 * len(times)) - 1]:>8.1f}")


async def throughput(args: argparse.Namespace, urls: dict[str, str]) -> None:
    print(f"\n2. {args.users} users replaying the conversations, {args.turns} turns a run; "
          f"the median of {args.rounds} runs, alternating stores")
    print("   " + HEADER + "   turns/s of each run")
    for workers in args.workers:
        servers = {name: await flowctl(url, workers).ready() for name, url in urls.items()}
        try:
            runs: dict[str, list[Round]] = {name: [] for name in servers}
            for server in servers.values():
                await replay(server.port, turns=300, users=args.users, tag=f"w{workers}-warm")
            for r in range(args.rounds):
                for name, server in servers.items():
                    runs[name].append(await replay(server.port, turns=args.turns,
                                                   users=args.users,
                                                   tag=f"w{workers}-{r}-{time.time_ns()}"))
        finally:
            for server in servers.values():
                server.stop()
        for name, results in runs.items():
            median = sorted(results, key=lambda x: x.rate)[len(results) // 2]
            every = " ".join(f"{x.rate:.0f}" for x in results)
            print("   " + row(f"{name}, --workers {workers}", median) + f"   {every}",
                  flush=True)


async def stored(args: argparse.Namespace, urls: dict[str, str]) -> None:
    sizes = [10_000] + ([] if args.skip_million else [1_000_000])
    print(f"\n3. one user, {args.serial} turns, with N other sessions stored (--workers 1)")
    print("   " + HEADER)
    for size in sizes:
        for name, url in urls.items():
            started = time.monotonic()
            await fill(url, size)
            loaded = time.monotonic() - started
            if url.startswith("postgresql"):  # not a checkpoint of the load during the run
                with psycopg.connect(url, autocommit=True) as conn:
                    conn.execute("CHECKPOINT")
            server = await flowctl(url, 1).ready()
            try:
                await replay(server.port, turns=100, users=1, tag=f"s{size}-warm")
                result = await replay(server.port, turns=args.serial, users=1,
                                      tag=f"s{size}-{time.time_ns()}")
            finally:
                server.stop()
            print("   " + row(f"{name}, {size:,} stored", result)
                  + f"   (filled in {loaded:.0f} s)", flush=True)


async def main(args: argparse.Namespace) -> None:
    print(f"machine: {os.cpu_count()} cores; PostgreSQL from {Cluster().settings or 'defaults'}")
    with tempfile.TemporaryDirectory(prefix="flowctl-scale-") as name:
        tmp = Path(name)
        if "latency" in args.parts:
            await latency(args, tmp)
        with stores(tmp) as urls:
            if "throughput" in args.parts:
                await throughput(args, urls)
            if "stored" in args.parts:
                await stored(args, urls)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=lambda s: [int(n) for n in s.split(",")],
                        default=[1, 2], help="worker counts, e.g. 1,2,4 (default 1,2)")
    parser.add_argument("--turns", type=int, default=2000, help="turns per throughput run")
    parser.add_argument("--users", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3, help="throughput runs per target")
    parser.add_argument("--serial", type=int, default=500, help="turns of the serial runs")
    parser.add_argument("--skip-million", action="store_true", help="10k stored sessions only")
    parser.add_argument("--parts", default="latency,throughput,stored")
    return parser.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(main(parse()))
