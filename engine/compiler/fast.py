"""The templates and expressions flows use most, read without running a jinja2 template.

A message of text and ``{{ }}`` outputs ("{{ slots.recipient }}님께 {{ slots.amount | won }}
보낼까요?") and an expression of names, ``a.b`` paths, literals, comparisons,
``and``/``or``/``not``, ``x if c else y`` and plain filters are turned into a *plan*: nested
tuples naming each operation (``("getattr", ("name", "slots"), "amount")``). A plan is plain
data — a build stores it — and ``engine.compiler.rendering`` turns it into closures that
evaluate it exactly as jinja2 does (without importing jinja2 unless they need it). Anything
else has no plan and keeps the full template.
"""

from __future__ import annotations

from collections.abc import Sequence

from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

from engine.compiler.rendering import COMPARISONS, Parts, Plan


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
                if op in COMPARISONS:
            return _of(env, "compare", (first, second), op)
    return None


def _of(env: ImmutableSandboxedEnvironment, kind: str, children: Sequence[nodes.Node],
        *extra: str) -> Plan | None:
    plans = [plan_of(env, child) for child in children]
    if any(plan is None for plan in plans):
        return None
    return (kind, *extra, *plans)


__all__ = ["expression_plan", "plan_of", "template_plan"]
