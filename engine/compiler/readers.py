"""An expression's plan -> a closure that evaluates it exactly as jinja2's sandbox does,
without importing jinja2 unless it must.

A plan is nested tuples naming each operation (``("getattr", "amount", ("name",
"slots"))``; ``engine.compiler.fast`` makes them). What the closures decide themselves:
a plain dict's item or read-only method, a list's or dict's item, a call of a plain
function, Python's operators, the engine's filters and jinja2's pure filters and tests
(written out here as jinja2 writes them). What only jinja2 decides — a name the context
lacks (one of its globals, else StrictUndefined), another object's attribute, a filter or
test that takes the context, a call of anything else — goes to the one jinja2
environment, imported then, as its compiled template would call it.
"""

from __future__ import annotations

import operator
import sys
from collections import abc
from collections.abc import Callable, Mapping
from numbers import Number
from types import BuiltinFunctionType, FunctionType, MethodType
from typing import Any

from engine.compiler.filters import FILTERS

Plan = tuple[Any, ...]
Reader = Callable[[Mapping[str, Any]], Any]


COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "lteq": operator.le,
    "gt": operator.gt, "gteq": operator.ge,
    "in": lambda a, b: a in b, "notin": lambda a, b: a not in b,
}

OPERATORS: dict[str, Callable[..., Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
}
"""Arithmetic as jinja2's sandbox compiles it: Python's own operators (it intercepts none)."""

UNARY: dict[str, Callable[[Any], Any]] = {"-": operator.neg, "+": operator.pos}


def _soft_str(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _attribute_of(attribute: Any) -> Callable[[Any], Any]:
    """jinja2's ``make_attrgetter``: ``"slots.amount"`` reads item by item (digits as
    indexes), each as the sandbox's ``getitem``."""
    parts = [int(part) if part.isdigit() else part for part in attribute.split(".")] \
        if isinstance(attribute, str) else [attribute]

    def get(item: Any) -> Any:
        for part in parts:
            item = _getitem(item, part)
        return item

    return get


def _join(value: Any, d: Any = "", attribute: Any = None) -> str:
    if attribute is not None:
        value = map(_attribute_of(attribute), value)
    return str(d).join(map(str, value))


def _sum(value: Any, attribute: Any = None, start: Any = 0) -> Any:
    if attribute is not None:
        value = map(_attribute_of(attribute), value)
    return sum(value, start)


def _default(value: Any, default_value: Any = "", boolean: bool = False) -> Any:
    return default_value if _undefined_value(value) or (boolean and not value) else value


PURE_FILTERS: dict[str, Callable[..., Any]] = {
    "length": len, "count": len, "list": list, "default": _default, "d": _default,
    "lower": lambda value: _soft_str(value).lower(),
    "upper": lambda value: _soft_str(value).upper(),
    "join": _join, "sum": _sum,
}
"""jinja2's filters that take no context, written as jinja2 writes them for an environment
without autoescaping: a plan calls these itself."""


def _selecting(keep: bool, by_attribute: bool) -> Callable[..., Any]:
    """jinja2's ``select``/``reject``/``selectattr``/``rejectattr``: the items (or their
    attribute) for which a test holds (or not); a test of jinja2's own goes to jinja2."""

    def select(ctx: Mapping[str, Any], value: Any, *args: Any) -> Any:
        if not value:
            return
        get = _attribute_of(args[0]) if by_attribute else (lambda item: item)
        rest = args[1:] if by_attribute else args
        name, test_args = (rest[0], rest[1:]) if rest else (None, ())
        test = bool if name is None else TESTS.get(name) or (
            lambda item, *more: _jinja().call_test(name, item, more, {},
                                                   context=_context(ctx)))
        for item in value:
            if bool(test(get(item), *test_args)) == keep:
                yield item

    return select


CONTEXT_FILTERS: dict[str, Callable[..., Any]] = {
    "select": _selecting(True, False), "reject": _selecting(False, False),
    "selectattr": _selecting(True, True), "rejectattr": _selecting(False, True),
}
"""jinja2's filters that take the context (to call a test), written as it writes them for
jinja2's tests; without keywords a plan calls these itself."""


def _undefined_value(value: Any) -> bool:
    jinja2 = sys.modules.get("jinja2")  # no value is Undefined before jinja2 is imported
    return jinja2 is not None and isinstance(value, jinja2.Undefined)


TESTS: dict[str, Callable[..., bool]] = {
    "none": lambda value: value is None,
    "defined": lambda value: not _undefined_value(value),
    "undefined": _undefined_value,
    "true": lambda value: value is True, "false": lambda value: value is False,
    "boolean": lambda value: value is True or value is False,
    "integer": lambda value: isinstance(value, int) and value is not True
    and value is not False,
    "float": lambda value: isinstance(value, float),
    "number": lambda value: isinstance(value, Number),
    "string": lambda value: isinstance(value, str),
    "mapping": lambda value: isinstance(value, abc.Mapping),
    "odd": lambda value: value % 2 == 1, "even": lambda value: value % 2 == 0,
    "divisibleby": lambda value, num: value % num == 0,
    "in": lambda value, seq: value in seq, "sameas": lambda value, other: value is other,
    "eq": operator.eq, "equalto": operator.eq, "==": operator.eq, "ne": operator.ne,
    "!=": operator.ne, "lt": operator.lt, "lessthan": operator.lt, "<": operator.lt,
    "le": operator.le, "<=": operator.le, "gt": operator.gt, "greaterthan": operator.gt,
    ">": operator.gt, "ge": operator.ge, ">=": operator.ge,
}
"""jinja2's tests that need neither the context nor the environment, as jinja2 writes them."""

_DICT_NAMES = frozenset(dir(dict))
"""What ``getattr`` finds on any dict: the sandbox returns these before the dict's items."""

_DICT_READS = frozenset({"keys", "values", "items", "get"})
"""A dict's methods the immutable sandbox lets a template call: it returns them as they are."""

_PLAIN_CALLABLES = (FunctionType, MethodType, BuiltinFunctionType)


def _jinja() -> Any:
    """The one jinja2 environment (``engine.compiler.sandbox``), imported on first use."""
    from engine.compiler.sandbox import environment

    return environment()


def _context(ctx: Mapping[str, Any]) -> Any:
    """A jinja2 Context over ``ctx``, as a compiled template would pass to what takes one."""
    env = _jinja()
    return env.context_class(env, ctx if isinstance(ctx, dict) else dict(ctx), None, {})


def reader(plan: Plan) -> Reader:
    """An expression's plan -> a closure evaluating it. Each closure binds the names it
    reads once (a closure keeps the narrowing of a name only if nothing re-binds it)."""
    kind = plan[0]
    if kind == "const":
        value = plan[1]
        return lambda ctx: value
    if kind == "name":
        return _name(plan[1])
    if kind in _NAMED:
        return _NAMED[kind](plan[1], [reader(p) for p in plan[2:]])
    read = [reader(p) for p in plan[1:]]
    if kind in _COLLECTIONS:
        return _COLLECTIONS[kind](read)
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
    """``obj.attr`` as the sandbox reads it: a plain dict's item, or one of its read-only
    methods, here (what the sandbox returns for them); anything else by the sandbox."""
    if type(obj) is dict:
        if attr not in _DICT_NAMES:
            if attr in obj:
                return obj[attr]
        elif attr in _DICT_READS:
            return getattr(obj, attr)
    return _jinja().getattr(obj, attr)


def _getitem(obj: Any, key: Any) -> Any:
    """``obj[key]`` as the sandbox reads it: the item when there is one, else the sandbox
    (an attribute of that name, or undefined)."""
    try:
        return obj[key]
    except (TypeError, LookupError):
        return _jinja().getitem(obj, key)


def _call(ctx: Mapping[str, Any], func: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """``func(*args, **kwargs)`` as the sandbox calls it: a plain function or method that
    takes no context is called here, anything else (a callable the sandbox refuses, one
    that takes the context, ``str.format``) by the sandbox with a context over ``ctx``."""
    if isinstance(func, _PLAIN_CALLABLES) and not (
            hasattr(func, "jinja_pass_arg") or getattr(func, "unsafe_callable", False)
            or getattr(func, "alters_data", False)
            or getattr(func, "__name__", "") in ("format", "format_map")):
        try:
            return func(*args, **kwargs)
        except StopIteration:
            return _jinja().undefined("value was undefined because a callable raised a"
                                      " StopIteration exception")
    return _jinja().call(_context(ctx), func, *args, **kwargs)


def _split(kwnames: tuple[str, ...], read: list[Reader]) -> tuple[list[Reader], list[Reader]]:
    """The readers of a call's positional arguments and of its keyword arguments."""
    cut = len(read) - len(kwnames)
    return read[:cut], read[cut:]


def _filter(spec: tuple[str, tuple[str, ...]], read: list[Reader]) -> Reader:
    """``value | name(args, kw=...)``: the engine's or a pure filter here, any other by
    jinja2 (with a context over the turn's, as a compiled template passes)."""
    name, kwnames = spec
    (value, *args), kws = _split(kwnames, read)
    own = FILTERS.get(name) or PURE_FILTERS.get(name)
    if own is not None:
        func = own
        if not kwnames:
            return lambda ctx: func(value(ctx), *(arg(ctx) for arg in args))
        return lambda ctx: func(value(ctx), *(arg(ctx) for arg in args),
                                **{k: r(ctx) for k, r in zip(kwnames, kws, strict=True)})
    if name in CONTEXT_FILTERS and not kwnames and (args or not name.endswith("attr")):
        # (selectattr without an attribute name: jinja2's own error, below)
        select = CONTEXT_FILTERS[name]
        return lambda ctx: select(ctx, value(ctx), *(arg(ctx) for arg in args))

    def by_jinja(ctx: Mapping[str, Any]) -> Any:
        kw = {k: r(ctx) for k, r in zip(kwnames, kws, strict=True)}
        return _jinja().call_filter(name, value(ctx), [arg(ctx) for arg in args], kw,
                                    context=_context(ctx))

    return by_jinja


def _test(spec: tuple[str, tuple[str, ...]], read: list[Reader]) -> Reader:
    """``value is name(args)``: a pure test here, any other by jinja2."""
    name, kwnames = spec
    (value, *args), kws = _split(kwnames, read)
    own = None if kwnames else TESTS.get(name)
    if own is not None:
        func = own
        return lambda ctx: func(value(ctx), *(arg(ctx) for arg in args))

    def by_jinja(ctx: Mapping[str, Any]) -> Any:
        kw = {k: r(ctx) for k, r in zip(kwnames, kws, strict=True)}
        return _jinja().call_test(name, value(ctx), [arg(ctx) for arg in args], kw,
                                  context=_context(ctx))

    return by_jinja


def _calls(kwnames: tuple[str, ...], read: list[Reader]) -> Reader:
    (func, *args), kws = _split(kwnames, read)
    return lambda ctx: _call(ctx, func(ctx), [arg(ctx) for arg in args],
                             {k: r(ctx) for k, r in zip(kwnames, kws, strict=True)})


def _attribute(attr: str, read: list[Reader]) -> Reader:
    obj = read[0]
    return lambda ctx: _getattr(obj(ctx), attr)


def _compare(op: str, read: list[Reader]) -> Reader:
    compare, left, right = COMPARISONS[op], read[0], read[1]
    return lambda ctx: compare(left(ctx), right(ctx))


def _operator(op: str, read: list[Reader]) -> Reader:
    if len(read) == 1:
        unary, inner = UNARY[op], read[0]
        return lambda ctx: unary(inner(ctx))
    binary, left, right = OPERATORS[op], read[0], read[1]
    return lambda ctx: binary(left(ctx), right(ctx))


_NAMED: dict[str, Callable[[Any, list[Reader]], Reader]] = {
    "getattr": _attribute, "compare": _compare, "filter": _filter, "test": _test,
    "call": _calls, "op": _operator,
}
"""Operations with something of their own (a name, an operator) before their operands."""


def _item(read: list[Reader]) -> Reader:
    obj, key = read
    return lambda ctx: _getitem(obj(ctx), key(ctx))


def _dict(read: list[Reader]) -> Reader:
    half = len(read) // 2
    keys, values = read[:half], read[half:]
    return lambda ctx: {k(ctx): v(ctx) for k, v in zip(keys, values, strict=True)}


_COLLECTIONS: dict[str, Callable[[list[Reader]], Reader]] = {
    "getitem": _item, "dict": _dict,
    "tuple": lambda read: lambda ctx: tuple(r(ctx) for r in read),
    "list": lambda read: lambda ctx: [r(ctx) for r in read],
    # every operand first, then their text: which failure comes first is jinja2's
    "concat": lambda read: lambda ctx: "".join([str(v) for v in [r(ctx) for r in read]]),
    "slice": lambda read: lambda ctx: slice(*(r(ctx) for r in read)),
}
"""Operations over their operands alone."""


__all__ = ["COMPARISONS", "OPERATORS", "PURE_FILTERS", "TESTS", "UNARY", "Plan", "Reader",
           "reader"]
