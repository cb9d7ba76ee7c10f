"""A compiled template or expression, and how it renders — without importing jinja2 when
it need not.

A message of text, ``{{ }}`` outputs and ``{% if %}`` / ``{% for %}`` / ``{% set %}``
blocks, and an expression of names, paths, items, calls, operators, filters and tests, has
a *plan* (``engine.compiler.fast`` makes it at compile time); the closures here and in
``engine.compiler.readers`` run it exactly as jinja2's sandbox does, importing jinja2 only
for what only it decides. A template without a plan (macros, ``loop``, ...) keeps the code
jinja2 compiled it to, and a build loads that code only when it first renders. So a server
whose templates have plans imports jinja2 only if one of them needs it.
"""

from __future__ import annotations

import marshal
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import CodeType
from typing import Any, cast

from engine.compiler.readers import Reader, reader

Parts = tuple[Any, ...]
"""A message's plan: its text, the plans of its outputs, and its blocks (``("if", test,
then, otherwise)``, ``("for", target, items, body, otherwise)``, ``("set", name, value)``),
in order."""

Block = Callable[[Mapping[str, Any], list[str]], Mapping[str, Any]]
"""Renders a run of parts into ``out``; returns the context the parts after it see (a
``set`` changes it)."""


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
            from engine.compiler.sandbox import template_code

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
        render = _on_first_use(code or b"", expression)
    return Compiled(source, names, render, slot_refs, field_refs, agent_refs, retrieved_refs,
                    agent_field_refs, expression, plan)


def _on_first_use(code: bytes, expression: bool) -> Callable[[Mapping[str, Any]], Any]:
    """A template's marshalled jinja2 code as a render function that loads it (and jinja2)
    when it is first called: a server imports jinja2 for the templates it renders."""
    built: list[Callable[[Mapping[str, Any]], Any]] = []

    def render(ctx: Mapping[str, Any]) -> Any:
        if not built:
            from engine.compiler.sandbox import evaluates, renders

            compiled = cast(CodeType, marshal.loads(code))  # noqa: S302 - our own build
            built.append(evaluates(compiled) if expression else renders(compiled))
        return built[0](ctx)

    return render


def template_reader(parts: Parts) -> Callable[[Mapping[str, Any]], str]:
    """A message's plan -> its render function."""
    if all(isinstance(part, str) for part in parts):
        text = "".join(str(part) for part in parts).strip()
        return lambda ctx: text
    if any(not isinstance(part, str) and part[0] in _BLOCKS for part in parts):
        block = _block(parts)

        def render_blocks(ctx: Mapping[str, Any]) -> str:
            out: list[str] = []
            block(ctx, out)
            return "".join(out).strip()

        return render_blocks
    pieces = [part if isinstance(part, str) else reader(part) for part in parts]

    def render(ctx: Mapping[str, Any]) -> str:
        return "".join(p if isinstance(p, str) else str(p(ctx)) for p in pieces).strip()

    return render


def _block(parts: Parts) -> Block:
    steps = [_step(part) for part in parts]

    def run(ctx: Mapping[str, Any], out: list[str]) -> Mapping[str, Any]:
        for step in steps:
            ctx = step(ctx, out)
        return ctx

    return run


def _step(part: Any) -> Block:
    """One part as jinja2 runs it: text and outputs are written, an ``if`` runs one of its
    branches (a ``set`` in it is seen after it, as in jinja2), a ``for`` its body per item
    in a scope of its own (or its ``else`` when there is none), a ``set`` binds a name for
    the parts after it."""
    if isinstance(part, str):
        def text(ctx: Mapping[str, Any], out: list[str]) -> Mapping[str, Any]:
            out.append(part)
            return ctx
        return text
    kind = part[0]
    if kind == "if":
        test, then, otherwise = reader(part[1]), _block(part[2]), _block(part[3])
        return lambda ctx, out: then(ctx, out) if test(ctx) else otherwise(ctx, out)
    if kind == "set":
        name, value = part[1], reader(part[2])
        return lambda ctx, out: {**ctx, name: value(ctx)}
    if kind == "for":
        target, items, body, otherwise, test, counted = part[1:]
        return _loop(target, reader(items), _block(body), _block(otherwise),
                     None if test is None else reader(test), counted)
    value = reader(part)

    def output(ctx: Mapping[str, Any], out: list[str]) -> Mapping[str, Any]:
        out.append(str(value(ctx)))
        return ctx

    return output


def _loop(target: str | tuple[str, ...], items: Reader, body: Block, otherwise: Block,
          test: Reader | None, counted: bool) -> Block:
    """A ``for`` block: its body once per item (that passes its test), in a scope of its
    own with the target bound (and ``loop``'s fields when the body reads them); its
    ``else`` when no item did."""

    def scopes(ctx: Mapping[str, Any]) -> list[dict[str, Any]] | Iterator[dict[str, Any]]:
        each = ({**ctx, **_bound(target, item)} for item in items(ctx))
        kept = each if test is None else (scope for scope in each if test(scope))
        if not counted:
            return kept
        scopes = list(kept)
        size = len(scopes)
        for i, scope in enumerate(scopes):
            scope["loop"] = {"index": i + 1, "index0": i, "revindex": size - i,
                             "revindex0": size - i - 1, "first": i == 0,
                             "last": i == size - 1, "length": size}
        return scopes

    def loop(ctx: Mapping[str, Any], out: list[str]) -> Mapping[str, Any]:
        empty = True
        for scope in scopes(ctx):
            empty = False
            body(scope, out)
        return otherwise(ctx, out) if empty else ctx

    return loop


def _bound(target: str | tuple[str, ...], item: Any) -> dict[str, Any]:
    """The names a loop's target binds to one item (``k, v`` unpacks it, as Python does)."""
    if isinstance(target, str):
        return {target: item}
    values = tuple(item)
    if len(values) != len(target):
        raise ValueError(f"cannot unpack {len(values)} values into {len(target)} names")
    return dict(zip(target, values, strict=True))


_BLOCKS = frozenset({"if", "for", "set"})


def template_failed(err: BaseException) -> bool:
    """Whether ``err`` is jinja2's (a template's own failure); none is before jinja2 is
    imported."""
    jinja2 = sys.modules.get("jinja2")
    return jinja2 is not None and isinstance(err, jinja2.TemplateError)


__all__ = ["Compiled", "Parts", "restored", "template_failed", "template_reader"]
