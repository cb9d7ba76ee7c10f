"""The templates and expressions flows use most, read without running a jinja2 template.

A message of text, ``{{ }}`` outputs ("{{ slots.recipient }}님께 {{ slots.amount | won }}
보낼까요?") and ``if``/``for``/``set`` blocks, and an expression of names, ``a.b`` paths,
items and slices, literals, operators, comparisons, ``and``/``or``/``not``, ``x if c else
y``, calls, filters and tests are turned into a *plan*: nested tuples naming each operation
(``("getattr", "amount", ("name", "slots"))``). A plan is plain data — a build stores it —
and ``engine.compiler.rendering`` turns it into closures that run it exactly as jinja2 does
(without importing jinja2 unless they need it). Anything else — macros, ``with``, a
namespace assignment, a ``set`` inside a loop, jinja2's loop helpers — has no plan and keeps
the full template.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

from engine.compiler.readers import COMPARISONS, OPERATORS, UNARY, Plan
from engine.compiler.rendering import Parts


def expression_plan(env: ImmutableSandboxedEnvironment, tree: nodes.Template) -> Plan | None:
    """The plan of ``{{ (expression) }}``'s one output; None when it has none."""
    body = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(body, nodes.Output) or len(body.nodes) != 1:
        return None
    return plan_of(env, body.nodes[0])


def template_plan(env: ImmutableSandboxedEnvironment, tree: nodes.Template) -> Parts | None:
    """The plan of a template of text, outputs and ``if``/``for``/``set`` blocks; None for
    other tags (macros, ``with``, ...), a loop that reads ``loop`` or sets a name, a
    ``set`` of more than a name, expressions plans do not cover."""
    return _parts(env, tree.body, in_loop=False) if _scoped_as_plans(tree) else None


def _scoped_as_plans(tree: nodes.Template) -> bool:
    """Whether every name a loop reads that the template also sets was set before the
    loop, at the top level: jinja2 gives a loop an undefined name for one set only later,
    where a plan would read the context's."""
    assigned = {n.name for node in tree.find_all(nodes.Assign)
                for n in [node.target, *node.target.find_all(nodes.Name)]
                if isinstance(n, nodes.Name)}
    set_before: set[str] = set()
    for node in tree.body:
        loops = [node] if isinstance(node, nodes.For) else list(node.find_all(nodes.For))
        for loop in loops:
            read = {n.name for n in loop.find_all(nodes.Name) if n.ctx == "load"}
            if (read & assigned) - set_before:
                return False
        if isinstance(node, nodes.Assign) and isinstance(node.target, nodes.Name):
            set_before.add(node.target.name)
    return True


def _parts(env: ImmutableSandboxedEnvironment, body: Sequence[nodes.Node],
           in_loop: bool) -> Parts | None:
    parts: list[Any] = []
    for node in body:
        part = _block(env, node, in_loop)
        if part is None:
            return None
        parts.extend(part)
    return tuple(parts)


def _block(env: ImmutableSandboxedEnvironment, node: nodes.Node,
           in_loop: bool) -> list[Any] | None:
    """A statement's parts: an output's text and plans, or one block."""
    match node:
        case nodes.Output(nodes=children):
            parts = [child.data if isinstance(child, nodes.TemplateData)
                     else plan_of(env, child) for child in children]
            return None if any(part is None for part in parts) else parts
        case nodes.If(test=test, body=then, elif_=elifs, else_=otherwise):
            rest = _parts(env, otherwise, in_loop)
            for branch in reversed(elifs):  # an elif chain nests as else: if
                plans = (plan_of(env, branch.test), _parts(env, branch.body, in_loop), rest)
                rest = None if None in plans else (("if", *plans),)
            plans = (plan_of(env, test), _parts(env, then, in_loop), rest)
            return None if None in plans else [("if", *plans)]
        case nodes.Assign(target=nodes.Name(name=name), node=value) if not in_loop:
            plan = plan_of(env, value)
            return None if plan is None else [("set", name, plan)]
        case nodes.For(target=target, iter=items, body=body, else_=otherwise, test=test,
                       recursive=False):
            reads, names = _loop_reads(node), _target(target)
            loop = (plan_of(env, items), _parts(env, body, True), _parts(env, otherwise, True))
            filtered = None if test is None else plan_of(env, test)
            if reads is None or names is None or None in loop or \
                    (test is not None and filtered is None):
                return None
            return [("for", names, *loop, filtered, bool(reads))]
    return None


LOOP_FIELDS = frozenset({"index", "index0", "revindex", "revindex0", "first", "last",
                         "length"})
"""What a plan's loop tells of itself (``loop.index``, ...); jinja2's other loop helpers
(``cycle``, ``changed``, ``previtem``, ...) keep the template jinja2's."""


def _loop_reads(node: nodes.For) -> set[str] | None:
    """The ``loop.<field>`` a loop's body reads; None (no plan) when ``loop`` is read
    anywhere else in it, as anything but one of LOOP_FIELDS, or beside a loop of its own."""
    reads = [n.attr for part in node.body for n in part.find_all(nodes.Getattr)
             if isinstance(n.node, nodes.Name) and n.node.name == "loop"]
    named = sum(1 for n in node.find_all(nodes.Name) if n.name == "loop")
    nested = next(node.find_all(nodes.For), None) is not None
    if named != len(reads) or not LOOP_FIELDS.issuperset(reads) or (reads and nested):
        return None
    return set(reads)


def _target(target: nodes.Node) -> str | tuple[str, ...] | None:
    if isinstance(target, nodes.Name):
        return target.name
    if isinstance(target, nodes.Tuple) and all(isinstance(n, nodes.Name) for n in target.items):
        return tuple(n.name for n in target.items)  # type: ignore[attr-defined]
    return None


def plan_of(env: ImmutableSandboxedEnvironment, node: nodes.Node) -> Plan | None:
    """An expression node -> its plan; None for a kind of node plans do not cover."""
    match node:
        case nodes.Const(value=value):
            return ("const", value)
        case nodes.Name(name=name, ctx="load") if name != "self":  # jinja2's own `self`
            return ("name", name)
        case nodes.Getattr(node=inner, attr=attr, ctx="load"):
            return _of(env, "getattr", (inner,), attr)
        case nodes.Getitem(node=inner, arg=key, ctx="load"):
            return _of(env, "getitem", (inner, key))
        case nodes.Slice(start=start, stop=stop, step=step):  # `x[1:-1]`'s key
            return _of(env, "slice", [nodes.Const(None) if b is None else b
                                      for b in (start, stop, step)])
        case nodes.Not(node=inner):
            return _of(env, "not", (inner,))
        case nodes.And(left=a, right=b):
            return _of(env, "and", (a, b))
        case nodes.Or(left=a, right=b):
            return _of(env, "or", (a, b))
        case nodes.CondExpr(test=test, expr1=then, expr2=nodes.Expr() as otherwise):
            return _of(env, "cond", (test, then, otherwise))
        case nodes.Compare(expr=first, ops=[nodes.Operand(op=op, expr=second)]) \
                if op in COMPARISONS:
            return _of(env, "compare", (first, second), op)
    return _operation(env, node)


def _operation(env: ImmutableSandboxedEnvironment, node: nodes.Node) -> Plan | None:
    """Filters, tests, calls, operators and literal collections -> their plans."""
    match node:
        case nodes.Filter(node=nodes.Expr() as inner, name=name, dyn_args=None,
                          dyn_kwargs=None) if name in env.filters:
            return _called(env, "filter", inner, node, name)
        case nodes.Test(node=inner, name=name, dyn_args=None, dyn_kwargs=None) \
                if name in env.tests:
            return _called(env, "test", inner, node, name)
        case nodes.Call(node=func, dyn_args=None, dyn_kwargs=None):
            kwnames = tuple(kw.key for kw in node.kwargs)
            return _of(env, "call", (func, *node.args, *(kw.value for kw in node.kwargs)),
                       kwnames)
        case nodes.BinExpr(left=a, right=b) if node.operator in OPERATORS:
            return _of(env, "op", (a, b), node.operator)
        case nodes.UnaryExpr(node=inner) if node.operator in UNARY:
            return _of(env, "op", (inner,), node.operator)
        case nodes.Concat(nodes=items):
            return _of(env, "concat", items)
        case nodes.Tuple(items=items, ctx="load"):
            return _of(env, "tuple", items)
        case nodes.List(items=items):
            return _of(env, "list", items)
        case nodes.Dict(items=pairs):
            return _of(env, "dict", [*(p.key for p in pairs), *(p.value for p in pairs)])
    return None


def _called(env: ImmutableSandboxedEnvironment, kind: str, value: nodes.Node,
            node: nodes.Filter | nodes.Test, name: str) -> Plan | None:
    """A filter's or test's plan: its name and keywords, its value, then its arguments."""
    kwnames = tuple(kw.key for kw in node.kwargs)
    return _of(env, kind, (value, *node.args, *(kw.value for kw in node.kwargs)),
               (name, kwnames))


def _of(env: ImmutableSandboxedEnvironment, kind: str, children: Sequence[nodes.Node],
        *extra: Any) -> Plan | None:
    plans = [plan_of(env, child) for child in children]
    if any(plan is None for plan in plans):
        return None
    return (kind, *extra, *plans)


__all__ = ["expression_plan", "plan_of", "template_plan"]
