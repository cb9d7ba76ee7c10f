"""Operator MCP configuration -> tool lists and tool calls over the official ``mcp`` SDK.

The only module that imports ``mcp``. Which servers exist is the operator's decision, never
the flow file's: ``FLOWCTL_MCP_CONFIG`` names a JSON file ::

    {"servers": {
        "shop": {"command": ["python", "-m", "shop_mcp"], "env": {"SHOP_DB": "..."}},
        "maps": {"url": "http://127.0.0.1:9000/mcp", "headers": {...}}}}

A ``command`` entry is started over stdio (argv as written, no shell), a ``url`` entry is
reached over streamable HTTP. A flow file only names a server and a tool on it.

A stdio server is started on its first call and kept running (a process start costs
seconds for a Python server: it is paid once, not on every call); a call that fails short of
an answer stops it, and the next call starts it again, so a crashed or stuck server costs
one failed call, never a stuck engine. A streamable HTTP server gets a connection per call.
A server's tool list is fetched once and kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import FlowRuntimeError

log = logging.getLogger("flowctl.mcp")
CONFIG_VARIABLE = "FLOWCTL_MCP_CONFIG"


class McpConfigError(FlowRuntimeError):
    """The operator's MCP configuration cannot be used."""


class McpFailure(Exception):
    """A server could not be reached, or did not answer in time (it may have acted)."""


class McpToolError(Exception):
    """The server answered: the tool failed, or does not exist there."""


@dataclass(frozen=True, slots=True)
class McpServer:
    """One operator-configured server: ``command`` (stdio) or ``url`` (streamable HTTP)."""

    name: str
    command: tuple[str, ...] = ()
    url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None


@dataclass(frozen=True, slots=True)
class RemoteTool:
    """A tool as the server lists it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


def load_mcp_config(env: Mapping[str, str]) -> dict[str, McpServer]:
    """The servers of the file ``FLOWCTL_MCP_CONFIG`` names ({} when it is not set)."""
    path = env.get(CONFIG_VARIABLE, "").strip()
    if not path:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise McpConfigError(f"{CONFIG_VARIABLE}={path!r} cannot be read as JSON: {err}") from None
    servers = data.get("servers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise McpConfigError(f"{CONFIG_VARIABLE}={path!r}: expected "
                             '{"servers": {"name": {"command": [...]} or {"url": "..."}}}')
    return {name: _server(path, name, entry) for name, entry in servers.items()}


def _server(path: str, name: str, entry: Any) -> McpServer:
    where = f"{CONFIG_VARIABLE}={path!r}: server {name!r}"
    if not isinstance(entry, dict) or ("command" in entry) == ("url" in entry):
        raise McpConfigError(f"{where} needs exactly one of `command` (argv list) or `url`")
    command, url = entry.get("command"), entry.get("url")
    if command is not None and not (isinstance(command, list) and command
                                    and all(isinstance(a, str) for a in command)):
        raise McpConfigError(f"{where}: `command` must be a non-empty list of strings (argv)")
    if url is not None and not (isinstance(url, str) and url.startswith(("http://", "https://"))):
        raise McpConfigError(f"{where}: `url` must be an http(s) URL")
    env = entry.get("env") or {}
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise McpConfigError(f"{where}: `env` must map names to strings")
    cwd = entry.get("cwd")
    return McpServer(name=name, command=tuple(command or ()), url=url, env=env,
                     cwd=str(cwd) if cwd is not None else None)


class McpHub:
    """Tool lists and tool calls of the operator's MCP servers.

    A stdio server is started on its first call and kept running for the next ones (one
    process per server, not one per call); a call that fails short of the server's answer
    (the process died, it did not answer in time) stops it, and the next call starts it
    afresh. A call that gives up while the server is still starting leaves the start going
    (up to ``START_WITHIN``) for the next call. A streamable HTTP server is reached with a
    connection of its own per call.
    """

    def __init__(self, servers: Mapping[str, McpServer]) -> None:
        self.servers = dict(servers)
        self._tools: dict[str, dict[str, RemoteTool]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = asyncio.Lock()
        self._kept: dict[str, _Kept] = {}
        self._closing: set[asyncio.Task[None]] = set()

    async def tool(self, server: str, name: str, *, timeout: float) -> RemoteTool:
        """The listing of ``name`` on ``server`` (fetched once per hub)."""
        self._here()
        if server not in self._tools:
            async with self._lock:
                if server not in self._tools:
                    self._tools[server] = await self._list(server, timeout)
        tools = self._tools[server]
        if name not in tools:
            raise McpToolError(f"MCP server {server!r} has no tool {name!r} (it has: "
                               f"{', '.join(sorted(tools)) or 'none'})")
        return tools[name]

    async def call(self, server: str, name: str, args: Mapping[str, Any], *,
                   timeout: float) -> Any:
        """The tool's result: its structured content, else its text (JSON when it parses)."""
        result = await self._session(server, timeout,
                                     lambda c: c.call_tool(name, dict(args)))
        text = "\n".join(getattr(block, "text", "") for block in result.content).strip()
        if result.is_error:
            raise McpToolError(text or f"tool {name!r} failed")
        if result.structured_content is not None:
            return result.structured_content
        try:
            return json.loads(text)
        except ValueError:
            return {"text": text}

    async def aclose(self) -> None:
        """Stop the stdio servers this hub started (a later call starts them again)."""
        self._here()
        for server in list(self._kept):
            self._stop(server)
        if self._closing:
            await asyncio.wait(self._closing, timeout=_STOP_WITHIN + 1)

    async def _list(self, server: str, timeout: float) -> dict[str, RemoteTool]:
        listed = await self._session(server, timeout, lambda c: c.list_tools())
        return {t.name: RemoteTool(t.name, t.description or "", dict(t.input_schema))
                for t in listed.tools}

    async def _session(self, server: str, timeout: float, work: Any) -> Any:
        from mcp import Client, MCPError  # only services with MCP tools pay for the import
        from mcp_types import CONNECTION_CLOSED

        config = self.servers.get(server)
        if config is None:
            raise McpFailure(f"MCP server {server!r} is not configured: the operator lists "
                             f"servers in the file {CONFIG_VARIABLE} names")
        self._here()
        try:
            async with asyncio.timeout(timeout):
                if config.url is not None:
                    async with Client(config.url) as client:
                        return await work(client)
                return await work(await self._running(config))
        except MCPError as err:
            if err.code != CONNECTION_CLOSED:
                raise McpToolError(f"MCP server {server!r}: {err}") from None
            self._stop(server)
            raise McpFailure(f"MCP server {server!r} is unavailable (its connection "
                             "closed)") from None
        except TimeoutError:
            kept = self._kept.get(server)
            if kept is None or kept.ready.done():  # the call was slow, not the start: the
                self._stop(server)                 # start goes on for the next call
            raise McpFailure(f"MCP server {server!r} did not answer within {timeout:g} s") \
                from None
        except Exception as err:  # a dead server surfaces as OSError, anyio or httpx errors
            self._stop(server)
            leaf = _leaf(err)
            log.warning("MCP server %s: %s: %s", server, type(leaf).__name__, leaf)
            raise McpFailure(f"MCP server {server!r} is unavailable ({_describe(leaf)})") \
                from None

    async def _running(self, config: McpServer) -> Any:
        """The kept client of a stdio server, started when there is none (or it ended)."""
        kept = self._kept.get(config.name)
        if kept is not None and not kept.task.done():
            return await asyncio.shield(kept.ready)
        if kept is not None:
            self._stop(config.name)
        kept = self._kept[config.name] = _keep(config)
        return await asyncio.shield(kept.ready)

    def _stop(self, server: str) -> None:
        """Stop a kept server in the background: the failing call does not wait for it."""
        kept = self._kept.pop(server, None)
        if kept is None:
            return
        kept.stop.set()
        _settle(kept.ready, ConnectionError("the server was stopped"))
        self._closing.add(kept.task)
        kept.task.add_done_callback(self._closing.discard)

    def _here(self) -> None:
        """Kept sessions belong to one event loop; on another one they start afresh."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop, self._lock, self._kept, self._closing = loop, asyncio.Lock(), {}, set()


_STOP_WITHIN = 3.0  # seconds a kept stdio server is given to exit once its stdin closes
START_WITHIN = 60.0
"""Seconds a stdio server has to start and answer the handshake. A call that gives up
sooner (its tool's ``timeout_sec``) leaves the start going for the next call."""


@dataclass(slots=True)
class _Kept:
    """A stdio server's client, held open by a task of its own (the SDK's task groups must
    be left by the task that entered them)."""

    task: asyncio.Task[None]
    ready: asyncio.Future[Any]
    stop: asyncio.Event


def _keep(config: McpServer) -> _Kept:
    from mcp import Client

    ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()

    async def hold() -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                async with asyncio.timeout(START_WITHIN):
                    client = await stack.enter_async_context(Client(_target(config)))
                if not ready.done():
                    ready.set_result(client)
                await stop.wait()
        except Exception as err:
            if ready.done():
                log.info("MCP server %s ended: %s", config.name, _describe(_leaf(err)))
            _settle(ready, err)
        finally:
            _settle(ready, ConnectionError("the server was stopped"))

    return _Kept(asyncio.create_task(hold(), name=f"mcp:{config.name}"), ready, stop)


def _settle(ready: asyncio.Future[Any], err: BaseException) -> None:
    """Fail a start still waited for (an error, never a cancellation of its waiters)."""
    if not ready.done():
        ready.set_exception(err)
        ready.exception()  # marks it retrieved: no "never retrieved" log when nobody waited


def _leaf(err: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups of the SDK's task groups."""
    while isinstance(err, BaseExceptionGroup) and err.exceptions:
        err = err.exceptions[0]
    return err


def _describe(err: BaseException) -> str:
    text = str(getattr(err, "message", "") or err).strip()
    return f"{type(err).__name__}: {text}"[:200] if text else type(err).__name__


def _target(config: McpServer) -> Any:
    """A URL, or the argv to start; the SDK passes a stdio server only PATH, HOME and the
    like (not the engine's keys) plus the entry's own ``env``."""
    from mcp import StdioServerParameters

    if config.url is not None:
        return config.url
    return StdioServerParameters(command=config.command[0], args=list(config.command[1:]),
                                 env=dict(config.env) or None, cwd=config.cwd)


__all__ = ["CONFIG_VARIABLE", "START_WITHIN", "McpConfigError", "McpFailure", "McpHub",
           "McpServer", "McpToolError", "RemoteTool", "load_mcp_config"]
