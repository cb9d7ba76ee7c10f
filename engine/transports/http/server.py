"""A flow file + host/port/store URL -> a running server: compile, bind, open store, serve.

``serve`` owns what it opened (socket, store, the engine's provider clients) and closes it
after uvicorn stopped; ``server_config`` is the uvicorn configuration it serves with.

With no API key configured the server answers loopback clients only, and refuses to listen
on any other address unless anonymous access was allowed (``--allow-anonymous``). On
SIGTERM (or Ctrl-C) uvicorn stops accepting, running turns finish and their streams send
their DONE, then what ``serve`` opened is closed and ``run_server`` returns.
"""

from __future__ import annotations

import asyncio
import copy
import errno
import logging
import signal
import socket
import threading
from collections.abc import Callable, Iterable, Mapping
from types import FrameType
from typing import Any

import uvicorn

from engine.app import engine_factory
from engine.config import Settings, load_settings
from engine.errors import FlowRuntimeError
from engine.store import open_store
from engine.store.urls import redact
from engine.transports.http.app import SHUTDOWN_GRACE_SECONDS, create_app
from engine.transports.http.edge import is_loopback

log = logging.getLogger("flowctl.http")

DEFAULT_STORE = "sqlite:///.flowctl/sessions.db"

__all__ = ["DEFAULT_STORE", "LOG_LEVELS", "bind", "check_exposure", "dev_mode_warning",
           "logging_options", "resolve", "run_server", "serve", "server_config"]


def server_config(app: Any, *, host: str, port: int, max_message_chars: int = 4000,
                  log_level: str = "info", access_log: bool = False) -> uvicorn.Config:
    """The uvicorn configuration of ``flowctl serve`` (bench/http.py serves with it too).

    The HTTP parser's buffer must hold a GET whose query carries the longest message allowed
    (9 bytes per percent-encoded Korean character), so that one too long still reaches the
    app and gets its 413 rather than the parser's bare 400.
    """
    logging_config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    logging_config["loggers"]["flowctl"] = {"handlers": ["default"], "level": log_level.upper(),
                                            "propagate": False}
    return uvicorn.Config(app, host=host, port=port, log_config=logging_config,
                          log_level=log_level, access_log=access_log,
                          ws="none",  # no WebSocket routes: not loading a ws library saves memory
                          timeout_graceful_shutdown=int(SHUTDOWN_GRACE_SECONDS),
                          h11_max_incomplete_event_size=max(65536, 9 * max_message_chars + 16384))


Address = tuple[int, int, int, Any]  # family, type, proto, sockaddr


def resolve(host: str, port: int) -> Address:
    """Where ``bind`` would listen, or FlowRuntimeError with a one-line reason."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as err:
        raise FlowRuntimeError(f"cannot resolve host {host!r}: {err.strerror}") from None
    return family, kind, proto, address


def check_exposure(host: str, address: Address, settings: Settings) -> None:
    """No keys and not anonymous: only a loopback address may be listened on."""
    if settings.api_keys or settings.allow_anonymous or is_loopback(str(address[3][0])):
        return
    raise FlowRuntimeError(f"refusing to listen on {host} without API keys: anyone who can "
                           "reach it could move money; set FLOWCTL_API_KEYS (or "
                           "FLOWCTL_API_KEYS_FILE), or pass --allow-anonymous")


def bind(host: str, port: int, *, address: Address | None = None) -> socket.socket:
    """A socket bound to ``host:port``, or FlowRuntimeError with a one-line reason."""
    family, kind, proto, address_ = address or resolve(host, port)
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address_)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise FlowRuntimeError(f"port {port} on {host} is already in use; stop the other "
                                   "server or pick another port with --port") from None
        raise FlowRuntimeError(f"cannot listen on {host}:{port}: {err.strerror}") from None
    return sock


async def serve(flow_path: str, *, host: str = "127.0.0.1", port: int = 8000,
                store_url: str = DEFAULT_STORE, env: Mapping[str, str],
                allow_anonymous: bool = False, cors_origins: Iterable[str] = (),
                allowed_hosts: Iterable[str] = (), sock: socket.socket | None = None) -> None:
    """Compile ``flow_path`` (a flow or an app), bind ``host:port``, open the store, serve.

    ``sock``: a socket already bound after the same checks (``flowctl serve --workers``).

    ``allow_anonymous``, ``cors_origins`` and ``allowed_hosts`` add to what ``env`` sets
    (``flowctl serve``'s options). Raises FlowDefinitionError for an invalid flow and
    FlowRuntimeError (one line) for a bad setting, a non-loopback address without keys
    (unless anonymous), a port in use or a store that cannot be opened or written.
    """
    make_engine = engine_factory(flow_path, env)  # a flow file, or an app of several
    try:
        settings = load_settings(env).with_serve_options(
            allow_anonymous=allow_anonymous, cors_origins=cors_origins,
            allowed_hosts=allowed_hosts)
    except ValueError as err:
        raise FlowRuntimeError(str(err)) from None
    log_options = logging_options(env)
    if sock is None:
        address = resolve(host, port)
        check_exposure(host, address, settings)
        sock = bind(host, port, address=address)
    try:
        store = open_store(store_url)
    except BaseException:
        sock.close()
        raise
    try:
        engine = make_engine(store, settings)
        try:
            app = create_app(engine, settings=settings, host=host)
            port = sock.getsockname()[1]
            server = uvicorn.Server(server_config(
                app, host=host, port=port, max_message_chars=engine.settings.max_message_chars,
                **log_options))
            log.info("serving %s from %s with store %s; playground at http://%s:%d/",
                     engine.about.name, flow_path, redact(store_url), host, port)
            log.info("%s", access_line(settings))
            if (warning := dev_mode_warning(str(sock.getsockname()[0]), settings)):
                log.warning("%s", warning)
            await server.serve(sockets=[sock])
        finally:
            await engine.aclose()  # the providers' HTTP clients
    finally:
        sock.close()
        await store.close()


def access_line(settings: Settings) -> str:
    """Who may use the server, for the log (never a key)."""
    if settings.api_keys:
        who = f"{len(settings.api_keys)} API key(s)"
    elif settings.allow_anonymous:
        who = "anyone (anonymous access allowed, no API keys)"
    else:
        who = "loopback clients only (no API keys)"
    limit = settings.rate_limit or "unlimited"
    return f"access: {who}; rate limit {limit}; CORS origins: " \
           f"{', '.join(settings.cors_origins) or 'none'}"


LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


def logging_options(env: Mapping[str, str]) -> dict[str, Any]:
    """FLOWCTL_LOG_LEVEL (one of LOG_LEVELS, default info) and FLOWCTL_ACCESS_LOG=true (one
    line per request, uvicorn's access log); `flowctl serve --log-level/--access-log` set them."""
    level = env.get("FLOWCTL_LOG_LEVEL", "info").strip().lower() or "info"
    if level not in LOG_LEVELS:
        raise FlowRuntimeError(f"FLOWCTL_LOG_LEVEL={level!r}: expected one of "
                               f"{', '.join(LOG_LEVELS)}")
    access = env.get("FLOWCTL_ACCESS_LOG", "").strip().lower() in ("1", "true", "yes", "on")
    return {"log_level": level, "access_log": access}


def dev_mode_warning(listen_host: str, settings: Settings) -> str | None:
    """FLOWCTL_DEV_MODE (unredacted traces at /debug) on a server others can reach is worth
    a word."""
    if not settings.dev_mode or is_loopback(listen_host):
        return None
    return (f"FLOWCTL_DEV_MODE is on and the server listens on {listen_host}, not loopback: "
            "traces are not redacted and the debug endpoint is open to every client let in; "
            "unset FLOWCTL_DEV_MODE outside development")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when it is installed (uvicorn[standard]), as uvicorn's own ``auto``
    picks: ~15 % less server CPU per turn (bench/http.py, docs/performance.md)."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


class _Stopped(BaseException):
    """SIGTERM after uvicorn's own handler gave it back (a graceful stop is over)."""


def _stopped(signum: int, frame: FrameType | None) -> None:
    raise _Stopped


def run_server(flow_path: str, *, host: str = "127.0.0.1", port: int = 8000,
               store_url: str = DEFAULT_STORE, env: Mapping[str, str],
               allow_anonymous: bool = False, cors_origins: Iterable[str] = (),
               allowed_hosts: Iterable[str] = (), sock: socket.socket | None = None) -> None:
    """``serve`` for synchronous callers (the CLI); same arguments, same exceptions.

    SIGTERM stops it gracefully and it returns: uvicorn drains the server, then re-raises
    the signal, which here closes the store and the providers' clients instead of killing
    the process before they are closed.
    """
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _stopped) if main else None
    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(serve(flow_path, host=host, port=port, store_url=store_url, env=env,
                             allow_anonymous=allow_anonymous, cors_origins=cors_origins,
                             allowed_hosts=allowed_hosts, sock=sock))
    except _Stopped:
        log.info("stopped")
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
