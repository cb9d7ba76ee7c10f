"""The templates and expressions flows use most, read without running a jinja2 template.

A message of text and ``{{ }}`` outputs ("{{ slots.recipient }}님께 {{ slots.amount | won }}
보낼까요?") and an expression of names, ``a.b`` paths, literals, comparisons,
``and``/``or``/``not``, ``x if c else y`` and plain filters are turned into a *plan*: nested
tuples naming each operation (``("getattr", ("name", "slots"), "amount")``). A plan is plain
data — a build stores it — and ``reader`` turns it into closures that evaluate it exactly as
jinja2 does: paths through the sandbox's ``env.getattr``, a missing name StrictUndefined
(which fails when used), each output through ``str``, the whole message stripped.
Anything else has no plan and keeps the full template.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

Plan = tuple[Any, ...]
Reader = Callable[[Mapping[str, Any]], Any]
Parts = tuple[str | Plan, ...]
"""A message's plan: its text and the plans of its outputs, in order."""

_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "lteq": operator.le,
    "gt": operator.gt, "gteq": operator.ge,
    "in": lambda a, b: a in b, "notin": lambda a, b: a not in b,
}


def expression_plan(env: ImmutableSandboxedEnvironment, tree: nodes.Template) -> Plan | None:
    """The plan of ``{{ (expression) }}``'s one output; None when it has none."""
    body = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(body, nodes.Output) or len(body.nodes) != 1:
        return None
    return plan_of(env, body.nodes[0])


def template_plan(env: ImmutableSandboxedEnvironment, tree: nodes.Template) -> Parts | None:
    """The plan of a template of text and outputs only; None for tags, calls, other
    filters."""
    parts: list[str | Plan] = []
    for node in tree.body:
        if not isinstance(node, nodes.Output):
            return None
        for child in node.nodes:
            part = child.data if isinstance(child, nodes.TemplateData) else plan_of(env, child)
            if part is None:
                return None
            parts.append(part)
    return tuple(parts)


def plan_of(env: ImmutableSandboxedEnvironment, node: nodes.Node) -> Plan | None:
    """An expression node -> its plan; None for a kind of node plans do not cover."""
    match node:
        case nodes.Const(value=value):
            return ("const", value)
        case nodes.Name(name=name, ctx="load"):
            return ("name", name)
        case nodes.Getattr(node=inner, attr=attr, ctx="load"):
            return _of(env, "getattr", (inner,), attr)
        case nodes.Not(node=inner):
            return _of(env, "not", (inner,))
        case nodes.And(left=a, right=b):
            return _of(env, "and", (a, b))
        case nodes.Or(left=a, right=b):
            return _of(env, "or", (a, b))
        case nodes.Filter(node=nodes.Expr() as inner, name=name, args=args, kwargs=[],
                          dyn_args=None, dyn_kwargs=None):
            func = env.filters.get(name)  # one that needs the context or environment: none
            if func is None or getattr(func, "jinja_pass_arg", None) is not None:
                return None
            return _of(env, "filter", (inner, *args), name)
        case nodes.CondExpr(test=test, expr1=then, expr2=nodes.Expr() as otherwise):
            return _of(env, "cond", (test, then, otherwise))
        case nodes.Compare(expr=first, ops=[nodes.Operand(op=op, expr=second)]) \
                if op in _COMPARE:
            return _of(env, "compare", (first, second), op)
    return None


def _of(env: ImmutableSandboxedEnvironment, kind: str, children: Sequence[nodes.Node],
        *extra: str) -> Plan | None:
    plans = [plan_of(env, child) for child in children]
    if any(plan is None for plan in plans):
        return None
    return (kind, *extra, *plans)


def template_reader(env: ImmutableSandboxedEnvironment,
                    parts: Parts) -> Callable[[Mapping[str, Any]], str]:
    """A message's plan -> its render function."""
    if all(isinstance(part, str) for part in parts):
        text = "".join(str(part) for part in parts).strip()
        return lambda ctx: text
    pieces = [part if isinstance(part, str) else reader(env, part) for part in parts]

    def render(ctx: Mapping[str, Any]) -> str:
        return "".join(p if isinstance(p, str) else str(p(ctx)) for p in pieces).strip()

    return render


def reader(env: ImmutableSandboxedEnvironment, plan: Plan) -> Reader:
    """An expression's plan -> a closure evaluating it. Each closure binds the names it
    reads once (a closure keeps the narrowing of a name only if nothing re-binds it)."""
    kind = plan[0]
    if kind == "const":
        value = plan[1]
        return lambda ctx: value
    if kind == "name":
        return _name(env, plan[1])
    if kind in ("getattr", "filter", "compare"):
        return _with(env, kind, plan[1], [reader(env, p) for p in plan[2:]])
    read = [reader(env, p) for p in plan[1:]]
    if kind == "not":
        inner = read[0]
        return lambda ctx: not inner(ctx)
    if kind == "cond":
        test, yes, no = read
        return lambda ctx: yes(ctx) if test(ctx) else no(ctx)
    lhs, rhs = read
    if kind == "and":
        return lambda ctx: lhs(ctx) and rhs(ctx)
    return lambda ctx: lhs(ctx) or rhs(ctx)  # "or"


def _name(env: ImmutableSandboxedEnvironment, name: str) -> Reader:
    """``name`` -> its value in the context, else StrictUndefined (fails when used)."""
    return lambda ctx: ctx[name] if name in ctx else env.undefined(name=name)


def _with(env: ImmutableSandboxedEnvironment, kind: str, what: str,
          read: list[Reader]) -> Reader:
    """The operations with a name of their own: ``x.attr``, ``x | filter(args)``,
    ``a <op> b``."""
    if kind == "getattr":
        obj = read[0]
        return lambda ctx: env.getattr(obj(ctx), what)
    if kind == "filter":
        func, value, args = env.filters[what], read[0], read[1:]
        return lambda ctx: func(value(ctx), *(arg(ctx) for arg in args))
    compare, left, right = _COMPARE[what], read[0], read[1]
    return lambda ctx: compare(left(ctx), right(ctx))


__all__ = ["Parts", "Plan", "Reader", "expression_plan", "plan_of", "reader", "template_plan",
           "template_reader"]
