"""Message/prompt/expression source -> compiled jinja2 objects in one sandboxed environment.

User text only ever reaches templates as data (a context value), never as template
source. The environment is an ``ImmutableSandboxedEnvironment`` (a template can neither reach
Python internals nor change the session through ``dict.update`` and the like) with
``StrictUndefined`` so a
misspelt variable fails loudly at render time and is caught at compile time by
``undeclared()``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, meta, nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

from engine.compiler.josa import josa
from engine.registry import CONTEXT_FIELDS

# Names every message, condition and step expression may use (the turn context).
CONTEXT_NAMES = frozenset({
    "slots", "missing", "errors", "meta", "filling_turns", "max_fill_turns", "batch",
    "progress", "turn", "stage", "flow", "completed", "summary", "result", "ask", "value",
    "today", "now", "context", "agents", "retrieved", "loop",
})


def won(amount: Any) -> str:
    """10000 -> '1만원', 35000 -> '3만 5,000원', 1500 -> '1,500원' (Korean won, spoken style)."""
    if not isinstance(amount, int | float) or isinstance(amount, bool):
        return str(amount)
    sign, n = ("-" if amount < 0 else ""), abs(int(amount))
    if n < 10000:
        return f"{sign}{n:,}원"
    man, rest = divmod(n, 10000)
    return f"{sign}{man:,}만" + (f" {rest:,}원" if rest else "원")


def money(amount: Any, currency: str = "KRW") -> str:
    """Format an amount for its currency: KRW spoken style, others with a symbol or code."""
    if currency == "KRW":
        return won(amount)
    if not isinstance(amount, int | float) or isinstance(amount, bool):
        return str(amount)
    symbol = {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency)
    text = f"{abs(amount):,.2f}".removesuffix(".00")
    sign = "-" if amount < 0 else ""
    return f"{sign}{symbol}{text}" if symbol else f"{sign}{text} {currency}"


@lru_cache(maxsize=1)
def environment() -> ImmutableSandboxedEnvironment:
    """The one environment every template and expression is compiled in."""
    env = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False,
                               keep_trailing_newline=False, trim_blocks=True, lstrip_blocks=True)
    env.filters["won"] = won
    env.filters["money"] = money
    env.filters["josa"] = josa
    return env


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled template or expression: its source, the names and slots it reads."""

    source: str
    names: frozenset[str]
    render: Callable[[Mapping[str, Any]], Any]
    slot_refs: frozenset[str] = frozenset()
    """Names read from ``slots`` (``slots.amount``, ``slots['amount']``)."""
    field_refs: frozenset[tuple[str, str]] = frozenset()
    """Fields read from the context's fixed-shape values (``turn.intent``, ``batch.total``)."""
    agent_refs: frozenset[str] = frozenset()
    """Agents whose output is read (``agents.recommend.items``)."""
    retrieved_refs: frozenset[str] = frozenset()
    """Retrievals whose hits are read (``retrieved.catalogue``)."""
    agent_field_refs: frozenset[tuple[str, str]] = frozenset()
    """(agent, field) of each field read from an agent's result (``agents.reco.price``)."""


def base_context() -> dict[str, Any]:
    """The environment's globals (range, dict, ...) as a plain dict.

    A turn context starts from a copy of it, so every render can hand jinja2 its context
    as is (``shared=True``) instead of jinja2 re-merging its globals ChainMap per render.
    """
    return dict(environment().globals)


@lru_cache(maxsize=4096)
def compile_template(source: str) -> Compiled:
    """Compile a message or prompt template; raises TemplateSyntaxError (with lineno).

    The text is parsed once: the tree gives the names it reads, then becomes code. The
    compiled ``render(ctx)`` expects ``ctx`` to include ``base_context()``.
    """
    env = environment()
    tree = env.parse(source)
    names, slots, fields, agents, found, agent_fields = _reads(tree)
    fast = _fast_template(env, tree)
    if fast is not None:  # text and simple `{{ }}` only: no jinja2 template run per render
        return Compiled(source, names, fast, slots, fields, agents, found, agent_fields)
    template: Template = env.template_class.from_code(
        env, env.compile(tree), env.make_globals(None), None)

    def render(ctx: Mapping[str, Any]) -> str:
        context = _context(env, template, ctx)
        return env.concat(template.root_render_func(context)).strip()

    return Compiled(source, names, render, slots, fields, agents, found, agent_fields)


@lru_cache(maxsize=4096)
def compile_expression(source: str) -> Compiled:
    """Compile a jinja2 expression (conditions, `set`, `args`); raises TemplateSyntaxError."""
    env = environment()
    template = env.compile_expression(source, undefined_to_none=False)._template
    tree = env.parse("{{ (" + source + ") }}")
    names, slots, fields, agents, found, agent_fields = _reads(tree)
    fast = _fast_expression(env, tree)
    if fast is not None:  # simple names, paths, comparisons: no template run per call
        return Compiled(source, names, fast, slots, fields, agents, found, agent_fields)

    def evaluate(ctx: Mapping[str, Any]) -> Any:
        context = _context(env, template, ctx)
        for _ in template.root_render_func(context):
            pass
        return context.vars["result"]

    return Compiled(source, names, evaluate, slots, fields, agents, found, agent_fields)


Reader = Callable[[Mapping[str, Any]], Any]
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "lteq": operator.le,
    "gt": operator.gt, "gteq": operator.ge,
    "in": lambda a, b: a in b, "notin": lambda a, b: a not in b,
}


def _fast_expression(env: ImmutableSandboxedEnvironment, tree: nodes.Template) -> Reader | None:
    """A closure for the expressions flows use most — names, ``a.b`` paths, literals,
    comparisons, ``and``/``or``/``not`` — that evaluates them exactly as jinja2 does (paths
    go through the sandbox's ``env.getattr``; a missing name is StrictUndefined, which
    fails when used). None for anything else, which keeps the full template."""
    body = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(body, nodes.Output) or len(body.nodes) != 1:
        return None
    return _fast(env, body.nodes[0])


def _fast_template(env: ImmutableSandboxedEnvironment, tree: nodes.Template
                   ) -> Callable[[Mapping[str, Any]], str] | None:
    """A closure for a template of text and ``{{ }}`` outputs that ``_fast`` reads (most
    messages: "{{ slots.recipient }}님께 {{ slots.amount | won }} 보낼까요?"), rendering
    as jinja2 does: each output through ``str``, the whole stripped. None for anything
    else (tags, calls, other filters), which keeps the full template."""
    parts: list[str | Reader] = []
    for node in tree.body:
        if not isinstance(node, nodes.Output):
            return None
        for child in node.nodes:
            read = child.data if isinstance(child, nodes.TemplateData) else _fast(env, child)
            if read is None:
                return None
            parts.append(read)
    if len(parts) == 1 and isinstance(parts[0], str):
        text = parts[0].strip()
        return lambda ctx: text

    def render(ctx: Mapping[str, Any]) -> str:
        return "".join(p if isinstance(p, str) else str(p(ctx)) for p in parts).strip()

    return render


def _fast(env: ImmutableSandboxedEnvironment, node: nodes.Node) -> Reader | None:
    """An expression node -> a closure reading it as jinja2 does; None for a kind of node
    the closures do not cover."""
    match node:
        case nodes.Const(value=value):
            return lambda ctx: value
        case nodes.Name(name=name, ctx="load"):
            return _name(env, name)
        case nodes.Getattr(node=inner, attr=attr, ctx="load"):
            return _getattr(env, inner, attr)
        case nodes.Not(node=inner):
            return _not(env, inner)
        case nodes.And(left=a, right=b):
            return _and(env, a, b)
        case nodes.Or(left=a, right=b):
            return _or(env, a, b)
        case nodes.Filter(node=nodes.Expr() as inner, name=name, args=args, kwargs=[],
                          dyn_args=None, dyn_kwargs=None):
            return _fast_filter(env, name, inner, args)
        case nodes.CondExpr(test=test, expr1=then, expr2=nodes.Expr() as otherwise):
            return _cond(env, test, then, otherwise)
        case nodes.Compare(expr=first, ops=[nodes.Operand(op=op, expr=second)]) \
                if op in _COMPARE:
            return _compare(env, first, second, _COMPARE[op])
    return None


# Each reader below binds each name its closure reads once: a closure keeps the `is None`
# narrowing of a name only if nothing re-binds it later.

def _readers(env: ImmutableSandboxedEnvironment, *parts: nodes.Node) -> list[Reader] | None:
    """Nodes -> a reader each, or None when ``_fast`` reads any of them not."""
    readers = [_fast(env, part) for part in parts]
    found = [read for read in readers if read is not None]
    return found if len(found) == len(readers) else None


def _name(env: ImmutableSandboxedEnvironment, name: str) -> Reader:
    """``name`` -> its value in the context, else StrictUndefined (fails when used)."""
    return lambda ctx: ctx[name] if name in ctx else env.undefined(name=name)


def _getattr(env: ImmutableSandboxedEnvironment, node: nodes.Node, attr: str) -> Reader | None:
    """``node.attr`` -> read through the sandbox's ``env.getattr``."""
    obj = _fast(env, node)
    return None if obj is None else (lambda ctx: env.getattr(obj(ctx), attr))


def _not(env: ImmutableSandboxedEnvironment, node: nodes.Node) -> Reader | None:
    """``not node``."""
    read = _fast(env, node)
    return None if read is None else (lambda ctx: not read(ctx))


def _and(env: ImmutableSandboxedEnvironment, a: nodes.Node, b: nodes.Node) -> Reader | None:
    """``a and b``: ``b`` read only when ``a`` holds."""
    both = _readers(env, a, b)
    if both is None:
        return None
    lhs, rhs = both
    return lambda ctx: lhs(ctx) and rhs(ctx)


def _or(env: ImmutableSandboxedEnvironment, a: nodes.Node, b: nodes.Node) -> Reader | None:
    """``a or b``: ``b`` read only when ``a`` does not hold."""
    both = _readers(env, a, b)
    if both is None:
        return None
    lhs, rhs = both
    return lambda ctx: lhs(ctx) or rhs(ctx)


def _cond(env: ImmutableSandboxedEnvironment, test: nodes.Node, then: nodes.Node,
          otherwise: nodes.Node) -> Reader | None:
    """``then if test else otherwise``: only the branch taken is read."""
    parts = _readers(env, test, then, otherwise)
    if parts is None:
        return None
    cond, yes, no = parts
    return lambda ctx: yes(ctx) if cond(ctx) else no(ctx)


def _compare(env: ImmutableSandboxedEnvironment, first: nodes.Node, second: nodes.Node,
             compare: Callable[[Any, Any], Any]) -> Reader | None:
    """``first <op> second`` for one comparison operator (``compare``)."""
    both = _readers(env, first, second)
    if both is None:
        return None
    left, right = both
    return lambda ctx: compare(left(ctx), right(ctx))


def _fast_filter(env: ImmutableSandboxedEnvironment, name: str, node: nodes.Expr,
                 args: list[nodes.Expr]) -> Reader | None:
    """``value | name(args)`` for a filter that takes only its arguments (jinja2 calls it
    with nothing else either): ``won``, ``money``, ``upper``, ... Not one that needs the
    context or environment (``jinja_pass_arg``)."""
    func = env.filters.get(name)
    if func is None or getattr(func, "jinja_pass_arg", None) is not None:
        return None
    value = _fast(env, node)
    params = [_fast(env, arg) for arg in args]
    if value is None or None in params:
        return None
    readers = [p for p in params if p is not None]
    return lambda ctx: func(value(ctx), *(read(ctx) for read in readers))


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


def _context(env: ImmutableSandboxedEnvironment, template: Template, ctx: Mapping[str, Any]) -> Any:
    """A jinja2 Context over ``ctx`` as is: the globals are already in it (``base_context``),
    so jinja2 need not copy them (``new_context``) nor list them (``Context(globals=...)``)."""
    parent = ctx if isinstance(ctx, dict) else dict(ctx)
    return env.context_class(env, parent, template.name, template.blocks)


def undeclared(names: Iterable[str], allowed: Iterable[str] = CONTEXT_NAMES) -> list[str]:
    """Names a template reads that the context does not provide, sorted."""
    allowed_set = set(allowed)
    return sorted(n for n in names if n not in allowed_set)


__all__ = ["CONTEXT_NAMES", "Compiled", "TemplateSyntaxError", "base_context", "compile_expression",
           "compile_template", "environment", "money", "undeclared", "won"]
