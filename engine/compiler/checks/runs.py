"""Background stages -> FL120 (a background stage that is terminal, decides a confirmation
or has nothing to run), FL121 (no step of it fires a trigger that leaves it, so its run
could only end where it started and the next turn would start it again) and FL122 (a stage
marked ``failed`` that no background run can end in)."""

from __future__ import annotations

from engine.compiler.checks.context import Context
from engine.compiler.checks.model import FlowModel, fired_by_steps


def check(ctx: Context) -> None:
    for model in ctx.flows.values():
        background = [n for n, st in model.flow.stages.items() if st.background]
        for name in background:
            _shape(ctx, model, name)
            _exit(ctx, model, name)
        _failed(ctx, model, background)


def _shape(ctx: Context, m: FlowModel, name: str) -> None:
    stage = m.flow.stages[name]
    path = (*m.stage_path(name), "background")
    why = ("it is terminal" if stage.terminal else
           "it decides a confirmation (a run has nobody to ask)" if stage.decide else
           "it has no steps to run" if not stage.steps else None)
    if why is not None:
        ctx.add(path, "FL120", f"stage `{name}` of flow `{m.name}` runs in the background, "
                f"but {why}", key=True,
                hint="put the long work in the `steps` of a non-terminal stage of its own")


def _exit(ctx: Context, m: FlowModel, name: str) -> None:
    stage = m.flow.stages[name]
    if not stage.steps or stage.terminal:
        return  # FL120 said it
    fired = fired_by_steps(stage)
    leaves = [h for h in m.hops if h.source == name and h.trigger in fired and h.dest != name]
    if not leaves:
        ctx.add((*m.stage_path(name), "background"), "FL121", f"no trigger the steps of "
                f"background stage `{name}` fire leaves it: its run would end in `{name}` "
                "and the next turn would start it again", key=True,
                hint="give a step an `ok`/`error` trigger, or add a `trigger` step, with a "
                     "transition to the stage the run ends in")


def _failed(ctx: Context, m: FlowModel, background: list[str]) -> None:
    after = _reached_from(m, background)
    for name, stage in m.flow.stages.items():
        if stage.failed and name not in after:
            ctx.add((*m.stage_path(name), "failed"), "FL122", f"stage `{name}` of flow "
                    f"`{m.name}` is marked `failed`, but no background run of the flow can "
                    "end there", key=True,
                    hint="remove `failed`, or lead a background stage's trigger to it")


def _reached_from(m: FlowModel, starts: list[str]) -> set[str]:
    """Stages a run that starts in one of ``starts`` can move to by its steps' triggers."""
    seen: set[str] = set(starts)
    todo = list(starts)
    while todo:
        here = todo.pop()
        fired = fired_by_steps(m.flow.stages[here])
        for hop in m.hops:
            if hop.source == here and hop.trigger in fired and hop.dest not in seen:
                seen.add(hop.dest)
                todo.append(hop.dest)
    return seen
