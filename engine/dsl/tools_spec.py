"""Closed pydantic models of the flow file's ``tools:`` section (part of spec.py's schema).

A tool is declared once, by name, and used by an agent step (``tools: [name]``) or an
action (``tool: name``). An HTTP tool carries its own request template; an MCP tool only
*names* a server and a tool on it: which servers exist (a command to start, a URL) is the
operator's configuration (``FLOWCTL_MCP_CONFIG``), never the flow file's, so a flow file
can start no process and reach no host the operator did not list.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from engine.dsl.base import Spec

_OBJECT = {"type": "object", "properties": {}}


class GatewayRule(Spec):
    """A policy rule of the gateway: when its condition holds, the request is rejected."""

    when: str = Field(description="A jinja2 expression over `args` (the request's arguments) and the turn context, e.g. `args.amount > 500000` or `context.user_type != 'seller'`.")
    reject: str = Field(description="Why it is rejected, as a template (it sees `args`): fed to the model in a tool loop, `result.error` of a `call` step.")


class ToolHttp(Spec):
    """The HTTP request of a tool; strings in `json` are expressions over `args`."""

    method: str = Field("POST", pattern="^(GET|POST|PUT|PATCH|DELETE)$", description="HTTP method.")
    url: str = Field(description="URL template; it sees `args` (each value URL-quoted) and `env`, e.g. `{{ env.SHOP_URL }}/orders/{{ args.order_id }}`.")
    json_body: dict[str, Any] | None = Field(None, alias="json", description="Body; strings are expressions over `args`. Without it a non-GET request sends the arguments themselves.")
    headers: dict[str, str] = Field(default_factory=dict, description="Header templates (they see `env`).")


class McpRef(Spec):
    """A tool of an operator-configured MCP server."""

    server: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$", description="Server name in the operator's MCP configuration (FLOWCTL_MCP_CONFIG).")
    tool: str = Field(min_length=1, description="The tool's name on that server; its parameters come from the server's tool list.")


class ToolSpec(Spec):
    """A tool the flow declares: over HTTP (`http`) or on an MCP server (`mcp`)."""

    description: str = Field("", description="What the tool does, for the model (an MCP tool defaults to the server's description).")
    parameters: dict[str, Any] | None = Field(None, description="JSON Schema (an object schema) of the arguments; checked by the gateway before every call. An MCP tool's defaults to the server's `inputSchema`.")
    result: dict[str, Any] | None = Field(None, description="JSON Schema the tool's result must satisfy; a result that does not is a tool error.")
    http: ToolHttp | None = Field(None, description="The HTTP request that runs the tool.")
    mcp: McpRef | None = Field(None, description="The MCP server and tool that run it.")
    timeout_sec: float = Field(10.0, gt=0, le=300, description="Timeout of one call.")
    irreversible: bool = Field(False, description="Moves money or changes the world: only an `irreversible: true` action may run it (after a confirmation, through the action journal), never an agent's tool loop.")
    rules: list[GatewayRule] = Field(default_factory=list, description="Gateway rules, tried in order after the `parameters` check; the first whose `when` holds rejects the request (failure tag TOOL_GATEWAY_REJECTED).")

    @model_validator(mode="after")
    def _one_runner(self) -> ToolSpec:
        if (self.http is None) == (self.mcp is None):
            raise ValueError("a tool needs exactly one of `http` or `mcp`")
        return self


EMPTY_PARAMETERS: dict[str, Any] = _OBJECT

__all__ = ["EMPTY_PARAMETERS", "GatewayRule", "McpRef", "ToolHttp", "ToolSpec"]
