"""A flow file + host/port/store URL -> a running server: compile, bind, open store, serve.

``serve`` owns what it opened (socket, store, the engine's provider clients) and closes it
after uvicorn stopped; ``server_config`` is the uvicorn configuration it serves with.
"""

from __future__ import annotations

import asyncio
import copy
import errno
import logging
import socket
from collections.abc import Mapping
from typing import Any

import uvicorn

from engine.compiler import compile_file
from engine.config import load_settings
from engine.errors import FlowRuntimeError
from engine.runtime.engine import Engine
from engine.store import open_store
from engine.transports.http.app import SHUTDOWN_GRACE_SECONDS, create_app

log = logging.getLogger("flowctl.http")

DEFAULT_STORE = "sqlite:///.flowctl/sessions.db"

__all__ = ["DEFAULT_STORE", "bind", "run_server", "serve", "server_config"]


def server_config(app: Any, *, host: str, port: int,
                  max_message_chars: int = 4000) -> uvicorn.Config:
    """The uvicorn configuration of ``flowctl serve`` (bench/http.py serves with it too).

    The HTTP parser's buffer must hold a GET whose query carries the longest message allowed
    (9 bytes per percent-encoded Korean character), so that one too long still reaches the
    app and gets its 413 rather than the parser's bare 400.
    """
    logging_config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    logging_config["loggers"]["flowctl"] = {"handlers": ["default"], "level": "INFO",
                                            "propagate": False}
    return uvicorn.Config(app, host=host, port=port, log_config=logging_config,
                          access_log=False, timeout_graceful_shutdown=int(SHUTDOWN_GRACE_SECONDS),
                          h11_max_incomplete_event_size=max(65536, 9 * max_message_chars + 16384))


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``, or FlowRuntimeError with a one-line reason."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as err:
        raise FlowRuntimeError(f"cannot resolve host {host!r}: {err.strerror}") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise FlowRuntimeError(f"port {port} on {host} is already in use; stop the other "
                                   "server or pick another port with --port") from None
        raise FlowRuntimeError(f"cannot listen on {host}:{port}: {err.strerror}") from None
    return sock


async def serve(flow_path: str, *, host: str = "127.0.0.1", port: int = 8000,
                store_url: str = DEFAULT_STORE, env: Mapping[str, str]) -> None:
    """Compile ``flow_path``, bind ``host:port``, open the store and serve until stopped.

    Raises FlowDefinitionError for an invalid flow and FlowRuntimeError (one line) for a
    bad setting in ``env``, a port in use or a store that cannot be opened or written.
    """
    service = compile_file(flow_path)
    try:
        settings = load_settings(env)
    except ValueError as err:
        raise FlowRuntimeError(str(err)) from None
    sock = bind(host, port)
    try:
        store = open_store(store_url)
    except BaseException:
        sock.close()
        raise
    try:
        engine = Engine(service, store=store, settings=settings)
        try:
            app = create_app(engine, settings=settings)
            port = sock.getsockname()[1]
            server = uvicorn.Server(server_config(
                app, host=host, port=port, max_message_chars=engine.settings.max_message_chars))
            log.info("serving %s from %s with store %s; playground at http://%s:%d/",
                     service.name, flow_path, store_url, host, port)
            await server.serve(sockets=[sock])
        finally:
            await engine.aclose()  # the providers' HTTP clients
    finally:
        sock.close()
        await store.close()


def run_server(flow_path: str, *, host: str = "127.0.0.1", port: int = 8000,
               store_url: str = DEFAULT_STORE, env: Mapping[str, str]) -> None:
    """``serve`` for synchronous callers (the CLI); same arguments, same exceptions."""
    asyncio.run(serve(flow_path, host=host, port=port, store_url=store_url, env=env))
