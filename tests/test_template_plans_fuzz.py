"""Templates no one wrote by hand: random nestings of outputs, ``if``/``elif``/``else``,
``for`` (with ``loop``'s fields, ``else`` and a filter), ``set``, operators, filters and
tests over names the context has, lacks or sets itself. Each renders from its plan (or
jinja2's code) to exactly what jinja2 renders, or fails with the same kind of error."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.compiler.templates import base_context, compile_template, environment

VIEW: dict[str, Any] = {
    **base_context(), "slots": {"amount": 35000, "memo": None, "target": "엄마"},
    "missing": ["date", "memo"], "items": [{"n": 1}, {"n": 2}, {"n": 3}], "value": 7,
    "batch": {"index": 2, "total": 3}, "text": "Hello",
}
NAMES = ("value", "x", "y", "slots.amount", "slots.memo", "slots.target", "missing",
         "batch.index", "batch.total", "items", "text", "missing[0]", "items[1].n")
SET = ("value", "x", "y")
LOOP = ("loop.index", "loop.first", "loop.last", "loop.length", "loop.revindex0")
CONSTS = ("1", "0", "'a'", "none", "true", "[1, 2]", "(3, 4)", "{'k': 1}")
FILTERS = ("length", "join(',')", "upper", "lower", "default('d')", "list", "first", "sum",
           "won", "selectattr('n', 'odd') | list", "sum(attribute='n')")
TESTS = ("none", "defined", "number", "string", "odd", "in [1, 7]", "sameas none")


class Writer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.in_loop = False

    def atom(self) -> str:
        pick = self.rng.random()
        if self.in_loop and pick < 0.2:
            return self.rng.choice((*LOOP, "it"))
        return self.rng.choice(NAMES if pick < 0.75 else CONSTS)

    def expr(self, depth: int = 0) -> str:
        if depth > 1:
            return self.atom()
        kind = self.rng.randrange(8)
        a, b = self.expr(depth + 1), self.expr(depth + 1)
        return [a, f"{a} {self.rng.choice(('+', '-', '*', '//', '%', '~'))} {b}",
                f"{a} {self.rng.choice(('==', '!=', '<', '>=', 'in', 'not in'))} {b}",
                f"{a} {self.rng.choice(('and', 'or'))} {b}", f"not {a}",
                f"{a} | {self.rng.choice(FILTERS)}",
                f"{a} is {'not ' if self.rng.random() < 0.3 else ''}{self.rng.choice(TESTS)}",
                f"({a} if {b} else {self.atom()})"][kind]

    def block(self, depth: int = 0) -> str:
        return "".join(self.stmt(depth) for _ in range(self.rng.randint(1, 3)))

    def stmt(self, depth: int) -> str:
        kind = self.rng.randrange(7 if depth < 2 else 3)
        if kind == 0:
            return self.rng.choice(("a", " b ", "\n", "-"))
        if kind in (1, 2):
            return "{{ " + self.expr() + " }}"
        if kind == 3:
            return "{% set " + self.rng.choice(SET) + " = " + self.expr() + " %}"
        if kind == 4:
            out = "{% if " + self.expr() + " %}" + self.block(depth + 1)
            if self.rng.random() < 0.4:
                out += "{% elif " + self.expr() + " %}" + self.block(depth + 1)
            if self.rng.random() < 0.5:
                out += "{% else %}" + self.block(depth + 1)
            return out + "{% endif %}"
        items = self.rng.choice(("missing", "items", "[1, 2, 3]", "[]", "slots", "text",
                                 "value", "x"))
        test = " if it" if self.rng.random() < 0.2 else ""
        was, self.in_loop = self.in_loop, True
        body = self.block(depth + 1)
        self.in_loop = was
        tail = "{% else %}" + self.block(depth + 1) if self.rng.random() < 0.3 else ""
        return "{% for it in " + items + test + " %}" + body + tail + "{% endfor %}"


def outcome(render: Any) -> tuple[str, Any]:
    try:
        return ("text", render(dict(VIEW)))
    except Exception as err:
        return ("failed", type(err).__name__)


SOURCES = [Writer(seed).block() for seed in range(600)]


@pytest.mark.parametrize("chunk", range(6))
def test_random_templates_render_as_jinja2_renders_them(chunk: int) -> None:
    planned = 0
    for source in SOURCES[chunk::6]:
        try:
            template = environment().from_string(source)
        except Exception as err:  # jinja2 refuses it: so does the compiler
            with pytest.raises(type(err)):
                compile_template(source)
            continue
        expected = outcome(lambda view, t=template: t.render(view).strip())
        compiled = compile_template(source)
        planned += compiled.plan is not None
        assert outcome(compiled.render) == expected, source
    assert planned >= 40  # many have plans: what is compared is the plans
