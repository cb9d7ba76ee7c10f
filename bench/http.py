"""Turns per second over HTTP: ``flowctl serve`` (SQLite) vs a bare FastAPI endpoint.

Both servers are FastAPI apps on uvicorn with the very config ``flowctl serve`` uses
(``engine.transports.http.server_config``), each in its own process on a free loopback
port, loaded one at a time by the same client: a small keep-alive HTTP/1.1 client on raw
asyncio streams (cheaper than httpx, so the client is not what is measured). Many virtual
users replay the transfer conversations against ``POST /v1/agent/chat``, each in a fresh
session, the turns of one session in order. The bare endpoint parses the same request
model and returns a constant answer: the floor of FastAPI + uvicorn on this machine.

Rounds alternate bare / flowctl; the table shows the median round of each, and the least
CPU time the server process spent per turn in any round (from /proc: less disturbed than
wall-clock rates when other work shares the cores). Bounded: at most ``--turns`` turns and
``--max-seconds`` seconds per round, loopback only.

Each target runs on the plain asyncio loop with h11 and on uvloop with httptools (what
``flowctl serve`` uses, from uvicorn[standard]): four servers in one run.

``--compare CHECKOUT`` adds a third server per stack: another checkout of flowctl (an
export of an older commit, say), so a change is measured before and after in one run.

Run: python bench/http.py [--turns 3000] [--users 32] [--rounds 3] [--stacks asyncio+h11]
     [--compare /tmp/flowctl-before]
"""

import argparse
import asyncio
import json
import logging
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# This script shares its name with the standard library's `http`: take its folder off the
# path, or starlette's `import http.client` would find this file instead.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.conversations import CONVERSATIONS  # noqa: E402

WARMUP_TURNS = 300
HOST = "127.0.0.1"


# -- the two servers (run in child processes) -------------------------------------------------

def bare_app():  # noqa: ANN201 - a FastAPI app
    # (no `from __future__ import annotations` in this file: FastAPI must see ChatRequest)
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse

    from engine.transports.http import ChatRequest

    app = FastAPI()
    answer = {"interaction": {"message": "ok", "next_action": "ASK", "ui_hint": {"buttons": []},
                              "state_snapshot": {}, "hooks": [], "_trace": {}}, "hooks": []}

    @app.post("/v1/agent/chat")
    async def chat(body: ChatRequest) -> JSONResponse:
        return JSONResponse(answer)

    return app


def flowctl_app(store_path: str):  # noqa: ANN201 - a FastAPI app
    from engine.compiler import compile_file
    from engine.config import load_settings
    from engine.runtime.engine import Engine
    from engine.store import SqliteStore
    from engine.transports.http import create_app

    settings = load_settings({})
    engine = Engine(compile_file(ROOT / "flows" / "transfer.yaml"), store=SqliteStore(store_path),
                    settings=settings)
    return create_app(engine, settings=settings)


def serve_child(kind: str, port: int, store_path: str, stack: str) -> None:
    import uvicorn

    from engine.transports.http import server_config

    app = bare_app() if kind == "bare" else flowctl_app(store_path)
    config = server_config(app, host=HOST, port=port)
    config.loop, config.http = stack.split("+")  # e.g. uvloop+httptools (uvicorn[standard])
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    uvicorn.Server(config).run()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class Child:
    def __init__(self, kind: str, store_path: str, stack: str,
                 root: Path | None = None) -> None:
        self.kind = kind
        self.port = free_port()
        # another checkout's own bench/http.py serves that checkout's engine (--compare)
        script = str(root / "bench" / "http.py") if root else __file__
        self.proc = subprocess.Popen([sys.executable, script, "--child", kind, "--port",
                                      str(self.port), "--store", store_path, "--stack", stack])

    async def wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                conn = await Connection.open(self.port)
                await conn.close()
                return
            except OSError:
                await asyncio.sleep(0.05)
        raise SystemExit(f"{self.kind} server did not start")

    def cpu_seconds(self) -> float:
        """User + system CPU the server process used so far (Linux /proc)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


# -- the client -------------------------------------------------------------------------------

class Connection:
    """One keep-alive HTTP/1.1 connection; POST JSON, read a Content-Length body."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 port: int) -> None:
        self.reader, self.writer, self.port = reader, writer, port

    @classmethod
    async def open(cls, port: int) -> "Connection":
        reader, writer = await asyncio.open_connection(HOST, port)
        return cls(reader, writer, port)

    async def post(self, path: str, payload: dict) -> tuple[int, bytes]:
        body = json.dumps(payload, ensure_ascii=False).encode()
        self.writer.write(f"POST {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
                          f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                          f"\r\n".encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        return int(head[9:12]), await self.reader.readexactly(length)

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


@dataclass
class Round:
    target: str
    turns: int = 0
    errors: int = 0
    seconds: float = 0.0
    server_cpu: float = 0.0
    latencies: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.turns / self.seconds

    @property
    def cpu_per_turn_us(self) -> float:
        return self.server_cpu / self.turns * 1e6

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000


async def load(child: Child, target: str, *, turns: int, users: int, max_seconds: float,
               tag: str) -> Round:
    """``users`` virtual users replay the conversations until ``turns`` turns are done."""
    result = Round(target)
    budget = iter(range(turns))
    deadline = time.perf_counter() + max_seconds

    async def user(u: int) -> None:
        conn = await Connection.open(child.port)
        n = 0
        try:
            while time.perf_counter() < deadline:
                session = f"{tag}-{u}-{n}"
                for message in CONVERSATIONS[(u + n) % len(CONVERSATIONS)]:
                    if next(budget, None) is None:
                        return
                    sent = time.perf_counter()
                    status, body = await conn.post("/v1/agent/chat",
                                                   {"session_id": session, "message": message})
                    result.latencies.append(time.perf_counter() - sent)
                    result.turns += 1
                    if status != 200 or "error" in json.loads(body)["interaction"]["_trace"]:
                        result.errors += 1
                n += 1
        finally:
            await conn.close()

    cpu = child.cpu_seconds()
    started = time.perf_counter()
    await asyncio.gather(*(user(u) for u in range(users)))
    result.seconds = time.perf_counter() - started
    result.server_cpu = child.cpu_seconds() - cpu
    return result


# -- the run ----------------------------------------------------------------------------------

def median_round(rounds: list[Round]) -> Round:
    return sorted(rounds, key=lambda r: r.rate)[len(rounds) // 2]


def report(args: argparse.Namespace, rounds: dict[str, list[Round]]) -> None:
    import fastapi
    import uvicorn

    print(f"machine: {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, uvicorn {uvicorn.__version__}, "
          f"FastAPI {fastapi.__version__}")
    print(f"load: {args.users} users, {args.turns} turns per round, {args.rounds} rounds "
          f"(median round shown), POST /v1/agent/chat on loopback\n")
    print(f"{'target':<36}{'turns':>6}{'errors':>7}{'turns/s':>9}{'p50 ms':>8}{'p99 ms':>8}"
          f"{'server CPU µs/turn':>20}   turns/s of each round")
    for target, runs in rounds.items():
        m = median_round(runs)
        cpu = min(r.cpu_per_turn_us for r in runs)
        every = " ".join(f"{r.rate:.0f}" for r in runs)
        print(f"{target:<36}{m.turns:>6}{m.errors:>7}{m.rate:>9.0f}{m.percentile(50):>8.2f}"
              f"{m.percentile(99):>8.2f}{cpu:>20.0f}   {every}")
    bare_name = ""
    for name in rounds:
        if name.startswith("bare"):
            bare_name = name
            continue
        bare, flow = (median_round(rounds[n]).rate for n in (bare_name, name))
        bare_cpu, flow_cpu = (min(x.cpu_per_turn_us for x in rounds[n])
                              for n in (bare_name, name))
        print(f"\n{name} / {bare_name}: throughput {flow / bare:.2f} (target >= 0.50); "
              f"by server CPU per turn: {bare_cpu / flow_cpu:.2f}")


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        children = {}
        for stack in args.stacks.split(","):
            children[f"bare FastAPI, {stack}"] = Child("bare", "", stack)
            children[f"flowctl + SQLite, {stack}"] = Child(
                "flowctl", str(Path(tmp) / f"bench-{stack}.db"), stack)
            if args.compare:
                children[f"flowctl + SQLite ({args.compare.name}), {stack}"] = Child(
                    "flowctl", str(Path(tmp) / f"compare-{stack}.db"), stack,
                    root=args.compare.resolve())
        try:
            for child in children.values():
                await child.wait_ready()
                await load(child, "warmup", turns=WARMUP_TURNS, users=args.users,
                           max_seconds=args.max_seconds, tag="warmup")
            rounds: dict[str, list[Round]] = {name: [] for name in children}
            for r in range(args.rounds):
                for name, child in children.items():
                    rounds[name].append(await load(child, name, turns=args.turns,
                                                   users=args.users, tag=f"r{r}",
                                                   max_seconds=args.max_seconds))
        finally:
            for child in children.values():
                child.stop()
    report(args, rounds)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=3000, help="turns per round and target")
    parser.add_argument("--users", type=int, default=32, help="concurrent sessions")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-seconds", type=float, default=30.0, help="cap per round")
    parser.add_argument("--stacks", default="asyncio+h11,uvloop+httptools",
                        help="uvicorn loop+http pairs, comma-separated (uvloop and httptools "
                             "come with uvicorn[standard]; flowctl serve picks them)")
    parser.add_argument("--compare", type=Path, metavar="CHECKOUT",
                        help="also serve another checkout of flowctl (say, an export of the "
                             "commit before a change) in the same rounds")
    parser.add_argument("--stack", default="asyncio+h11", help=argparse.SUPPRESS)
    parser.add_argument("--child", choices=["bare", "flowctl"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--store", default="", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse()
    if arguments.child:
        serve_child(arguments.child, arguments.port, arguments.store, arguments.stack)
    else:
        asyncio.run(main(arguments))
