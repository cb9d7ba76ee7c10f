"""What an app adds to a turn: routing and its record, a dead webhook, a remote hop.

In process, with the offline provider and the SQLite store, over the transfer
conversations (``bench/conversations.py``):

- ``flow``: ``flows/transfer.yaml`` served alone (the baseline)
- ``app``: the same conversations through ``flows/bank.yaml`` (keyword routing, the app's
  own record per session, the transfer service's key space)
- ``app+dead hook``: the app with a webhook on every hook type pointing at a port where
  nothing listens (each executed transfer schedules a delivery that fails and retries)
- ``flow+dead hook``: the transfer flow alone with the same webhook in its own ``hooks:``
  (``hooked_engine``, what ``flowctl serve FLOW.yaml`` runs)

Then the remote hop, over loopback HTTP against a real ``flowctl serve flows/card.yaml``:
one card question streamed straight from the card server, and the same through an app
whose card service is that server (``--remote N`` turns each, 0 to skip).

Run: python bench/app.py [--rounds 100] [--remote 200]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

import httpx  # noqa: E402
from httpx_sse import aconnect_sse  # noqa: E402

from bench.conversations import CONVERSATIONS  # noqa: E402
from engine.app import load_app  # noqa: E402
from engine.app.engine import AppEngine  # noqa: E402
from engine.compiler import compile_file  # noqa: E402
from engine.config import Settings  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402
from engine.runtime.webhooks import hooked_engine  # noqa: E402
from engine.store.sqlite import SqliteStore  # noqa: E402

TODAY = dt.datetime(2026, 11, 22, 9, 0, tzinfo=dt.UTC)


async def conversations(engine: Engine, rounds: int) -> list[float]:
    samples = []
    for r in range(rounds):
        for c, conversation in enumerate(CONVERSATIONS):
            for text in conversation:
                start = time.perf_counter_ns()
                async for _ in engine.turn(f"{r}-{c}", text):
                    pass
                samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def hooked_app(tmp: Path) -> Path:
    path = tmp / "hooked.yaml"
    text = (ROOT / "flows" / "bank.yaml").read_text(encoding="utf-8")
    for flow in ("transfer.yaml", "balance.yaml"):
        text = text.replace(f"flow: {flow}", f"flow: {ROOT / 'flows' / flow}")
    path.write_text(text + "hooks:\n  - {url: 'http://127.0.0.1:9/hooks', retries: 2, "
                    "backoff_sec: 0.01}\n", encoding="utf-8")
    return path


def hooked_flow(tmp: Path) -> Path:
    path = tmp / "hooked_flow.yaml"
    if not (tmp / "prompts").exists():
        (tmp / "prompts").symlink_to(ROOT / "prompts")
    text = (ROOT / "flows" / "transfer.yaml").read_text(encoding="utf-8")
    path.write_text(text + "\nhooks:\n  - {url: 'http://127.0.0.1:9/hooks', retries: 2, "
                    "backoff_sec: 0.01}\n", encoding="utf-8")
    return path


async def in_process(rounds: int, tmp: Path) -> list[tuple[str, list[float]]]:
    settings = Settings(env={})
    variants: list[tuple[str, Any]] = [
        ("flow", lambda store: Engine(compile_file(ROOT / "flows" / "transfer.yaml"),
                                      store=store, settings=settings, clock=lambda: TODAY)),
        ("app", lambda store: AppEngine(load_app(ROOT / "flows" / "bank.yaml", {}),
                                        store=store, settings=settings, clock=lambda: TODAY)),
        ("app+dead hook", lambda store: AppEngine(load_app(hooked_app(tmp), {}), store=store,
                                                  settings=settings, clock=lambda: TODAY)),
        ("flow+dead hook", lambda store: hooked_engine(compile_file(hooked_flow(tmp)),
                                                       store=store, settings=settings,
                                                       clock=lambda: TODAY))]
    results = []
    for name, make in variants:
        store = SqliteStore(str(tmp / f"{name.replace(' ', '_')}.db"))
        engine = make(store)
        await conversations(engine, 3)  # warm-up
        results.append((name, await conversations(engine, rounds)))
        await engine.aclose()
        await store.close()
    return results


async def streamed(client: httpx.AsyncClient, url: str, session: str) -> float:
    start = time.perf_counter_ns()
    async with aconnect_sse(client, "POST", f"{url}/chat/stream",
                            json={"session_id": session, "message": "카드 혜택 알려줘"}) as src:
        async for sse in src.aiter_sse():
            if sse.event == "DONE":
                break
    return (time.perf_counter_ns() - start) / 1000


async def remote(turns: int, tmp: Path) -> list[tuple[str, list[float]]]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC"))}
    server = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "serve",
                               str(ROOT / "flows" / "card.yaml"), "--port", str(port),
                               "--store", f"sqlite:///{tmp}/card.db"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1/agent"
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            for _ in range(200):
                try:
                    await client.get(f"http://127.0.0.1:{port}/healthz")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
            direct = [await streamed(client, url, f"d{i}") for i in range(turns)]
        app = AppEngine(load_app(ROOT / "flows" / "bank.yaml", {"CARD_SERVICE_URL": url}),
                        store=SqliteStore(str(tmp / "app.db")),
                        settings=Settings(env={"CARD_SERVICE_URL": url}))
        proxied = []
        for i in range(turns):
            start = time.perf_counter_ns()
            async for _ in app.turn(f"p{i}", "카드 혜택 알려줘"):
                pass
            proxied.append((time.perf_counter_ns() - start) / 1000)
        await app.aclose()
    finally:
        server.terminate()
        server.wait(timeout=30)
    return [("card direct (HTTP)", direct), ("card via app", proxied)]


def show(results: list[tuple[str, list[float]]]) -> None:
    print(f"{'variant':<20}{'turns':>8}{'median µs':>12}{'p99 µs':>10}")
    for name, samples in results:
        ordered = sorted(samples)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        print(f"{name:<20}{len(samples):>8}{statistics.median(samples):>12.1f}{p99:>10.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--remote", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = asyncio.run(in_process(args.rounds, Path(tmp)))
        if args.remote:
            results += asyncio.run(remote(args.remote, Path(tmp)))
    show(results)


if __name__ == "__main__":
    main()
