"""Template or expression source -> what it reads: context names, slots, ``ask()`` calls,
comparisons of slots with literals, intents compared with ``turn.intent``, constant value.

Parsed once per distinct text (lint sees the same messages in every flow of a file, and the
same templates across generated files). A text that does not parse reads nothing here: the
compiler has already reported its syntax error.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jinja2 import nodes
from jinja2.exceptions import TemplateSyntaxError

from engine.compiler.templates import environment

_NOT_CONSTANT = object()


@dataclass(frozen=True, slots=True)
class Comparison:
    """``slots.<slot> <op> <literal>`` (or the literal on the left), as written."""

    slot: str
    op: str
    value: Any
    lineno: int


@dataclass(frozen=True, slots=True)
class Reads:
    names: frozenset[str] = frozenset()
    slots: frozenset[str] = frozenset()
    asks: tuple[str | None, ...] = ()
    """Slot names passed to ``ask()``; None for a computed argument (``ask(missing[0])``)."""
    comparisons: tuple[Comparison, ...] = ()
    intents: frozenset[str] = frozenset()
    """Intent names a template compares with ``turn.intent`` (the intent is handled there)."""
    constant: Any = _NOT_CONSTANT
    name_lines: tuple[tuple[str, int], ...] = ()
    agents: frozenset[str] = frozenset()
    """Agents whose output is read (``agents.<name>``)."""

    @property
    def is_constant(self) -> bool:
        return self.constant is not _NOT_CONSTANT

    def __or__(self, other: Reads) -> Reads:
        return Reads(self.names | other.names, self.slots | other.slots,
                     self.asks + other.asks, self.comparisons + other.comparisons,
                     self.intents | other.intents, _NOT_CONSTANT,
                     self.name_lines + other.name_lines, self.agents | other.agents)


NOTHING = Reads()


@lru_cache(maxsize=8192)
def reads(text: str, *, expression: bool = False) -> Reads:
    """What ``text`` (a template, or an expression when ``expression``) reads."""
    env = environment()
    try:
        tree = env.parse("{{ (" + text + ") }}" if expression else text)
    except TemplateSyntaxError:
        return NOTHING
    every = list(tree.find_all(nodes.Node))  # walked once, in order; each part filters it
    names = {n.name: n.lineno for n in every if isinstance(n, nodes.Name) and n.ctx == "load"}
    assigned = {n.name for n in every
                if isinstance(n, nodes.Name) and n.ctx in ("store", "param")}
    pairs = _pairs(every)
    return Reads(
        names=frozenset(set(names) - assigned),
        slots=frozenset(_fields_of(every, "slots")),
        asks=tuple(_asks(every)),
        comparisons=tuple(_comparisons(pairs)),
        intents=frozenset(_intents(pairs)),
        constant=_constant(tree) if expression else _NOT_CONSTANT,
        name_lines=tuple((n, line) for n, line in names.items() if n not in assigned),
        agents=frozenset(_fields_of(every, "agents")),
    )


def _slot_of(node: nodes.Node, base: str = "slots") -> str | None:
    """``slots.x`` or ``slots['x']`` -> "x" (of another ``base`` name if given)."""
    if isinstance(node, nodes.Getattr) and _is_name(node.node, base):
        return node.attr
    if isinstance(node, nodes.Getitem) and _is_name(node.node, base) \
            and isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
        return node.arg.value
    return None


def _fields_of(every: list[nodes.Node], base: str) -> list[str]:
    return [name for node in every if isinstance(node, nodes.Getattr | nodes.Getitem)
            and (name := _slot_of(node, base)) is not None]


def _is_name(node: nodes.Node, name: str) -> bool:
    return isinstance(node, nodes.Name) and node.name == name


def _asks(every: list[nodes.Node]) -> list[str | None]:
    out: list[str | None] = []
    for call in every:
        if isinstance(call, nodes.Call) and _is_name(call.node, "ask") and call.args:
            arg = call.args[0]
            out.append(arg.value if isinstance(arg, nodes.Const) and isinstance(arg.value, str)
                       else None)
    return out


def _literals(node: nodes.Node) -> list[Any] | None:
    if isinstance(node, nodes.Const):
        return [node.value]
    if isinstance(node, nodes.List | nodes.Tuple):
        consts = [i for i in node.items if isinstance(i, nodes.Const)]
        if len(consts) == len(node.items):
            return [i.value for i in consts]
    return None


Pair = tuple[nodes.Expr, str, nodes.Expr, int]


def _pairs(every: list[nodes.Node]) -> list[Pair]:
    """(left, op, right, lineno) of every single comparison ``a <op> b``."""
    out: list[Pair] = []
    for compare in every:
        if not isinstance(compare, nodes.Compare):
            continue
        left = compare.expr
        for operand in compare.ops:
            out.append((left, operand.op, operand.expr, compare.lineno))
            left = operand.expr
    return out


_FLIPPED = {"eq": "eq", "ne": "ne", "lt": "gt", "gt": "lt", "lteq": "gteq", "gteq": "lteq"}


def _comparisons(pairs: list[Pair]) -> list[Comparison]:
    out: list[Comparison] = []
    for left, op, right, line in pairs:
        slot, literal = _slot_of(left), _literals(right)
        if slot is None and op in _FLIPPED:
            slot, literal, op = _slot_of(right), _literals(left), _FLIPPED[op]
        if slot is None or literal is None:
            continue
        if op in ("in", "notin"):
            out.extend(Comparison(slot, op, v, line) for v in literal)
        elif isinstance(right, nodes.Const) or isinstance(left, nodes.Const):
            out.append(Comparison(slot, op, literal[0], line))
    return out


def _is_turn_intent(node: nodes.Node) -> bool:
    if isinstance(node, nodes.Getattr):
        return node.attr == "intent" and _is_name(node.node, "turn")
    return isinstance(node, nodes.Getitem) and _is_name(node.node, "turn") \
        and isinstance(node.arg, nodes.Const) and node.arg.value == "intent"


def _intents(pairs: list[Pair]) -> list[str]:
    out: list[str] = []
    for left, _, right, _ in pairs:
        for side, other in ((left, right), (right, left)):
            if _is_turn_intent(side):
                out.extend(str(v) for v in _literals(other) or [])
    return out


def _constant(tree: nodes.Template) -> Any:
    try:
        output = tree.body[0]
        assert isinstance(output, nodes.Output)
        return output.nodes[0].as_const(nodes.EvalContext(environment()))
    except (nodes.Impossible, AssertionError, IndexError, Exception):
        return _NOT_CONSTANT
