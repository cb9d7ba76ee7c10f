"""What each stage reads and writes, in order -> FL050 (a ``set``-only slot read before any
step set it), FL051 (``result`` read where no ``call`` ran earlier in the turn) and FL052
(a flow reading or setting a slot it does not collect) and FL058 (``agents.<name>`` read where
that agent step did not run earlier in the turn).

A stage runs as a little program: its steps in order (``if`` branches both possible), then
its ``say``/``reprompt``. Slots persist across turns of a task; ``result`` lives only
within the turn of the ``call`` that set it, so it survives only step-fired hops. The
analysis is a must-analysis: at a stage, a value counts as set only if it is set on
*every* path from the initial stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, assert_never

from engine.compiler.checks.context import Context
from engine.compiler.checks.model import FlowModel
from engine.compiler.checks.reads import NOTHING, Reads, reads
from engine.dsl import spec as s
from engine.source import Path

RESULT = "\0result"
AGENT = "\0agent:"
"""Values that live only within one turn start with NUL: ``result``, ``agents.<name>``."""
_FILLED_BY_TYPE = frozenset({"money", "date", "time", "enum", "integer", "number"})


@dataclass(frozen=True, slots=True)
class Site:
    """A place the author wrote something that is rendered or evaluated."""

    path: Path
    reads: Reads
    what: str


Op = tuple[Any, ...]
"""("read", Site) | ("write", slot, Path) | ("call",) | ("agent", name)
| ("if", Site, then ops, else ops)"""


def expression_site(path: Path, raw: Any, what: str) -> Site | None:
    return Site(path, reads(raw, expression=True), what) if isinstance(raw, str) else None


def action_reads(action: s.ToolAction | s.HttpAction | s.WorkspaceAction | s.CommandAction
                 ) -> Reads:
    found = NOTHING
    if isinstance(action, s.CommandAction):
        for text in action.command:
            found = found | reads(text)
        return found
    if isinstance(action, s.WorkspaceAction):
        return reads(action.changes, expression=True) if action.changes else NOTHING
    values = action.args if isinstance(action, s.ToolAction) else (action.http.json_body or {})
    for raw in values.values():
        if isinstance(raw, str):
            found = found | reads(raw, expression=True)
    if isinstance(action, s.HttpAction):
        for text in (action.http.url, *action.http.headers.values()):
            found = found | reads(text)
    return found


def program(ctx: Context, flow: s.FlowSpec, steps: list[s.Step], path: Path) -> list[Op]:
    ops: list[Op] = []
    for i, step in enumerate(steps):
        ops.extend(_step_ops(ctx, flow, step, (*path, i)))
    return ops


def _step_ops(ctx: Context, flow: s.FlowSpec, step: s.Step, path: Path) -> list[Op]:
    match step:
        case s.SayStep(say=name):
            return [("read", Site((*path, "say"), ctx.message_reads(name, flow),
                                  f"message `{name}`"))]
        case s.SetStep():
            ops: list[Op] = []
            for slot, raw in step.set.items():
                site = expression_site((*path, "set", slot), raw, f"`set` of `{slot}`")
                ops += [("read", site)] if site else []
                if raw is not None:  # `set: {slot: null}` clears it: that sets nothing
                    ops.append(("write", slot, (*path, "set", slot)))
            return ops
        case s.CallStep(call=name):
            action = ctx.spec.actions.get(name)
            found = action_reads(action) if action else NOTHING
            return [("read", Site((*path, "call"), found, f"action `{name}`")), ("call",)]
        case s.EmitStep():
            return [("read", site) for k, raw in step.data.items()
                    if (site := expression_site((*path, "data", k), raw, f"hook data `{k}`"))]
        case s.AgentStep():
            return [("read", Site((*path, "fallback"), ctx.message_reads(step.fallback, flow),
                                  f"message `{step.fallback}`")),
                    ("read", Site((*path, "prompt"), prompt_reads(ctx, step.prompt),
                                  f"prompt `{step.prompt}`")),
                    ("agent", step.agent)]
        case s.IfStep():
            return [("if", Site((*path, "if"), reads(step.if_, expression=True), "condition"),
                     program(ctx, flow, step.then, (*path, "then")),
                     program(ctx, flow, step.else_, (*path, "else")))]
        case s.RetrieveStep(query=query):
            return [("read", Site((*path, "query"), reads(query), "the query"))] if query else []
        case s.RespondStep():
            return [("read", site) for site in respond_sites(ctx, flow, step, path)]
        case s.LoopStep():
            return _loop_ops(ctx, flow, step.loop, (*path, "loop"))
        case s.TriggerStep() | s.LinkStep():
            return []  # what it fires (or where it hands over) is the graph checks' concern
        case _:
            assert_never(step)


def respond_sites(ctx: Context, flow: s.FlowSpec, step: s.RespondStep,
                  path: Path) -> list[Site]:
    """What a ``respond`` step's messages and conditions read."""
    body, at = step.respond, (*path, "respond")
    sites = [Site((*at, key), ctx.message_reads(name, flow), f"message `{name}`")
             for key in ("summary", "fallback") if (name := getattr(body, key))]
    if isinstance(body.requires_confirmation, str):
        sites.append(Site((*at, "requires_confirmation"),
                          reads(body.requires_confirmation, expression=True), "condition"))
    for key in ("actions", "caveats", "next"):
        for i, line in enumerate(getattr(body, key)):
            line = s.RespondLine(say=line) if isinstance(line, str) else line
            if line.say:
                sites.append(Site((*at, key, i), ctx.message_reads(line.say, flow),
                                  f"message `{line.say}`"))
            sites += [site for part in ("each", "when")
                      if (site := expression_site((*at, key, i, part), getattr(line, part),
                                                  "condition"))]
    return sites
def _loop_ops(ctx: Context, flow: s.FlowSpec, loop: s.LoopSpec, path: Path) -> list[Op]:
    """The body runs at least once, then ``until`` and ``feedback`` are read after it."""
    ops: list[Op] = []
    if site := expression_site((*path, "max_attempts"), loop.max_attempts, "`max_attempts`"):
        ops.append(("read", site))
    ops += program(ctx, flow, loop.steps, (*path, "steps"))
    if site := expression_site((*path, "until"), loop.until, "`until`"):
        ops.append(("read", site))
    if loop.feedback is not None:
        ops.append(("read", Site((*path, "feedback"), reads(loop.feedback), "`feedback`")))
    return ops


def prompt_reads(ctx: Context, name: str) -> Reads:
    found = ctx.prompt_file(name)
    return reads(found.read_text(encoding="utf-8")) if found else NOTHING


def stage_program(ctx: Context, m: FlowModel, stage: str) -> list[Op]:
    spec = m.flow.stages[stage]
    ops = program(ctx, m.flow, spec.steps, (*m.stage_path(stage), "steps"))
    for key in ("say", "reprompt"):
        name = getattr(spec, key)
        if name is not None:
            ops.append(("read", Site((*m.stage_path(stage), key),
                                     ctx.message_reads(name, m.flow), f"message `{name}`")))
    return ops


def condition_sites(m: FlowModel) -> dict[int, Site]:
    return {i: Site((*m.transition_path(i), "when"), reads(t.when, expression=True),
                    "condition") for i, t in enumerate(m.flow.transitions) if t.when}


# -- FL052: the flow reads or sets a slot it does not collect ------------------------------

def _all_sites(ops: list[Op]) -> list[Site]:
    out: list[Site] = []
    for op in ops:
        if op[0] == "read":
            out.append(op[1])
        elif op[0] == "if":
            out += [op[1], *_all_sites(op[2]), *_all_sites(op[3])]
    return out


def _writes(ops: list[Op]) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    for op in ops:
        if op[0] == "write":
            out.append((op[1], op[2]))
        elif op[0] == "if":
            out += _writes(op[2]) + _writes(op[3])
    return out


def _foreign(ctx: Context, m: FlowModel, programs: dict[str, list[Op]]) -> None:
    collects, declared = set(m.flow.slots), set(ctx.spec.slots)
    # slots are shared by name: a flow may read what another flow collects (None until then)
    readable = collects | {n for f in ctx.spec.flows.values() for n in f.slots}
    sites = [site for ops in programs.values() for site in _all_sites(ops)]
    sites += condition_sites(m).values()
    sites += [Site(("slots", n, "error"), ctx.message_reads(ctx.spec.slots[n].error, m.flow),
                   f"message `{ctx.spec.slots[n].error}` (the error of `{n}`)")
              for n in m.flow.slots if n in declared and ctx.spec.slots[n].error]
    for site in sites:
        for slot in sorted((site.reads.slots & declared) - readable):
            ctx.add(site.path, "FL052", f"{site.what} reads `slots.{slot}`, but no flow "
                    f"collects `{slot}`: it never has a value",
                    hint=f"add `{slot}` to flows.{m.name}.slots, or do not read it here")
    for ops in programs.values():
        for slot, path in _writes(ops):
            if slot in declared and slot not in collects:
                ctx.add(path, "FL052", f"`set` of `{slot}` does nothing: flow `{m.name}` "
                        f"does not collect `{slot}`", key=True,
                        hint=f"add `{slot}` to flows.{m.name}.slots")


# -- FL050/FL051: read before set ---------------------------------------------------------

def set_only(ctx: Context, flow: s.FlowSpec) -> frozenset[str]:
    """Slots of the flow that understanding never fills: only ``set`` steps give them values.
    (A required boolean is asked, and a yes or a no to its question fills it; a kept slot
    another flow collects or sets may arrive filled from it.)"""
    elsewhere = _kept_from_elsewhere(ctx, flow)
    out = set()
    for name in flow.slots:
        if name in elsewhere:
            continue
        slot = ctx.spec.slots.get(name)
        extract = slot.extract if slot else None
        asked_boolean = slot is not None and slot.type == "boolean" and slot.required is not False
        if slot is not None and slot.type not in _FILLED_BY_TYPE and not asked_boolean and not (
                extract and (extract.patterns or extract.bare or extract.free_text)):
            out.add(name)
    return frozenset(out)


def _kept_from_elsewhere(ctx: Context, flow: s.FlowSpec) -> frozenset[str]:
    """``keep: true`` slots that another flow lists or sets: a called or earlier flow may
    have filled them before this one reads them."""
    kept = {n for n, slot in ctx.spec.slots.items() if slot.keep}
    others = [f for f in ctx.spec.flows.values() if f is not flow]
    listed = {n for f in others for n in f.slots}
    mine = {id(st) for st in flow.stages.values()}
    written = {n for fname, sname, _, step in s.service_steps(ctx.spec)
               if isinstance(step, s.SetStep) and id(ctx.spec.flows[fname].stages[sname])
               not in mine for n in step.set}
    return frozenset(kept & (listed | written))


def _run(ops: list[Op], state: frozenset[str], visit: Any = None) -> frozenset[str]:
    """The must-set state after ``ops``; ``visit(site, state)`` sees each read on the way."""
    for op in ops:
        if op[0] == "read" and visit:
            visit(op[1], state)
        elif op[0] == "write":
            state = state | {op[1]}
        elif op[0] == "call":
            state = state | {RESULT}
        elif op[0] == "agent":
            state = state | {AGENT + op[1]}
        elif op[0] == "if":
            if visit:
                visit(op[1], state)
            state = _run(op[2], state, visit) & _run(op[3], state, visit)
    return state


def _solve(m: FlowModel, programs: dict[str, list[Op]], universe: frozenset[str]
           ) -> dict[str, frozenset[str]]:
    """State on entering each reachable stage (greatest fixpoint of the must-analysis)."""
    into = {stage: (frozenset() if stage == m.flow.initial else universe)
            for stage in m.reachable}
    for _ in range(len(into) * len(universe) + 2):
        out = {st: _run(programs[st], into[st]) for st in into}
        new = dict(into)
        for hop in m.hops:
            if hop.source in into and hop.dest in into and hop.dest != m.flow.initial:
                carried = out[hop.source] if hop.by_step else _kept(out[hop.source])
                new[hop.dest] = new[hop.dest] & carried
        if new == into:
            break
        into = new
    return into


def _kept(state: frozenset[str]) -> frozenset[str]:
    """What a new turn still has: not ``result`` nor the agents' outputs."""
    return frozenset(v for v in state if not v.startswith("\0"))


def _before_set(ctx: Context, m: FlowModel, programs: dict[str, list[Op]]) -> None:
    watched = set_only(ctx, m.flow)
    agents = {AGENT + step.agent for _, _, _, step in s.service_steps(ctx.spec)
              if isinstance(step, s.AgentStep)}
    universe = frozenset(watched | {RESULT} | agents)
    into = _solve(m, programs, universe)

    def visit(site: Site, state: frozenset[str]) -> None:
        for slot in sorted((site.reads.slots & watched) - state):
            ctx.add(site.path, "FL050", f"{site.what} reads `slots.{slot}` before any step "
                    f"sets it on some path from `{m.flow.initial}`; understanding never fills "
                    f"`{slot}`, so it is empty here",
                    hint=f"set `{slot}` in a `set` step on every path before this point")
        if "result" in site.reads.names and RESULT not in state:
            ctx.add(site.path, "FL051", f"{site.what} reads `result`, but no `call` step runs "
                    "before it in the same turn, so `result` is empty here",
                    hint="read `result` only in the stage of the `call` (after it) or in "
                    "the stage its `ok`/`error` trigger leads to")
        for agent in sorted(site.reads.agents):
            if AGENT + agent in universe and AGENT + agent not in state:
                ctx.add(site.path, "FL058", f"{site.what} reads `agents.{agent}`, but agent "
                        f"step `{agent}` does not run before it in the same turn, so it "
                        "is empty here", hint=f"read `agents.{agent}` after the `{agent}` "
                        "step, in its stage or one a step-fired trigger leads to")

    conditions = condition_sites(m)
    for stage, state in into.items():
        after = _run(programs[stage], state, visit)
        for i, t in enumerate(m.flow.transitions):
            if i in conditions and stage in dict(m.sources(t)):
                fired_by_step = any(h.by_step for h in m.hops if h.index == i and
                                    h.source == stage)
                visit(conditions[i], after if fired_by_step else _kept(after))


def check(ctx: Context) -> None:
    for m in ctx.flows.values():
        programs = {stage: stage_program(ctx, m, stage) for stage in m.flow.stages}
        _foreign(ctx, m, programs)
        _before_set(ctx, m, programs)
