"""``flowctl serve --workers N``: one listening socket, N worker processes serving it.

The supervisor checks what ``serve`` checks (the flow compiles, the settings parse, no
non-loopback address without keys), binds the socket once and forks N workers before any
event loop or thread exists. Each worker runs ``run_server`` on the inherited socket with
its own store connection(s) and engine; the kernel hands each new connection to one of the
workers waiting in ``accept``. A worker that dies is replaced; one that could not start
(status ``STARTUP_FAILED``: say its store became unreachable) stops the whole server with
its message, as do workers that keep dying. SIGTERM is passed on to the workers, which
finish their running turns, and the supervisor returns when all are gone; Ctrl-C reaches
the workers from the terminal directly. A worker gets SIGTERM when the supervisor dies.

The socket is made with the protocol ``getaddrinfo`` names (IPPROTO_TCP), so asyncio sets
TCP_NODELAY on every accepted connection. ``uvicorn --workers`` binds with protocol 0,
asyncio then leaves Nagle's algorithm on, and a response written in two parts (headers,
body) waits for the client's delayed ACK: about 40 ms more per keep-alive request.

Sessions must live where every worker sees them: ``sqlite://`` or ``postgresql://``, not
``memory://``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import FrameType

from engine.compiler import artefact
from engine.config import load_settings
from engine.errors import FlowDefinitionError, FlowRuntimeError
from engine.store import open_store
from engine.transports.http.server import bind, check_exposure, resolve, run_server

log = logging.getLogger("flowctl.http")

_PR_SET_PDEATHSIG = 1
STARTUP_FAILED = 2
"""A worker's exit status when it could not start (bad store, bad flow): not respawned."""
RESPAWN_WINDOW = 60.0
"""More than 5 respawns per worker within this many seconds stop the server."""


def run_workers(flow_path: str, *, workers: int, host: str, port: int, store_url: str,
                env: Mapping[str, str], allow_anonymous: bool = False,
                cors_origins: Iterable[str] = (), allowed_hosts: Iterable[str] = ()) -> None:
    """Serve ``flow_path`` from ``workers`` processes until SIGTERM or Ctrl-C; same
    arguments and exceptions as ``run_server``."""
    if store_url in ("memory://", "memory"):
        raise FlowRuntimeError("--workers needs a store every worker shares (sqlite:///PATH or "
                               "postgresql://...); memory:// lives in one process")
    artefact.load(Path(flow_path), env)  # FlowDefinitionError before any worker starts
    try:
        settings = load_settings(env).with_serve_options(
            allow_anonymous=allow_anonymous, cors_origins=cors_origins,
            allowed_hosts=allowed_hosts)
    except ValueError as err:
        raise FlowRuntimeError(str(err)) from None
    address = resolve(host, port)
    check_exposure(host, address, settings)
    # opened once here: a store that cannot be opened is one message, and a PostgreSQL
    # schema is migrated before the workers open theirs
    asyncio.run(open_store(store_url).close())
    sock = bind(host, port, address=address)

    def work() -> None:
        run_server(flow_path, host=host, port=port, store_url=store_url, env=env,
                   allow_anonymous=allow_anonymous, cors_origins=cors_origins,
                   allowed_hosts=allowed_hosts, sock=sock)

    try:
        Supervisor(work, workers).run()
    finally:
        sock.close()


class Supervisor:
    """Forks ``count`` processes running ``work`` and keeps that many running."""

    def __init__(self, work: Callable[[], None], count: int) -> None:
        self.work = work
        self.count = count
        self.children: set[int] = set()
        self.respawns: list[float] = []
        self.stopping = False
        self.failure: str | None = None

    def run(self) -> None:
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            for _ in range(self.count):
                self._spawn()
            log.info("%d workers started: %s", self.count, " ".join(map(str, self.children)))
            while self.children:
                pid, status = os.wait()
                self._exited(pid, status)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if self.failure:
            raise FlowRuntimeError(self.failure)

    def _spawn(self) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            code = _child(self.work, parent)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        self.children.add(pid)

    def _exited(self, pid: int, status: int) -> None:
        if pid not in self.children:
            return
        self.children.discard(pid)
        if self.stopping:
            return
        code = os.waitstatus_to_exitcode(status)
        now = time.monotonic()
        self.respawns = [t for t in self.respawns if now - t < RESPAWN_WINDOW] + [now]
        if code == STARTUP_FAILED or len(self.respawns) > 5 * self.count:
            self.failure = (f"a worker could not start (exit status {code}); see its message "
                            "above" if code == STARTUP_FAILED else
                            f"workers keep exiting (last status {code}); stopping")
            self._stop(signal.SIGTERM, None)
            return
        log.warning("worker %d exited (status %d); starting another", pid, code)
        self._spawn()

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True
        if signum == signal.SIGTERM:  # Ctrl-C (SIGINT) reached the workers already
            for pid in self.children:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass


def _die_with(parent: int) -> None:
    """Linux: a SIGTERM when the supervisor dies, even by SIGKILL: no orphan on the port."""
    if sys.platform.startswith("linux"):
        import ctypes  # here: `flowctl serve` with one worker never loads it

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # it died before that
        os.kill(os.getpid(), signal.SIGTERM)


def _child(work: Callable[[], None], parent: int) -> int:
    """Run ``work`` in a worker forked by ``parent``; its exit status."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL)
    _die_with(parent)
    try:
        work()
    except (FlowDefinitionError, FlowRuntimeError) as err:
        print(f"error: {err}", file=sys.stderr, flush=True)
        return STARTUP_FAILED
    except KeyboardInterrupt:
        return 0
    except BaseException as err:  # noqa: BLE001 -- a worker never unwinds into the parent
        print(f"worker {os.getpid()} failed: {type(err).__name__}: {err}", file=sys.stderr,
              flush=True)
        return 1
    return 0
