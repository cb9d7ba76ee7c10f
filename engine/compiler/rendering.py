"""A compiled template or expression, and how it renders — without importing jinja2 when
it need not.

A message of text and simple ``{{ }}`` outputs, and an expression of names, paths,
comparisons and the engine's own filters, has a *plan* (``engine.compiler.fast`` makes it
at compile time); its closures here evaluate it exactly as jinja2's sandbox does. What
only jinja2 can decide — a name the context lacks (one of jinja2's globals, else
StrictUndefined), a path into anything but a plain dict, one of jinja2's own filters, a
template with tags or calls — goes to the jinja2 environment, imported then. So a server
loaded from a build whose templates all have plans never imports jinja2.
"""

from __future__ import annotations

import marshal
import operator
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import CodeType
from typing import Any, cast

from engine.compiler.josa import josa

Plan = tuple[Any, ...]
Reader = Callable[[Mapping[str, Any]], Any]
Parts = tuple[str | Plan, ...]
"""A message's plan: its text and the plans of its outputs, in order."""


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


FILTERS: dict[str, Callable[..., Any]] = {"won": won, "money": money, "josa": josa}
"""The engine's own filters (jinja2's environment has them too)."""

GLOBALS: dict[str, Any] = {}
"""jinja2's globals (range, dict, ...), once its environment exists (empty before): a turn
context starts from them, so a full template renders its context as is."""

_DICT_NAMES = frozenset(dir(dict))
"""What ``getattr`` finds on any dict: the sandbox returns these before the dict's items."""

COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "lteq": operator.le,
    "gt": operator.gt, "gteq": operator.ge,
    "in": lambda a, b: a in b, "notin": lambda a, b: a not in b,
}


def _jinja() -> Any:
    """The one jinja2 environment (``engine.compiler.templates``), imported on first use."""
    from engine.compiler.templates import environment

    return environment()


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
    expression: bool = False
    """Compiled by ``compile_expression`` (else by ``compile_template``)."""
    plan: Any = None
    """What ``reader``/``template_reader`` read it by (None: it runs as a jinja2 template)."""

    def __call__(self, ctx: Mapping[str, Any]) -> Any:
        return self.render(ctx)

    def __reduce__(self) -> tuple[Callable[..., Compiled], tuple[Any, ...]]:
        """Pickled as what it reads, and its plan or its template's code (marshalled): a
        build loads it without parsing or compiling anything."""
        code = None
        if self.plan is None:
            from engine.compiler.templates import template_code

            code = marshal.dumps(template_code(self.source, self.expression))
        return restored, (self.source, self.names, self.slot_refs, self.field_refs,
                          self.agent_refs, self.retrieved_refs, self.agent_field_refs,
                          self.expression, self.plan, code)


def restored(source: str, names: frozenset[str], slot_refs: frozenset[str],
             field_refs: frozenset[tuple[str, str]], agent_refs: frozenset[str],
             retrieved_refs: frozenset[str], agent_field_refs: frozenset[tuple[str, str]],
             expression: bool, plan: Any, code: bytes | None) -> Compiled:
    """A pickled Compiled, loaded (see ``Compiled.__reduce__``)."""
    if plan is not None:
        render = reader(plan) if expression else template_reader(plan)
    else:
        from engine.compiler.templates import evaluates, renders

        compiled = cast(CodeType, marshal.loads(code or b""))  # noqa: S302 - our own build
        render = evaluates(compiled) if expression else renders(compiled)
    return Compiled(source, names, render, slot_refs, field_refs, agent_refs, retrieved_refs,
                    agent_field_refs, expression, plan)


def template_reader(parts: Parts) -> Callable[[Mapping[str, Any]], str]:
    """A message's plan -> its render function."""
    if all(isinstance(part, str) for part in parts):
        text = "".join(str(part) for part in parts).strip()
        return lambda ctx: text
    pieces = [part if isinstance(part, str) else reader(part) for part in parts]

    def render(ctx: Mapping[str, Any]) -> str:
        return "".join(p if isinstance(p, str) else str(p(ctx)) for p in pieces).strip()

    return render


def reader(plan: Plan) -> Reader:
    """An expression's plan -> a closure evaluating it. Each closure binds the names it
    reads once (a closure keeps the narrowing of a name only if nothing re-binds it)."""
    kind = plan[0]
    if kind == "const":
        value = plan[1]
        return lambda ctx: value
    if kind == "name":
        return _name(plan[1])
    if kind in ("getattr", "filter", "compare"):
        return _with(kind, plan[1], [reader(p) for p in plan[2:]])
    read = [reader(p) for p in plan[1:]]
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


def _name(name: str) -> Reader:
    """``name`` -> its value in the context; else one of jinja2's globals (a context built
    before jinja2 was imported lacks them), else StrictUndefined (fails when used)."""

    def missing() -> Any:
        env = _jinja()
        return env.globals[name] if name in env.globals else env.undefined(name=name)

    return lambda ctx: ctx[name] if name in ctx else missing()


def _getattr(obj: Any, attr: str) -> Any:
    """``obj.attr`` as the sandbox reads it: a plain dict's item here (what the sandbox
    returns for a name no dict has as an attribute), anything else by the sandbox."""
    if type(obj) is dict and attr in obj and attr not in _DICT_NAMES:
        return obj[attr]
    return _jinja().getattr(obj, attr)


def _with(kind: str, what: str, read: list[Reader]) -> Reader:
    """The operations with a name of their own: ``x.attr``, ``x | filter(args)``,
    ``a <op> b``."""
    if kind == "getattr":
        obj = read[0]
        return lambda ctx: _getattr(obj(ctx), what)
    if kind == "filter":
        func = FILTERS.get(what) or _jinja().filters[what]
        value, args = read[0], read[1:]
        return lambda ctx: func(value(ctx), *(arg(ctx) for arg in args))
    compare, left, right = COMPARISONS[what], read[0], read[1]
    return lambda ctx: compare(left(ctx), right(ctx))


def template_failed(err: BaseException) -> bool:
    """Whether ``err`` is jinja2's (a template's own failure); none is before jinja2 is
    imported."""
    jinja2 = sys.modules.get("jinja2")
    return jinja2 is not None and isinstance(err, jinja2.TemplateError)


__all__ = ["COMPARISONS", "FILTERS", "GLOBALS", "Compiled", "Parts", "Plan", "Reader", "money",
           "reader", "restored", "template_failed", "template_reader", "won"]
