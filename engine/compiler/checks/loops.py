"""Loop steps -> FL118 (a loop that checks `until` but feeds nothing back, so every attempt
sees the same input). The compiler already refuses what cannot run (FL117, FL119)."""

from __future__ import annotations

from engine.compiler.checks.context import Context
from engine.dsl import spec as s


def check(ctx: Context) -> None:
    for _, _, path, step in ctx.steps():
        if isinstance(step, s.LoopStep) and step.loop.until and step.loop.feedback is None:
            ctx.add((*path, "loop"), "FL118", "this loop retries until its condition holds, "
                    "but gives the next attempt no `feedback`: it sees the same input and "
                    "will likely fail the same way", key=True,
                    hint="add `feedback:` (a template saying what went wrong, read as "
                    "`loop.feedback`)")
