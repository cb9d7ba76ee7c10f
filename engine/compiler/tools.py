"""The ``tools:`` section of a ServiceSpec -> CompiledTools, and tool names resolved.

Schemas are checked against JSON Schema Draft 2020-12 (FL086), request templates and gateway
rules compiled once (a rule sees ``args`` and the turn context), a declared name that hides
a built-in tool is refused (FL089). ``resolve_tool`` is the one place that says whether a
name an agent step or an action uses is a tool: built in, declared, or an undeclared
``server.tool`` of an MCP server (FL087).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.compiler import compiled as c
from engine.compiler.resolve import Resolver, suggest
from engine.dsl import spec as s
from engine.dsl.tools_spec import GatewayRule, ToolSpec
from engine.registry import ACTION_TOOLS, AGENT_TOOLS
from engine.source import Path

BUILTIN_NAMES = frozenset(AGENT_TOOLS) | frozenset(ACTION_TOOLS)


def compile_tools(spec: s.ServiceSpec, r: Resolver) -> dict[str, c.CompiledTool]:
    """Every declared tool, compiled; problems are located findings in ``r``."""
    out = {}
    for name, tool in spec.tools.items():
        path: Path = ("tools", name)
        if name in BUILTIN_NAMES:
            r.error(path, f"tool `{name}` has the name of a built-in tool", "FL089",
                    hint=f"rename it, e.g. `{name}_api`", key=True)
        compiled = _tool(name, tool, path, r)
        if compiled is not None:
            out[name] = compiled
    return out


def _tool(name: str, tool: ToolSpec, path: Path, r: Resolver) -> c.CompiledTool | None:
    parameters = _schema(tool.parameters, (*path, "parameters"), r, object_only=True)
    result = _schema(tool.result, (*path, "result"), r, object_only=False)
    rules = compile_rules(tool.rules, (*path, "rules"), r)
    common: dict[str, Any] = dict(name=name, description=tool.description,
                                  parameters=parameters, result=result,
                                  timeout_sec=tool.timeout_sec, rules=rules)
    if tool.mcp is not None:
        return c.CompiledTool(kind="mcp", server=tool.mcp.server, remote=tool.mcp.tool, **common)
    http = tool.http
    assert http is not None  # the spec requires one of http and mcp
    hpath = (*path, "http")
    url = r.template(http.url, (*hpath, "url"), only=("args", "env"),
                     why="a tool's URL sees ")
    headers = tuple((k, t) for k, v in http.headers.items()
                    if (t := r.template(v, (*hpath, "headers", k), only=("env",),
                                        why="a tool's header sees ")))
    body = None
    if http.json_body is not None:
        body = tuple((k, v) for k, raw in http.json_body.items()
                     if (v := _value(raw, (*hpath, "json", k), r)) is not None)
    return c.CompiledTool(kind="http", method=http.method, url=url, headers=headers, body=body,
                          **common)


def _value(raw: Any, path: Path, r: Resolver) -> c.Value | None:
    if not isinstance(raw, str):
        return c.Const(raw)
    return r.expression(raw, path, only=("args",), why="a tool's body sees ")


def compile_rules(rules: Iterable[GatewayRule], path: Path,
                  r: Resolver) -> tuple[c.CompiledRule, ...]:
    """Gateway rules: ``when`` sees ``args`` and the turn context, ``reject`` sees ``args``."""
    return tuple(rule for i, raw in enumerate(rules)
                 if (rule := _rule(raw.when, raw.reject, (*path, i), r)) is not None)


def _rule(when: str, reject: str, path: Path, r: Resolver) -> c.CompiledRule | None:
    cond = r.expression(when, (*path, "when"), extra=("args",))
    text = r.template(reject, (*path, "reject"), extra=("args",))
    return c.CompiledRule(cond, text) if cond is not None and text is not None else None


def _schema(schema: Mapping[str, Any] | None, path: Path, r: Resolver, *,
            object_only: bool) -> dict[str, Any] | None:
    if schema is None:
        return None
    from jsonschema import Draft202012Validator  # only a flow with tool schemas needs it
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as err:
        r.error((*path, *err.path), f"invalid JSON Schema: {err.message}", "FL086",
                hint="see https://json-schema.org/understanding-json-schema/")
        return None
    if object_only and schema.get("type") != "object":
        r.error(path, "a tool's `parameters` must be an object schema (`type: object`)",
                "FL086", hint="put the arguments under `properties`")
        return None
    return dict(schema)


def check_irreversible(spec: s.ServiceSpec, r: Resolver) -> None:
    """An irreversible tool runs only from an irreversible action (journalled, confirmed
    first: FL046 checks the path), never from a model's tool loop."""
    risky = {n for n, t in spec.tools.items() if t.irreversible}
    if not risky:
        return
    for _, _, path, step in s.service_steps(spec):
        if isinstance(step, s.AgentStep):
            for i, tool in enumerate(step.tools):
                if tool in risky:
                    r.error((*path, "tools", i), f"irreversible tool `{tool}` is offered to "
                            "an agent: a model could run it without the user's confirmation",
                            "FL046", hint="run it from an `irreversible: true` action after a "
                                          "`decide: confirm` stage")
    for name, action in spec.actions.items():
        if isinstance(action, s.ToolAction) and action.tool in risky and not action.irreversible:
            r.error(("actions", name, "tool"), f"action `{name}` runs irreversible tool "
                    f"`{action.tool}` but is not `irreversible: true`", "FL046",
                    hint="mark the action `irreversible: true` (journalled, confirmed first)")


def resolve_tool(name: str, known: Iterable[str], declared: Mapping[str, object],
                 path: Path, r: Resolver) -> bool:
    """Whether ``name`` is a built-in tool among ``known`` or a declared one; report it if not."""
    if name in declared or name in known:
        return True
    if "." in name:
        server, _, remote = name.partition(".")
        r.error(path, f"tool `{name}` is not declared", "FL087",
                hint=f"declare it under `tools`, e.g. `{remote}: {{mcp: {{server: {server}, "
                     f"tool: {remote}}}}}`, and use that name")
        return False
    pool = sorted({*known, *declared})
    r.error(path, f"unknown tool `{name}`", "FL021",
            hint=suggest(name, pool) or f"declare it under `tools`; known: {', '.join(pool)}")
    return False


__all__ = ["BUILTIN_NAMES", "check_irreversible", "compile_rules", "compile_tools",
           "resolve_tool"]
