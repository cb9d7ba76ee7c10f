"""Where an HTTP turn's time goes, layer by layer, in one process (no sockets).

``bench/http.py`` measures whole servers; this script takes the same request apart. The
same transfer conversations (``bench/conversations.py``, a fresh session per conversation)
are played, in alternating rounds, against:

- **engine**: ``Engine.turn`` on a SQLite store, its events read to the DONE;
- **Turns.reply**: the same through the HTTP transport's turn runner (a task per turn, the
  DONE's delivery reported: an executed action's "told" is written after it);
- **app**: ``create_app`` over its own engine, called as an ASGI app with a prepared
  ``POST /v1/agent/chat`` (middleware, the chat lane, the JSON answer);
- **app, stored DONE**: the same app with ``Engine.turn`` replaced by one that yields a DONE
  kept from a real turn: the HTTP layer alone;
- **bare FastAPI**: ``bench/http.py``'s bare endpoint (parses the request, constant answer).

Medians of each round, in µs per request; the rounds alternate so a change of the machine's
load touches every row alike. The engine is the transfer flow, offline, SQLite at
``synchronous=NORMAL`` (the store's default).

Run: python bench/http_layers.py [--rounds 4] [--repeat 15]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

# bench/http.py shares its name with the standard library's `http`: take this folder off
# the path, or starlette's `import http.client` would find that file.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.conversations import CONVERSATIONS  # noqa: E402
from engine.compiler import compile_file  # noqa: E402
from engine.config import load_settings  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402
from engine.store import SqliteStore  # noqa: E402
from engine.transports.http import create_app  # noqa: E402
from engine.transports.http.turns import Turns  # noqa: E402

FLOW = ROOT / "flows" / "transfer.yaml"
Play = Callable[[str, str], Awaitable[None]]


def _bare_app() -> Any:
    """bench/http.py's bare endpoint (loaded by path: see above)."""
    spec = importlib.util.spec_from_file_location("bench_http", ROOT / "bench" / "http.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.bare_app()


def asgi_player(app: Any) -> Play:
    """A prepared ``POST /v1/agent/chat`` against ``app``; a non-200 answer stops the run."""
    async def play(session: str, text: str) -> None:
        body = json.dumps({"session_id": session, "message": text}).encode()
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": "/v1/agent/chat",
                 "raw_path": b"/v1/agent/chat", "query_string": b"", "root_path": "",
                 "headers": [(b"host", b"127.0.0.1:8000"),
                             (b"content-type", b"application/json"),
                             (b"content-length", str(len(body)).encode())],
                 "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000), "state": {}}
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client never goes away mid-request
            raise AssertionError("unreachable")

        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await app(scope, receive, send)
        if sent[0].get("status") != 200:
            raise SystemExit(f"the app answered {sent[0].get('status')}: {sent[1:]}")
    return play


def engine_player(engine: Engine) -> Play:
    async def play(session: str, text: str) -> None:
        async for _ in engine.turn(session, text):
            pass
    return play


def turns_player(turns: Turns) -> Play:
    async def play(session: str, text: str) -> None:
        await turns.reply(session, text)
    return play


async def median_us(play: Play, repeat: int, tag: str) -> float:
    """The median time of one request over ``repeat`` replays of every conversation."""
    samples = []
    for r in range(repeat):
        for c, conversation in enumerate(CONVERSATIONS):
            for text in conversation:
                started = time.perf_counter_ns()
                await play(f"{tag}-{r}-{c}", text)
                samples.append((time.perf_counter_ns() - started) / 1000)
    return statistics.median(samples)


def sqlite_engine(folder: str, name: str) -> Engine:
    return Engine(compile_file(FLOW), store=SqliteStore(f"{folder}/{name}.db"),
                  settings=load_settings({}))


async def measure(rounds: int, repeat: int) -> dict[str, list[float]]:
    folder = tempfile.mkdtemp(prefix="flowctl-http-layers-")
    app_engine = sqlite_engine(folder, "app")
    app = create_app(app_engine, settings=app_engine.settings)
    kept: dict[str, Any] = {}
    real_turn = app_engine.turn

    def keeping(session: str, message: str, **kw: Any) -> AsyncIterator[Any]:
        async def events() -> AsyncIterator[Any]:
            async for event in real_turn(session, message, **kw):
                kept["done"] = event
                yield event
        return events()

    async def stored(session: str, message: str, **kw: Any) -> AsyncIterator[Any]:
        yield kept["done"]

    players: dict[str, Play] = {
        "engine": engine_player(sqlite_engine(folder, "engine")),
        "Turns.reply": turns_player(Turns(sqlite_engine(folder, "turns"))),
        "app": asgi_player(app),
        "app, stored DONE": asgi_player(app),
        "bare FastAPI": asgi_player(_bare_app()),
    }
    results: dict[str, list[float]] = {name: [] for name in players}
    async with app.router.lifespan_context(app):
        app_engine.turn = keeping  # type: ignore[method-assign]
        await median_us(players["app"], 1, "keep")
        for name, play in players.items():  # warm up
            app_engine.turn = stored if name == "app, stored DONE" else keeping  # type: ignore[method-assign]
            await median_us(play, 2, f"warm-{name}")
        for n in range(rounds):
            for name, play in players.items():
                app_engine.turn = stored if name == "app, stored DONE" else keeping  # type: ignore[method-assign]
                results[name].append(await median_us(play, repeat, f"{n}-{name}"))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=15,
                        help="replays of the conversations per round and layer")
    args = parser.parse_args()
    results = asyncio.run(measure(args.rounds, args.repeat))
    print(f"{'layer':20} {'median µs per request, each round':>40}")
    for name, medians in results.items():
        print(f"{name:20} {' / '.join(f'{m:7.1f}' for m in medians):>40}")


if __name__ == "__main__":
    main()
