"""ServiceSpec -> the facts lint checks reason about: which transitions can fire from which
stage (and why some never can), the steps of each stage, what each rendered text reads.

The runtime's rules, stated once here (engine/runtime/turn_run.py is the reference):

- ``update`` fires at the start of every turn of a flow in progress, in any non-terminal
  stage (also the initial one); ``confirm`` only at a ``decide: confirm`` stage, from a
  yes word; ``cancel`` at any non-terminal stage, from a cancel (or, at a confirmation, a
  no) word. Yes/no words are only read in flows that collect slots, but cancelling a
  background stage's run (a cancel word, or the API) fires ``cancel`` there in any flow.
- Any other trigger fires only from the stage whose steps fire it (a ``trigger`` step or
  a ``call`` step's ``ok``/``error``), right after those steps, in the same turn.
- The first transition (in file order) whose trigger, source and condition match fires.
- A turn that ends in the initial stage leaves the flow: the next message is routed anew.
  So the initial stage is an exit as good as a terminal one, and never a dead end.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from engine.compiler.checks.reads import NOTHING, reads
from engine.compiler.resolve import RUNTIME_TRIGGERS
from engine.dsl import spec as s
from engine.source import Path

TURN_TRIGGERS = frozenset(RUNTIME_TRIGGERS)


@dataclass(frozen=True, slots=True)
class Hop:
    """One way a transition can move a task: ``source`` -> ``dest`` on ``trigger``."""

    index: int
    source: str
    dest: str
    trigger: str
    by_step: bool
    """Fired by a step of ``source`` in the same turn (``result`` survives), not at turn start."""


@dataclass(frozen=True, slots=True)
class NeverFires:
    index: int
    sources: tuple[str, ...]
    reason: str
    path: Path


def fired_by_steps(stage: s.StageSpec) -> set[str]:
    out: set[str] = set()
    for _, step in s.walk_steps(stage.steps):
        if isinstance(step, s.TriggerStep):
            out.add(step.trigger)
        elif isinstance(step, s.CallStep):
            out.update(t for t in (step.ok, step.error) if t)
        elif isinstance(step, s.LoopStep):
            out.update(t for t in (step.loop.ok, step.loop.exhausted) if t)
    return out


@dataclass
class FlowModel:
    """The stage graph of one flow as the runtime can actually move through it."""

    name: str
    flow: s.FlowSpec
    service: s.ServiceSpec
    hops: list[Hop] = field(default_factory=list)
    never: list[NeverFires] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._build()

    @property
    def path(self) -> Path:
        return ("flows", self.name)

    def stage_path(self, stage: str) -> Path:
        return (*self.path, "stages", stage)

    def transition_path(self, index: int) -> Path:
        return (*self.path, "transitions", index)

    @cached_property
    def terminals(self) -> set[str]:
        return {n for n, st in self.flow.stages.items() if st.terminal}

    @property
    def collects(self) -> bool:
        return bool(self.flow.slots)

    def sources(self, t: s.TransitionSpec) -> list[tuple[str, bool]]:
        """(stage, named explicitly) for each stage the transition leaves."""
        raw = [t.source] if isinstance(t.source, str) else t.source
        out: dict[str, bool] = {}
        for src in raw:
            if src == "*":
                for name in self.flow.stages:
                    if name not in self.terminals:
                        out.setdefault(name, False)
            elif src in self.flow.stages:
                out[src] = True
        return list(out.items())

    def why_not(self, trigger: str, stage: str) -> str | None:
        """Why ``trigger`` can never fire at ``stage``, or None when it can."""
        st = self.flow.stages[stage]
        if trigger in fired_by_steps(st):
            return None
        if st.terminal:
            return f"a turn never starts in terminal stage `{stage}`"
        if trigger == "update" or (trigger == "cancel" and st.background):
            return None  # a background run's cancel fires `cancel`, slots or not
        if trigger in ("confirm", "cancel") and not self.collects:
            return (f"the runtime reads yes/no words only in flows that collect slots, "
                    f"and flow `{self.name}` collects none")
        if trigger in ("confirm", "deny") and st.decide != "confirm":
            return f"`{trigger}` fires only at a `decide: confirm` stage; `{stage}` is not one"
        if trigger in TURN_TRIGGERS:
            return None
        return f"no step of stage `{stage}` fires `{trigger}`"

    def _build(self) -> None:
        earlier: dict[tuple[str, str], list[tuple[int, str | None]]] = {}
        for i, t in enumerate(self.flow.transitions):
            if t.dest not in self.flow.stages:
                continue
            blocked: dict[str, list[str]] = {}
            for source, explicit in self.sources(t):
                reason = self._blocked(i, t, source, earlier.get((t.trigger, source), []))
                if reason is None:
                    by_step = t.trigger not in TURN_TRIGGERS \
                        and t.trigger in fired_by_steps(self.flow.stages[source])
                    self.hops.append(Hop(i, source, t.dest, t.trigger, by_step))
                    earlier.setdefault((t.trigger, source), []).append((i, _condition(t.when)))
                elif explicit or reason.startswith(("its condition", "an ")):
                    blocked.setdefault(reason, []).append(source)
            for reason, stages in blocked.items():
                where = (*self.transition_path(i), "when") if reason.startswith("its condition") \
                    else self.transition_path(i)
                self.never.append(NeverFires(i, tuple(stages), reason, where))

    def _blocked(self, i: int, t: s.TransitionSpec, source: str,
                 before: list[tuple[int, str | None]]) -> str | None:
        """Why transition ``i`` never fires from ``source`` (None: it can)."""
        if self.flow.stages[source].terminal and t.trigger not in fired_by_steps(
                self.flow.stages[source]):
            return f"a turn never starts in terminal stage `{source}`"
        when = _condition(t.when)
        for j, other in before:
            if other is None or other == when:
                kind = "an unconditional" if other is None else "an identical"
                return f"{kind} transition before it (transitions[{j}]) takes `{t.trigger}` first"
        constant = reads(t.when, expression=True) if t.when else NOTHING
        if constant.is_constant and not constant.constant:
            return f"its condition `{t.when}` is always false"
        return self.why_not(t.trigger, source)

    # -- graph queries ---------------------------------------------------------------------

    def out_hops(self, stage: str) -> list[Hop]:
        return [h for h in self.hops if h.source == stage]

    def reach(self, start: str, *, allow: Callable[[Hop], bool] = lambda h: True
              ) -> dict[str, Hop | None]:
        """Stages reachable from ``start`` over allowed hops; each with the hop that got there."""
        seen: dict[str, Hop | None] = {start: None}
        queue = deque([start])
        while queue:
            stage = queue.popleft()
            for hop in self.out_hops(stage):
                if hop.dest not in seen and allow(hop):
                    seen[hop.dest] = hop
                    queue.append(hop.dest)
        return seen

    def route(self, parents: dict[str, Hop | None], stage: str) -> str:
        """``INIT -update-> READY -update-> CONFIRMED`` from a ``reach`` result."""
        parts = [stage]
        hop = parents.get(stage)
        while hop is not None:
            parts[:0] = [hop.source, f"-{hop.trigger}->"]
            hop = parents.get(hop.source)
        return " ".join(parts)

    @cached_property
    def reachable(self) -> dict[str, Hop | None]:
        return self.reach(self.flow.initial) if self.flow.initial in self.flow.stages else {}


def _condition(when: str | None) -> str | None:
    """The condition as compared for shadowing; None when it always holds."""
    if when is None:
        return None
    constant = reads(when, expression=True)
    if constant.is_constant and constant.constant:
        return None
    return " ".join(when.split())


def flow_models(service: s.ServiceSpec) -> dict[str, FlowModel]:
    return {name: FlowModel(name, flow, service) for name, flow in service.flows.items()
            if flow.initial in flow.stages}
