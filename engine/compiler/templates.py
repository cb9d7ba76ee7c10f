"""Message/prompt/expression source -> a compiled template: its plan (or jinja2's code) and
the names, slots and fields it reads.

Compiled in the one sandboxed environment (``engine.compiler.sandbox``): user text only
ever reaches templates as data, and a misspelt variable is caught at compile time by
``undeclared()`` (and fails loudly at render time, StrictUndefined).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any

from jinja2 import TemplateSyntaxError, meta, nodes

from engine.compiler import fast
from engine.compiler.filters import money, won
from engine.compiler.readers import reader
from engine.compiler.rendering import Compiled, template_reader
from engine.compiler.sandbox import base_context, environment, evaluates, renders, template_code
from engine.registry import CONTEXT_FIELDS

# Names every message, condition and step expression may use (the turn context).
CONTEXT_NAMES = frozenset({
    "slots", "missing", "errors", "meta", "filling_turns", "max_fill_turns", "batch",
    "progress", "turn", "stage", "flow", "completed", "summary", "result", "ask", "value",
    "today", "now", "context", "agents", "retrieved", "loop",
})


@lru_cache(maxsize=4096)
def compile_template(source: str) -> Compiled:
    """Compile a message or prompt template; raises TemplateSyntaxError (with lineno).

    The text is parsed once: the tree gives the names it reads, then becomes code. The
    compiled ``render(ctx)`` expects ``ctx`` to include ``base_context()``.
    """
    env = environment()
    tree = env.parse(source)
    code = env.compile(tree)  # jinja2's own checks (an unknown filter, ...), plan or not
    plan = fast.template_plan(env, tree)
    if plan is not None:  # no jinja2 template run per render
        return Compiled(source, *_with_reads(tree, template_reader(plan)), plan=plan)
    return Compiled(source, *_with_reads(tree, renders(code)))


@lru_cache(maxsize=4096)
def compile_expression(source: str) -> Compiled:
    """Compile a jinja2 expression (conditions, `set`, `args`); raises TemplateSyntaxError."""
    env = environment()
    code = template_code(source, expression=True)
    tree = env.parse("{{ (" + source + ") }}")
    plan = fast.expression_plan(env, tree)
    if plan is not None:  # simple names, paths, comparisons: no template run per call
        return Compiled(source, *_with_reads(tree, reader(plan)), expression=True,
                        plan=plan)
    return Compiled(source, *_with_reads(tree, evaluates(code)), expression=True)


def _with_reads(tree: nodes.Template, render: Callable[[Mapping[str, Any]], Any]) -> tuple[
        frozenset[str], Callable[[Mapping[str, Any]], Any], frozenset[str],
        frozenset[tuple[str, str]], frozenset[str], frozenset[str], frozenset[tuple[str, str]]]:
    names, slots, fields, agents, found, agent_fields = _reads(tree)
    return names, render, slots, fields, agents, found, agent_fields


def _reads(tree: nodes.Template) -> tuple[frozenset[str], frozenset[str],
                                          frozenset[tuple[str, str]], frozenset[str],
                                          frozenset[str], frozenset[tuple[str, str]]]:
    """The undeclared names a tree reads, the attributes it reads from ``slots``, the
    fields it reads from the fixed-shape values (``turn.intent``), from ``agents`` and
    from ``retrieved``, and the fields of agents' results (``agents.reco.price``)."""
    names = frozenset(meta.find_undeclared_variables(tree))
    slots, fields, agents, retrieved = set(), set(), set(), set()
    agent_fields: set[tuple[str, str]] = set()
    found: Iterator[nodes.Getattr | nodes.Getitem] = tree.find_all((nodes.Getattr, nodes.Getitem))
    for node in found:
        attr, inner = _attr(node), node.node
        if attr is None:
            continue
        if isinstance(inner, nodes.Getattr | nodes.Getitem) and "agents" in names and \
                isinstance(inner.node, nodes.Name) and inner.node.name == "agents":
            agent = _attr(inner)
            if agent is not None:
                agent_fields.add((agent, attr))
        if not isinstance(inner, nodes.Name) or inner.name not in names:
            continue
        if inner.name == "slots":
            slots.add(attr)
        elif inner.name in CONTEXT_FIELDS:
            fields.add((inner.name, attr))
        elif inner.name == "agents":
            agents.add(attr)
        elif inner.name == "retrieved":
            retrieved.add(attr)
    return (names, frozenset(slots), frozenset(fields), frozenset(agents),
            frozenset(retrieved), frozenset(agent_fields))


def _attr(node: nodes.Getattr | nodes.Getitem) -> str | None:
    """The name a read takes: ``x.name`` or ``x['name']``; None for a computed key."""
    if isinstance(node, nodes.Getattr):
        return node.attr
    if isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
        return node.arg.value
    return None


def undeclared(names: Iterable[str], allowed: Iterable[str] = CONTEXT_NAMES) -> list[str]:
    """Names a template reads that the context does not provide, sorted."""
    allowed_set = set(allowed)
    return sorted(n for n in names if n not in allowed_set)


__all__ = ["CONTEXT_NAMES", "Compiled", "TemplateSyntaxError", "base_context", "compile_expression",
           "compile_template", "environment", "evaluates", "money", "renders", "template_code",
           "undeclared", "won"]
