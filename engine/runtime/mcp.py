"""Operator MCP configuration -> tool lists and tool calls over the official ``mcp`` SDK.

The only module that imports ``mcp``. Which servers exist is the operator's decision, never
the flow file's: ``FLOWCTL_MCP_CONFIG`` names a JSON file ::

    {"servers": {
        "shop": {"command": ["python", "-m", "shop_mcp"], "env": {"SHOP_DB": "..."}},
        "maps": {"url": "http://127.0.0.1:9000/mcp", "headers": {...}}}}

A ``command`` entry is started over stdio (argv as written, no shell), a ``url`` entry is
reached over streamable HTTP. A flow file only names a server and a tool on it.

Each call opens its own connection (a stdio server is started for it and stopped after):
no session outlives a request, so a crashed server costs one failed call, never a stuck
engine. A server's tool list is fetched once and kept.
"""

from __future__ import annotations

import asyncio
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
    """Tool lists and tool calls of the operator's MCP servers."""

    def __init__(self, servers: Mapping[str, McpServer]) -> None:
        self.servers = dict(servers)
        self._tools: dict[str, dict[str, RemoteTool]] = {}
        self._lock = asyncio.Lock()

    async def tool(self, server: str, name: str, *, timeout: float) -> RemoteTool:
        """The listing of ``name`` on ``server`` (fetched once per hub)."""
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

    async def _list(self, server: str, timeout: float) -> dict[str, RemoteTool]:
        listed = await self._session(server, timeout, lambda c: c.list_tools())
        return {t.name: RemoteTool(t.name, t.description or "", dict(t.input_schema))
                for t in listed.tools}

    async def _session(self, server: str, timeout: float, work: Any) -> Any:
        from mcp import Client, MCPError  # only services with MCP tools pay for the import

        config = self.servers.get(server)
        if config is None:
            raise McpFailure(f"MCP server {server!r} is not configured: the operator lists "
                             f"servers in the file {CONFIG_VARIABLE} names")
        try:
            async with asyncio.timeout(timeout):
                async with Client(_target(config)) as client:
                    return await work(client)
        except TimeoutError:
            raise McpFailure(f"MCP server {server!r} did not answer within {timeout:g} s") \
                from None
        except MCPError as err:
            raise McpToolError(f"MCP server {server!r}: {err}") from None
        except Exception as err:  # a dead server surfaces as OSError, anyio or httpx errors
            leaf = _leaf(err)
            log.warning("MCP server %s: %s: %s", server, type(leaf).__name__, leaf)
            raise McpFailure(f"MCP server {server!r} is unavailable ({_describe(leaf)})") \
                from None


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


__all__ = ["CONFIG_VARIABLE", "McpConfigError", "McpFailure", "McpHub", "McpServer",
           "McpToolError", "RemoteTool", "load_mcp_config"]
