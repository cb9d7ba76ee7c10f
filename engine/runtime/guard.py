"""The service's guard and request context: checked before anything else in a turn.

``blocked(run)`` tries the compiled ``guard`` rules on the message (keywords, regexes, a
condition over ``context``); the first that matches says its message, notes its failure
tag and ends the turn with no understanding, no step and no LLM call, the session as it
was. ``context_problems`` checks a request's context against the service's schema.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.compiler.compiled import CompiledService, GuardRule
from engine.providers.jsonout import validate_output

if TYPE_CHECKING:
    from engine.runtime.run import Turn


def context_problems(service: CompiledService, context: Any) -> list[str]:
    """Why ``context`` (a request's, None when it has none) cannot be used; [] when fine."""
    schema = service.context_schema
    if schema is None:
        return [] if context is None else ["this service declares no request context"]
    if context is not None and not isinstance(context, Mapping):
        return ["the context must be a JSON object"]
    return [_located(p) for p in validate_output(dict(context or {}), schema)]


def _located(problem: str) -> str:
    """``"b/c: 'x' is not ..."`` -> ``"context.b.c: 'x' is not ..."``."""
    where, _, what = problem.partition(": ")
    return "context: " + what if where == "(root)" else \
        f"context.{where.replace('/', '.')}: {what}"


def blocked(run: Turn) -> bool:
    """Whether a guard rule matched the turn's message (it has then answered)."""
    rules = run.service.guard
    if not rules or not run.state.message:
        return False
    started = time.perf_counter()
    rule = next((r for r in rules if _matches(r, run)), None)
    if rule is not None:
        run.tracer.step("guard", started)
        run.tracer.tag(rule.tag)
        run.reply.say(rule.say)
    return rule is not None


def _matches(rule: GuardRule, run: Turn) -> bool:
    message = run.state.message
    if rule.keywords or rule.patterns:
        folded = message.casefold()
        if not (any(k in folded for k in rule.keywords)
                or any(p.search(message) for p in rule.patterns)):
            return False
    return rule.when is None or bool(rule.when.render(run.state.view()))


__all__ = ["blocked", "context_problems"]
