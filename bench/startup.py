"""Footprint of a server: time to its first answered request, and its idle RSS.

Starts ``flowctl serve flows/transfer.yaml`` offline (no provider keys in its environment,
a fresh SQLite store) on a free loopback port, and beside it a bare FastAPI endpoint on
uvicorn with the same config; for each, the time from starting the process to the first
answered ``POST /v1/agent/chat`` (the client retries every 5 ms until the port answers),
then the resident set size (VmRSS) idle after that first request, and which provider SDKs
the process has loaded. Several runs per server, alternating. Then where flowctl's start-up
goes, timed inside a fresh interpreter: the imports a bare server needs too, the engine's
own modules, compiling the flow, building the engine and the app, and training the flow's
intent model (which a server does in a thread beside the others).

The checkout's modules are compiled to bytecode first, as installing flowctl does (pip
compiles every module it installs): a checkout run under PYTHONDONTWRITEBYTECODE=1 would
otherwise compile the engine's source again at every start (~0.11 s), which no installed
server does. The engine's compiled patterns and dataclass methods are kept beside that
bytecode, as a first start (or ``flowctl build``) keeps them; "nothing kept" is a server that
finds neither kept and compiles them at start, as the very first start of an installation
does.

Run: python bench/startup.py [--runs 5] [--flow flows/commerce.yaml]
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import importlib.util
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

import httpx  # noqa: E402

BODY = {"session_id": "s-1", "message": "엄마한테 1만원 보내줘"}

# the bare endpoint: FastAPI and uvicorn alone (the engine not imported), a request model
# of the same two fields
_BARE = """
import sys
import uvicorn
from fastapi import FastAPI
from pydantic import BaseModel

class ChatRequest(BaseModel):
    session_id: str
    message: str

app = FastAPI()

@app.post("/v1/agent/chat")
async def chat(request: ChatRequest) -> dict:
    return {"interaction": {"message": "ok"}}

uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""

SDKS = ("openai", "anthropic", "uvloop", "httptools", "orjson")

# where flowctl's start-up goes, in a fresh interpreter: what the bare server imports too,
# the engine's modules, compiling the flow, the engine and the app, the intent model
_PHASES = """
import sys, time
sys.path.insert(0, sys.argv[1])
t0 = time.perf_counter()
import fastapi, pydantic, uvicorn
t1 = time.perf_counter()
import cli
import engine.transports.http as http
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
t2 = time.perf_counter()
if sys.argv[3] == "build":
    from pathlib import Path
    from engine.compiler import artefact
    service = artefact.prebuilt(Path(sys.argv[2]))
else:
    from engine.compiler import compile_file
    service = compile_file(sys.argv[2])
t3 = time.perf_counter()
engine = Engine(service, store=MemoryStore(), settings=load_settings({}))
http.create_app(engine, settings=engine.settings)
t4 = time.perf_counter()
from engine.nlu.intents import model_of
model_of(service.intents)
t5 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)
"""
PHASES = ("FastAPI, pydantic, uvicorn", "the engine's modules", "compiling the flow",
          "engine and app", "intent model (a thread)")
BUILT_PHASES = (*PHASES[:2], "loading its build", *PHASES[3:])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def offline_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "ANTHROPIC_", "FLOWCTL_"))}
    env["PYTHONPATH"] = str(ROOT)
    return {**env, **extra}


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def loaded(log: Path) -> list[str]:
    """Which of SDKS a run under ``-X importtime`` imported (its stderr in ``log``)."""
    tops = {line.rsplit("|", 1)[-1].strip().split(".")[0]
            for line in log.read_text().splitlines() if line.startswith("import time:")}
    return [name for name in SDKS if name in tops and importlib.util.find_spec(name)]


def first_answer(argv: list[str], port: int, cwd: str, env: dict[str, str],
                 stderr: Path | None = None) -> tuple[float, float]:
    """(seconds to the first answered chat request, idle RSS MiB a second after it)."""
    started = time.perf_counter()
    with open(stderr or os.devnull, "w") as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                stderr=err)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
                while True:
                    if proc.poll() is not None:
                        raise RuntimeError(f"{argv} exited with {proc.returncode}")
                    try:
                        if client.post("/v1/agent/chat", json=BODY).status_code == 200:
                            break
                    except httpx.TransportError:
                        time.sleep(0.005)
            took = time.perf_counter() - started
            time.sleep(1.0)  # idle
            return took, rss_mib(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=20)


NOTHING_KEPT = "  nothing kept"
"""flowctl serve from its build, its patterns and dataclass methods compiled at start (none
kept: a first start)."""


@contextlib.contextmanager
def set_aside(*paths: Path | None) -> Iterator[None]:
    """``paths`` moved away for the duration (the kept code, for NOTHING_KEPT)."""
    moved = [(path, path.with_name(path.name + ".aside")) for path in paths
             if path is not None and path.exists()]
    for path, aside in moved:
        path.rename(aside)
    try:
        yield
    finally:
        for path, aside in moved:
            aside.rename(path)


def servers(tmp: str, run: int) -> dict[str, tuple[list[str], dict[str, str]]]:
    """name -> argv tail (after the interpreter) and environment of each server, for run
    number ``run``: flowctl from its kept build (as every start after the first), and
    compiling the flow at start (``FLOWCTL_BUILD_CACHE=off``)."""
    serve = [str(ROOT / "cli.py"), "serve", str(ROOT / "flows" / "transfer.yaml"),
             "--store", f"sqlite:///{tmp}/run{run}.db", "--port"]
    return {"bare FastAPI": (["-c", _BARE], offline_env()),
            "flowctl serve": (serve, offline_env()),
            "  compiling": (serve, offline_env(FLOWCTL_BUILD_CACHE="off")),
            NOTHING_KEPT: (serve, offline_env(PYTHONDONTWRITEBYTECODE="1"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--flow", default=str(ROOT / "flows" / "transfer.yaml"),
                        help="the flow whose start-up phases are timed (the servers serve "
                             "transfer.yaml)")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "engine", quiet=1)
    compileall.compile_file(ROOT / "cli.py", quiet=1)
    import engine.transports.http  # noqa: F401 — its modules compile the engine's patterns
    from engine import precompiled
    from engine.compiler import artefact

    kept = [precompiled.keep(), precompiled.keep_methods()]  # as a first start or `flowctl
    # build` keeps them, beside the bytecode

    artefact.load(Path(args.flow))  # kept under .flowctl/build/, as a first start does
    artefact.load(ROOT / "flows" / "transfer.yaml")
    results: dict[str, list[tuple[float, float]]] = {}
    imported: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs + 1):
            for name, (tail, env) in servers(tmp, run).items():
                port = free_port()
                if run == args.runs:  # one more run, untimed: what it imports
                    log = Path(tmp) / "imports.log"
                    first_answer([sys.executable, "-X", "importtime", *tail, str(port)], port,
                                 tmp, env, stderr=log)
                    imported[name] = loaded(log)
                else:
                    with set_aside(*(kept if name == NOTHING_KEPT else [])):
                        results.setdefault(name, []).append(
                            first_answer([sys.executable, *tail, str(port)], port, tmp, env))
    phases = {how: [[float(x) for x in subprocess.run(
        [sys.executable, "-c", _PHASES, str(ROOT), str(Path(args.flow).resolve()), how],
        env=offline_env(), capture_output=True, text=True, check=True).stdout.split()]
        for _ in range(args.runs)] for how in ("build", "compile")}
    print(f"{'server':<16}{'first answer s: median (range)':>32}{'idle RSS MiB':>24}  imports")
    for name, runs in results.items():
        times, rss = [r[0] for r in runs], [r[1] for r in runs]
        print(f"{name:<16}{statistics.median(times):>14.3f} ({min(times):.3f}–{max(times):.3f})"
              f"{statistics.median(rss):>12.1f} ({min(rss):.1f}–{max(rss):.1f})"
              f"  {', '.join(imported[name]) or '-'}")
    for how, names in (("build", BUILT_PHASES), ("compile", PHASES)):
        print(f"\nflowctl start-up in one interpreter ({how}), s: median (range)")
        for i, phase in enumerate(names):
            times = [p[i] for p in phases[how]]
            print(f"  {phase:<28}{statistics.median(times):.3f} "
                  f"({min(times):.3f}–{max(times):.3f})")


if __name__ == "__main__":
    main()
