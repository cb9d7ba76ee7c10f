"""The service's guard: checked before anything else in a turn.

``blocked(run)`` tries the compiled ``guard`` rules on the message (keywords, regexes, a
condition over ``context``); the first that matches says its message, notes its failure
tag and ends the turn with no understanding, no step and no LLM call, the session as it
was.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from engine.compiler.compiled import GuardRule

if TYPE_CHECKING:
    from engine.runtime.turn.run import Turn


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
        run.refused = True
    return rule is not None


def _matches(rule: GuardRule, run: Turn) -> bool:
    message = run.state.message
    if rule.keywords or rule.patterns:
        folded = message.casefold()
        if not (any(k in folded for k in rule.keywords)
                or any(p.search(message) for p in rule.patterns)):
            return False
    return rule.when is None or bool(rule.when.render(run.state.view()))


__all__ = ["blocked"]
