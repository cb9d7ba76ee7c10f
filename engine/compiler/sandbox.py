"""The one jinja2 environment every template and expression is compiled in, and how the
code it compiles a template to runs.

User text only ever reaches templates as data (a context value), never as template
source. The environment is an ``ImmutableSandboxedEnvironment`` (a template can neither
reach Python internals nor change the session through ``dict.update`` and the like) with
``StrictUndefined``, so a misspelt variable fails loudly at render time. Imported only when
a template needs jinja2 itself: to compile, or to run what a plan cannot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from types import CodeType
from typing import Any, cast

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, nodes
from jinja2.parser import Parser
from jinja2.sandbox import ImmutableSandboxedEnvironment

from engine.compiler.filters import FILTERS, GLOBALS


@lru_cache(maxsize=1)
def environment() -> ImmutableSandboxedEnvironment:
    """The one environment every template and expression is compiled in."""
    env = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False,
                               keep_trailing_newline=False, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(FILTERS)
    GLOBALS.update(env.globals)
    return env


def base_context() -> dict[str, Any]:
    """The environment's globals (range, dict, ...) as a plain dict.

    A turn context starts from a copy of it, so every render can hand jinja2 its context
    as is (``shared=True``) instead of jinja2 re-merging its globals ChainMap per render.
    """
    return dict(environment().globals)


def template_code(source: str, expression: bool) -> CodeType:
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


def renders(code: CodeType) -> Callable[[Mapping[str, Any]], str]:
    env, template = environment(), _template(code)

    def render(ctx: Mapping[str, Any]) -> str:
        context = _context(env, template, ctx)
        return env.concat(template.root_render_func(context)).strip()

    return render


def evaluates(code: CodeType) -> Callable[[Mapping[str, Any]], Any]:
    env, template = environment(), _template(code)

    def evaluate(ctx: Mapping[str, Any]) -> Any:
        context = _context(env, template, ctx)
        for _ in template.root_render_func(context):
            pass
        return context.vars["result"]

    return evaluate


def _context(env: ImmutableSandboxedEnvironment, template: Template, ctx: Mapping[str, Any]) -> Any:
    """A jinja2 Context over ``ctx`` as is: the globals are already in it (``base_context``),
    so jinja2 need not copy them (``new_context``) nor list them (``Context(globals=...)``)."""
    parent = ctx if isinstance(ctx, dict) else dict(ctx)
    return env.context_class(env, parent, template.name, template.blocks)


__all__ = ["base_context", "environment", "evaluates", "renders", "template_code"]
