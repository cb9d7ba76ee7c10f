"""Stage graph checks (FL040–FL049): reachability, dead ends, traps, transitions that never
fire, and irreversible actions reachable without a confirmation.

"Terminal" here: a task ends in a stage marked ``terminal: true``. A flow that collects no
slots is a conversation flow (plain chat, a FAQ answer): a turn that ends in its initial
stage leaves the flow, so its initial stage is its end and it needs no terminal stage.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.compiler.checks.context import Context
from engine.compiler.checks.model import FlowModel, Hop
from engine.dsl import spec as s
from engine.dsl.spec import walk_steps


def check(ctx: Context) -> None:
    for model in ctx.flows.values():
        _unreachable(ctx, model)
        _dead_ends_and_traps(ctx, model)
        _terminal_exits(ctx, model)
        _no_terminal(ctx, model)
        _never_fires(ctx, model)
        _confirm_without_transition(ctx, model)
        _fired_without_transition(ctx, model)
        _unconfirmed_irreversible(ctx, model)
    _calls(ctx)


def _unreachable(ctx: Context, m: FlowModel) -> None:
    for stage in m.flow.stages:
        if stage not in m.reachable:
            ctx.add(m.stage_path(stage), "FL040", f"stage `{stage}` is unreachable from the "
                    f"initial stage `{m.flow.initial}` of flow `{m.name}`", key=True,
                    hint="add a transition into it, or remove it")


def _dead_ends_and_traps(ctx: Context, m: FlowModel) -> None:
    exits = m.terminals | {m.flow.initial}
    for stage in m.reachable:
        if stage in exits:
            continue
        if not m.out_hops(stage):
            ctx.add(m.stage_path(stage), "FL041", f"stage `{stage}` is a dead end: no "
                    "transition can leave it, so a conversation that reaches it is stuck",
                    key=True, hint="add a transition from it (a `cancel` to a terminal stage "
                    "at least), or mark it `terminal: true`")
            continue
        loop = m.reach(stage)
        if not exits & set(loop):
            ctx.add(m.stage_path(stage), "FL043", f"no terminal stage can be reached from "
                    f"`{stage}`: the conversation goes round {_names(loop)} forever", key=True,
                    hint="add a way out, e.g. a `cancel` transition to a terminal stage")


def _names(stages: Iterable[str]) -> str:
    return ", ".join(f"`{n}`" for n in sorted(stages))


def _terminal_exits(ctx: Context, m: FlowModel) -> None:
    for i, t in enumerate(m.flow.transitions):
        for source, explicit in m.sources(t):
            if explicit and source in m.terminals:
                ctx.add(m.transition_path(i), "FL042", f"terminal stage `{source}` is the source"
                        f" of this transition; a terminal stage ends the task",
                        hint=f"remove `{source}` from `source`, or drop its `terminal: true`")


def _no_terminal(ctx: Context, m: FlowModel) -> None:
    if m.collects and not m.terminals & set(m.reachable):
        ctx.add((*m.path, "initial"), "FL044", f"flow `{m.name}` collects slots but no "
                f"terminal stage is reachable from `{m.flow.initial}`: its tasks never complete",
                hint="add a stage with `terminal: true` and a transition into it")


_HINTS = {
    "an ": "move it above the transition that takes the trigger first, or give that one a "
           "condition",
    "its condition": "remove the transition, or fix its condition",
    "`confirm`": "add `decide: confirm` to the source stage, or use another trigger",
    "the runtime": "add the slots the flow collects to its `slots`, or fire the trigger "
                   "from a step",
    "no step": "fire it from a step of the source stage (`trigger:` or a `call` step's "
               "`ok`/`error`), or change the source",
}


def _never_fires(ctx: Context, m: FlowModel) -> None:
    for never in m.never:
        if never.reason.startswith("a turn never starts"):
            continue  # FL042 says it once for the stage
        hint = next((h for lead, h in _HINTS.items() if never.reason.startswith(lead)), None)
        ctx.add(never.path, "FL045", f"transition can never fire from {_names(never.sources)}:"
                f" {never.reason}", hint=hint)


def _confirm_without_transition(ctx: Context, m: FlowModel) -> None:
    for stage, spec in m.flow.stages.items():
        has = any(t.trigger == "confirm" and stage in dict(m.sources(t))
                  for t in m.flow.transitions)
        if spec.decide == "confirm" and not has:
            ctx.add((*m.stage_path(stage), "decide"), "FL049", f"stage `{stage}` decides "
                    "`confirm` but no `confirm` transition leaves it: a yes does nothing",
                    hint=f"add `{{trigger: confirm, source: {stage}, dest: ...}}`")


def _fired_without_transition(ctx: Context, m: FlowModel) -> None:
    """A step fires a trigger that some transition takes, but none from this stage: the
    runtime fails the turn there. (No transition at all is the compiler's FL024.)"""
    anywhere = {t.trigger for t in m.flow.transitions}
    for stage, spec in m.flow.stages.items():
        for path, step in walk_steps(spec.steps, (*m.stage_path(stage), "steps")):
            fired = [(k, getattr(step, k)) for k in ("trigger", "ok", "error")
                     if isinstance(getattr(step, k, None), str)
                     and isinstance(step, s.TriggerStep | s.CallStep)]
            for key, trigger in fired:
                taken = any(t.trigger == trigger and stage in dict(m.sources(t))
                            for t in m.flow.transitions)
                if trigger in anywhere and not taken:
                    ctx.add((*path, key), "FL024", f"trigger `{trigger}` has no transition "
                            f"from stage `{stage}`: the turn fails when the step fires it",
                            hint=f"add `{stage}` to the `source` of a `{trigger}` transition")


def _is_confirmation(m: FlowModel, hop: Hop) -> bool:
    return hop.trigger == "confirm" and m.flow.stages[hop.source].decide == "confirm"


def _irreversible_calls(ctx: Context, m: FlowModel, stage: str
                        ) -> list[tuple[tuple[str | int, ...], s.CallStep]]:
    return [(path, step) for path, step in walk_steps(m.flow.stages[stage].steps,
                                                      (*m.stage_path(stage), "steps"))
            if isinstance(step, s.CallStep) and (action := ctx.spec.actions.get(step.call))
            is not None and action.irreversible]


def _unconfirmed_irreversible(ctx: Context, m: FlowModel) -> None:
    unconfirmed = m.reach(m.flow.initial, allow=lambda h: not _is_confirmation(m, h))
    for stage in m.flow.stages:
        for path, step in _irreversible_calls(ctx, m, stage):
            if stage in unconfirmed:
                ctx.add((*path, "call"), "FL046", f"irreversible action `{step.call}` can run "
                        f"without a confirmation: {m.route(unconfirmed, stage)}",
                        hint="reach this stage only through the `confirm` transition of a "
                        "`decide: confirm` stage")
            elif step.ok is None and not m.flow.stages[stage].terminal:
                ctx.add((*path, "call"), "FL046", f"irreversible action `{step.call}` runs "
                        f"again on every turn that ends in `{stage}`: its `call` has no `ok` "
                        "trigger, so the task stays there after it succeeds", hint="add "
                        "`ok: <trigger>` and a transition that leaves the stage")


def _calls(ctx: Context) -> None:
    for _, stage, path, step in ctx.steps():
        if "loop" in path:
            continue  # a loop's attempt fails with its action (FL117 forbids triggers there)
        if isinstance(step, s.CallStep) and step.error is None \
                and (step.call in ctx.spec.actions or step.call not in ctx.spec.flows):
            ctx.add((*path, "call"), "FL047", f"`call: {step.call}` has no `error` trigger: "
                    f"if the action fails, the turn ends with a generic error and the task "
                    f"stays in `{stage}`", hint="add `error: failed` and a transition to a "
                    "stage that tells the user")
    for name, action in ctx.spec.actions.items():
        if action.irreversible and "timeout_sec" not in action.model_fields_set:
            ctx.add(("actions", name), "FL048", f"irreversible action `{name}` relies on the "
                    f"default timeout of {action.timeout_sec:g} s", key=True,
                    hint="state `timeout_sec:` explicitly; how long a money move may take is "
                    "a decision")
