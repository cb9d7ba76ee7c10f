"""A tool name and its arguments -> the tool's result: declared HTTP and MCP tools run, every
request through the gateway, every result checked against the tool's ``result`` schema.

``ToolBox`` serves both users of tools: ``call`` actions (``run``, with the task's
idempotency key and the action's outcome rules: an answer that may not have settled is
``ActionUnknown``) and agents' tool loops (``agent_tools``: each call gated, traced, and
its failure told to the model as text, never raised).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from engine.compiler.compiled import CompiledService, CompiledTool
from engine.providers.base import ToolSpec
from engine.providers.tools import BUILTIN_TOOLS, Tool
from engine.runtime.calls.actions import (
    ActionFailed,
    ActionStub,
    ActionUnknown,
    ActionUnreached,
    never_sent,
)
from engine.runtime.calls.gateway import rejection, schema_problem
from engine.runtime.calls.mcp import START_WITHIN, McpFailure, McpHub, McpToolError

if TYPE_CHECKING:
    import httpx

    from engine.runtime.calls.trace import Tracer

log = logging.getLogger("flowctl.tools")
_NOT_YET = frozenset({409, 425, 429})
MAX_RESULT_CHARS = 8000  # what a tool loop feeds back to the model at most


_WARNED: set[tuple[str, str | None]] = set()
"""(tool, MCP server) pairs already warned about: an engine per conversation says it once."""


class ToolBox:
    """The declared tools of one service, bound to the environment and the MCP servers."""

    def __init__(self, service: CompiledService, env: Mapping[str, str], hub: McpHub, *,
                 stubs: Mapping[str, ActionStub] | None = None,
                 client: httpx.AsyncClient | None = None) -> None:
        self.tools = service.tools
        self.env = dict(env)
        self.hub = hub
        self.stubs = stubs or {}
        self.client = client
        for tool in self.tools.values():
            if tool.kind == "mcp" and tool.server not in hub.servers \
                    and (tool.name, tool.server) not in _WARNED:  # once a process
                _WARNED.add((tool.name, tool.server))
                log.warning("tool %s names MCP server %s, which the operator's MCP "
                            "configuration does not list: its calls will fail", tool.name,
                            tool.server)

    async def prepare(self) -> None:
        """Start the operator's MCP servers this service's tools use and fetch their tool
        lists, so that the first turn needing one does not wait for a stdio server to start;
        a server that fails is logged, and its tools' calls go on to fail, or succeed, as
        they would have."""
        first = {t.server: t for t in self.tools.values() if t.kind == "mcp"
                 and t.name not in self.stubs and t.server in self.hub.servers}
        for server, tool in first.items():
            assert tool.remote is not None
            try:
                await self.hub.tool(server, tool.remote, timeout=START_WITHIN)
            except (McpFailure, McpToolError) as err:
                log.warning("MCP server %s did not start with the service: %s", server, err)

    async def spec(self, name: str) -> ToolSpec:
        """What the model is told about tool ``name`` (an MCP tool's as its server lists it)."""
        if name in BUILTIN_TOOLS:
            return BUILTIN_TOOLS[name].spec
        tool = self.tools[name]
        parameters, description = tool.parameters, tool.description
        if tool.kind == "mcp" and name not in self.stubs and (parameters is None
                                                              or not description):
            listed = await self._listed(tool)
            parameters = parameters or listed.input_schema
            description = description or listed.description
        return ToolSpec(name, description, parameters or {"type": "object", "properties": {}})

    async def check(self, name: str, args: Mapping[str, Any],
                    view: Mapping[str, Any]) -> str | None:
        """The gateway: why a request to ``name`` with ``args`` is rejected, or None."""
        if name in BUILTIN_TOOLS and name not in self.tools:
            return rejection(name, BUILTIN_TOOLS[name].spec.parameters, (), args, view)
        tool = self.tools[name]
        parameters = (await self.spec(name)).parameters  # unlisted: ActionFailed, never run
        return rejection(name, parameters, tool.rules, args, view)

    async def run(self, name: str, args: Mapping[str, Any], *, key: str | None = None,
                  retries: int = 0) -> dict[str, Any]:
        """Run declared tool ``name`` (after the gateway); retry what may not have settled."""
        stub = self.stubs.get(name)
        if stub is not None:
            return stub.outcome()
        tool = self.tools[name]
        sent = False  # whether an attempt may have reached the target
        for attempt in range(retries + 1):
            try:
                raw = await (self._http(tool, args, key) if tool.kind == "http"
                             else self._mcp(tool, args))
                break
            except ActionUnreached as err:  # nothing sent: as safe to retry as to give up
                if attempt == retries:
                    raise (ActionUnknown(str(err)) if sent else err) from None
            except ActionUnknown:
                sent = True
                if attempt == retries:
                    raise
        problem = schema_problem(tool.result, raw)
        if problem is not None:
            raise ActionFailed(f"{name} answered with an unexpected result ({problem})")
        return raw if isinstance(raw, dict) else {"value": raw}

    async def _listed(self, tool: CompiledTool) -> Any:
        assert tool.server is not None and tool.remote is not None
        try:
            return await self.hub.tool(tool.server, tool.remote, timeout=tool.timeout_sec)
        except McpFailure as err:
            raise ActionUnknown(str(err)) from None
        except McpToolError as err:
            raise ActionFailed(str(err)) from None

    async def _mcp(self, tool: CompiledTool, args: Mapping[str, Any]) -> Any:
        assert tool.server is not None and tool.remote is not None
        try:
            return await self.hub.call(tool.server, tool.remote, args, timeout=tool.timeout_sec)
        except McpFailure as err:
            raise ActionUnknown(str(err)) from None
        except McpToolError as err:
            raise ActionFailed(str(err)) from None

    async def _http(self, tool: CompiledTool, args: Mapping[str, Any], key: str | None) -> Any:
        import httpx  # only services with http tools pay for the import

        quoted = {k: quote(str(v), safe="") if isinstance(v, str | int | float) else v
                  for k, v in args.items()}
        url = str(tool.url.render({"args": quoted, "env": self.env})) if tool.url else ""
        headers = {k: str(t.render({"env": self.env})) for k, t in tool.headers}
        if key is not None:
            headers["Idempotency-Key"] = key
        body: Any = None
        if tool.body is not None:
            body = {k: v.render({"args": dict(args)}) for k, v in tool.body}
        elif tool.method != "GET":
            body = dict(args)
        own = self.client is None
        http = self.client or httpx.AsyncClient()
        try:
            response = await http.request(tool.method, url, json=body, headers=headers,
                                          timeout=tool.timeout_sec)
        except httpx.TimeoutException:
            raise ActionUnknown(f"{tool.name} timed out after {tool.timeout_sec:g} s") from None
        except httpx.TransportError as err:
            unreached = ActionUnreached if never_sent(err) else ActionUnknown
            raise unreached(f"{tool.name} is unreachable ({type(err).__name__})") from None
        finally:
            if own:
                await http.aclose()
        return _answer(tool.name, response)


def _answer(name: str, response: httpx.Response) -> Any:
    if response.status_code >= 400:
        log.warning("tool %s: HTTP %s: %s", name, response.status_code, response.text[:500])
        unsettled = response.status_code >= 500 or response.status_code in _NOT_YET
        raise (ActionUnknown if unsettled else ActionFailed)(
            f"{name} answered HTTP {response.status_code}")
    try:
        return response.json()
    except ValueError:
        raise ActionFailed(f"{name} answered with something that is not JSON") from None


@dataclass(slots=True)
class GatedTool:
    """A tool of an agent's loop: every call passes the gateway and is traced; a rejection
    or a failure comes back to the model as text (``error: ...``) so it can react."""

    spec: ToolSpec
    box: ToolBox
    view: Mapping[str, Any]
    tracer: Tracer

    async def __call__(self, arguments: Mapping[str, object]) -> str:
        name, started = self.spec.name, time.perf_counter()
        try:
            refused = await self.box.check(name, arguments, self.view)
            if refused is not None:
                self.tracer.tag("TOOL_GATEWAY_REJECTED")
                self.tracer.step(name, started, error=f"rejected: {refused}")
                return f"error: rejected by the gateway: {refused}"
            if name in BUILTIN_TOOLS and name not in self.box.tools:
                text = await BUILTIN_TOOLS[name](arguments)
            else:
                text = json.dumps(await self.box.run(name, arguments), ensure_ascii=False)
        except ActionFailed as err:
            self.tracer.step(name, started, error=f"failed: {err}")
            return f"error: tool {name} failed: {err}"
        self.tracer.step(name, started)
        return text[:MAX_RESULT_CHARS]


async def agent_tools(box: ToolBox, names: tuple[str, ...], view: Mapping[str, Any],
                      tracer: Tracer) -> dict[str, Tool]:
    """The tools an agent step offers, gated; a tool whose listing cannot be fetched (its MCP
    server is down) is left out, and the trace says so."""
    out: dict[str, Tool] = {}
    for name in names:
        started = time.perf_counter()
        try:
            out[name] = GatedTool(await box.spec(name), box, view, tracer)
        except ActionFailed as err:
            tracer.step(name, started, error=f"unavailable: {err}")
    return out


__all__ = ["GatedTool", "ToolBox", "agent_tools"]
