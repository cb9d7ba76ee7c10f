"""A parsed service -> the findings of every semantic check, errors and warnings alike.

Graph safety (reachability, dead ends, traps, transitions that never fire, irreversible
actions without a confirmation: FL040–FL049), data flow (FL050–FL052), values (FL053–FL056),
usage (FL060–FL070), the flow stack and patterns (FL057, FL059, FL072–FL074), the request
context, guard, ranking and slots open to the model (FL075, FL076, FL123, FL124), hook
handlers (FL094, FL097), knowledge bases (FL108, FL109), loops (FL118), background runs
(FL120–FL122) and prompts. Each check reports into the shared ``Context``; an
error-severity finding stops a flow from compiling, a warning only shows in lint.
"""

from __future__ import annotations

from engine.compiler.checks import (
    dataflow,
    graph,
    hooks,
    knowledge,
    loops,
    policy,
    runs,
    stack,
    usage,
    values,
)
from engine.compiler.checks.context import Context

CHECKS = (graph.check, dataflow.check, values.check, usage.check, stack.check,
          policy.check, hooks.check, knowledge.check, loops.check, runs.check)


def run_checks(ctx: Context) -> None:
    """Run every check over ``ctx`` (prompt files are checked separately: ``prompts.check``)."""
    for check in CHECKS:
        check(ctx)


__all__ = ["CHECKS", "Context", "run_checks"]
