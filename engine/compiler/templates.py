"""Message/prompt/expression source -> compiled jinja2 objects in one sandboxed environment.

User text only ever reaches templates as data (a context value), never as template
source. The environment is an ``ImmutableSandboxedEnvironment`` (a template can neither reach
Python internals nor change the session through ``dict.update`` and the like) with
``StrictUndefined`` so a
misspelt variable fails loudly at render time and is caught at compile time by
``undeclared()``.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import CodeType
from typing import Any, cast

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, meta, nodes
from jinja2.parser import Parser
from jinja2.sandbox import ImmutableSandboxedEnvironment

from engine.compiler import fast
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
    expression: bool = False
    """Compiled by ``compile_expression`` (else by ``compile_template``)."""
    plan: Any = None
    """What ``engine.compiler.fast`` reads it by (None: it runs as a jinja2 template)."""

    def __call__(self, ctx: Mapping[str, Any]) -> Any:
        return self.render(ctx)

    def __reduce__(self) -> tuple[Callable[..., Compiled], tuple[Any, ...]]:
        """Pickled as what it reads, and its plan or its template's code (marshalled): a
        build loads it without parsing or compiling anything."""
        code = None if self.plan is not None else marshal.dumps(_code(self.source,
                                                                     self.expression))
        return _restored, (self.source, self.names, self.slot_refs, self.field_refs,
                           self.agent_refs, self.retrieved_refs, self.agent_field_refs,
                           self.expression, self.plan, code)


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
    plan = fast.template_plan(env, tree)
    if plan is not None:  # text and simple `{{ }}` only: no jinja2 template run per render
        return Compiled(source, *_with_reads(tree, fast.template_reader(env, plan)), plan=plan)
    return Compiled(source, *_with_reads(tree, _renders(env.compile(tree))))


@lru_cache(maxsize=4096)
def compile_expression(source: str) -> Compiled:
    """Compile a jinja2 expression (conditions, `set`, `args`); raises TemplateSyntaxError."""
    env = environment()
    code = _code(source, expression=True)
    tree = env.parse("{{ (" + source + ") }}")
    plan = fast.expression_plan(env, tree)
    if plan is not None:  # simple names, paths, comparisons: no template run per call
        return Compiled(source, *_with_reads(tree, fast.reader(env, plan)), expression=True,
                        plan=plan)
    return Compiled(source, *_with_reads(tree, _evaluates(code)), expression=True)


def _with_reads(tree: nodes.Template, render: Callable[[Mapping[str, Any]], Any]) -> tuple[
        frozenset[str], Callable[[Mapping[str, Any]], Any], frozenset[str],
        frozenset[tuple[str, str]], frozenset[str], frozenset[str], frozenset[tuple[str, str]]]:
    names, slots, fields, agents, found, agent_fields = _reads(tree)
    return names, render, slots, fields, agents, found, agent_fields


def _code(source: str, expression: bool) -> CodeType:
    """The Python code jinja2 compiles ``source`` to: a template's, or for an expression
    a template that assigns it to ``result`` (as ``Environment.compile_expression``)."""
    env = environment()
    if not expression:
        return cast(CodeType, env.compile(env.parse(source)))
    parser = Parser(env, source, state="variable")
    try:
        expr = parser.parse_expression()
        if not parser.stream.eos:
            raise TemplateSyntaxError("chunk after expression", parser.stream.current.lineno,
                                      None, None)
        expr.set_environment(env)
    except TemplateSyntaxError:
        env.handle_exception(source=source)  # raises it, with the source, as jinja2 does
    body = [nodes.Assign(nodes.Name("result", "store"), expr, lineno=1)]
    return cast(CodeType, env.compile(nodes.Template(body, lineno=1)))


def _template(code: CodeType) -> Template:
    env = environment()
    return env.template_class.from_code(env, code, env.make_globals(None), None)


def _renders(code: CodeType) -> Callable[[Mapping[str, Any]], str]:
    env, template = environment(), _template(code)

    def render(ctx: Mapping[str, Any]) -> str:
        context = _context(env, template, ctx)
        return env.concat(template.root_render_func(context)).strip()

    return render


def _evaluates(code: CodeType) -> Callable[[Mapping[str, Any]], Any]:
    env, template = environment(), _template(code)

    def evaluate(ctx: Mapping[str, Any]) -> Any:
        context = _context(env, template, ctx)
        for _ in template.root_render_func(context):
            pass
        return context.vars["result"]

    return evaluate


def _restored(source: str, names: frozenset[str], slot_refs: frozenset[str],
              field_refs: frozenset[tuple[str, str]], agent_refs: frozenset[str],
              retrieved_refs: frozenset[str], agent_field_refs: frozenset[tuple[str, str]],
              expression: bool, plan: Any, code: bytes | None) -> Compiled:
    """A pickled Compiled, loaded (see ``Compiled.__reduce__``)."""
    env = environment()
    if plan is not None:
        render = fast.reader(env, plan) if expression else fast.template_reader(env, plan)
    else:
        compiled = cast(CodeType, marshal.loads(code or b""))  # noqa: S302 - our own build
        render = _evaluates(compiled) if expression else _renders(compiled)
    return Compiled(source, names, render, slot_refs, field_refs, agent_refs, retrieved_refs,
                    agent_field_refs, expression, plan)


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
