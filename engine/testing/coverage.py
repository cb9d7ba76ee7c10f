"""Conversation runs -> per flow, which stages, transitions and slot branches (filled,
rejected, corrected) the tests exercised and which they did not, each with its line.

Recording: the runner runs a copy of the compiled service whose stage machines note each
transition that fires (``observe``), and after each turn notes what it exercised
(``note_turn``). Reporting (``coverage``, ``render``) compares that with what the flow
file declares.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.compiler.compiled import CompiledService
from engine.compiler.machine import Condition, Edge, StageMachine
from engine.dsl import load_service
from engine.dsl import spec as s
from engine.source import SourceMap
from engine.testing.results import ConversationResult

BRANCHES = ("filled", "rejected", "corrected")

Fired = tuple[str, int, str, str]
"""(flow, index in the flow's ``transitions``, source stage, destination stage)."""


def observe(service: CompiledService, log: list[Fired]) -> CompiledService:
    """A copy of ``service`` whose stage machines append each transition that fires to ``log``.

    The runtime is untouched: it fires the copy's machines as it would the originals.
    """
    flows = {name: dataclasses.replace(flow, machine=_noting(name, flow.machine, log))
             for name, flow in service.flows.items()}
    return dataclasses.replace(service, flows=flows)


def _noting(flow: str, machine: StageMachine, log: list[Fired]) -> StageMachine:
    """The same machine, built anew from its stages and edges, one edge per source stage,
    each edge's condition noting the edge when it holds. The machine tries a stage's edges in
    file order and fires the first whose condition holds, so what is noted is what fired."""
    edges = [Edge(edge.trigger, (source,), edge.dest,
                  _note_when_held((flow, index, source, edge.dest), edge.condition, log),
                  edge.when)
             for index, edge in enumerate(machine.edges) for source in edge.sources]
    return StageMachine(machine.stages, machine.initial, edges)


def _note_when_held(fired: Fired, condition: Condition | None, log: list[Fired]) -> Condition:
    def held(ctx: Mapping[str, Any]) -> bool:
        holds = condition is None or bool(condition(ctx))
        if holds:
            log.append(fired)
        return holds

    return held


def note_turn(result: ConversationResult, fired: Sequence[Fired], before: Mapping[str, Any],
              after: Mapping[str, Any], finished: Sequence[Mapping[str, Any]]) -> None:
    """Record what one turn exercised; ``finished`` are the tasks it completed (their slots
    count too: a task that ends in the turn that filled it leaves no slots behind)."""
    for name, index, source, dest in fired:
        result.transitions.add((name, index))
        result.visited.update({(name, source), (name, dest)})
    result.visited.add((str(after.get("flow")), str(after.get("stage"))))
    _note_slots(result, before, after, finished)


def _note_slots(result: ConversationResult, before: Mapping[str, Any],
                after: Mapping[str, Any], finished: Sequence[Mapping[str, Any]]) -> None:
    flow = str(after.get("flow"))
    errors = after.get("meta", {}).get("slot_errors") or {}
    result.slot_branches.update((flow, slot, "rejected") for slot in errors
                                if not slot.startswith("_"))
    old = before.get("slots", {}) if before.get("flow") == flow else {}
    for values in [*(task.get("slots") or {} for task in finished), after.get("slots") or {}]:
        result.slot_branches.update((flow, slot, branch)
                                    for slot, branch in _branches(old, values, errors))
        old = {}  # each finished task, then the one now open, started empty


def _branches(old: Mapping[str, Any], values: Mapping[str, Any],
              errors: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(slot, "filled" | "corrected") for each slot ``values`` holds that ``old`` did not."""
    for slot, value in values.items():
        if value is None or slot in errors:
            continue
        if old.get(slot) is None:
            yield slot, "filled"
        elif old[slot] != value:
            yield slot, "corrected"


@dataclass(frozen=True, slots=True)
class Item:
    kind: str  # "stage" | "transition" | "slot"
    label: str
    line: int
    covered: bool


@dataclass(slots=True)
class FlowCoverage:
    file: str
    flow: str
    items: list[Item] = field(default_factory=list)

    def count(self, kind: str) -> tuple[int, int]:
        mine = [i for i in self.items if i.kind == kind]
        return sum(i.covered for i in mine), len(mine)


def transition_label(t: s.TransitionSpec) -> str:
    sources = t.source if isinstance(t.source, str) else ",".join(t.source)
    return f"{sources} -{t.trigger}-> {t.dest}" + (f" [{' '.join(t.when.split())}]"
                                                  if t.when else "")


def coverage(results: Iterable[ConversationResult]) -> list[FlowCoverage]:
    """Coverage of every flow of every flow file the results ran against."""
    by_file: dict[str, list[ConversationResult]] = {}
    for result in results:
        by_file.setdefault(result.flow_file, []).append(result)
    out: list[FlowCoverage] = []
    for file, group in by_file.items():
        spec, source = load_service(file)
        out += [_flow(file, name, flow, spec, source, group) for name, flow in spec.flows.items()]
    return out


def _flow(file: str, name: str, flow: s.FlowSpec, spec: s.ServiceSpec, source: SourceMap,
          results: Sequence[ConversationResult]) -> FlowCoverage:
    return FlowCoverage(file, name, [*_stages(name, flow, source, results),
                                     *_transitions(name, flow, source, results),
                                     *_slots(name, flow, spec, source, results)])


def _stages(name: str, flow: s.FlowSpec, source: SourceMap,
            results: Sequence[ConversationResult]) -> list[Item]:
    visited = {stage for r in results for f, stage in r.visited if f == name}
    return [Item("stage", stage, source.locate(("flows", name, "stages", stage), key=True).line,
                 stage in visited) for stage in flow.stages]


def _transitions(name: str, flow: s.FlowSpec, source: SourceMap,
                 results: Sequence[ConversationResult]) -> list[Item]:
    fired = {i for r in results for f, i in r.transitions if f == name}
    return [Item("transition", transition_label(t),
                 source.locate(("flows", name, "transitions", i)).line, i in fired)
            for i, t in enumerate(flow.transitions)]


def _slots(name: str, flow: s.FlowSpec, spec: s.ServiceSpec, source: SourceMap,
           results: Sequence[ConversationResult]) -> list[Item]:
    branches = {(slot, b) for r in results for f, slot, b in r.slot_branches if f == name}
    return [Item("slot", f"{slot} {branch}", source.locate(("slots", slot), key=True).line,
                 (slot, branch) in branches)
            for slot in flow.slots if slot in spec.slots for branch in BRANCHES]


KINDS = ("stage", "transition", "slot")


@dataclass(frozen=True, slots=True)
class Totals:
    """Covered and declared items over every flow of a report, by kind and altogether."""

    counts: dict[str, tuple[int, int]]

    @classmethod
    def of(cls, report: Sequence[FlowCoverage]) -> Totals:
        pairs = [[flow.count(kind) for flow in report] for kind in KINDS]
        return cls({kind: (sum(a for a, _ in p), sum(b for _, b in p))
                    for kind, p in zip(KINDS, pairs, strict=True)})

    @property
    def covered(self) -> int:
        return sum(a for a, _ in self.counts.values())

    @property
    def total(self) -> int:
        return sum(b for _, b in self.counts.values())

    @property
    def percent(self) -> float:
        """Covered items of all items, in percent (100 when there is nothing to cover)."""
        return 100.0 * self.covered / self.total if self.total else 100.0

    def line(self) -> str:
        """``coverage total: stages 9/9, ... — 95.0% (19/20)``."""
        return (f"coverage total: {_counts(self.counts)} — {self.percent:.1f}% "
                f"({self.covered}/{self.total})")


def _counts(counts: Mapping[str, tuple[int, int]]) -> str:
    return ", ".join(f"{kind}s {a}/{b}" if kind != "slot" else f"slot branches {a}/{b}"
                     for kind, (a, b) in counts.items())


def render(report: Sequence[FlowCoverage], *, show_covered: bool = True) -> Iterator[str]:
    """A summary line per flow, then each item: ``file:line: kind label — covered|MISSED``;
    last, the totals over every flow."""
    for flow in report:
        counts = _counts({kind: flow.count(kind) for kind in KINDS})
        yield f"coverage of flow `{flow.flow}` ({Path(flow.file).name}): {counts}"
        for item in flow.items:
            if item.covered and not show_covered:
                continue
            mark = "covered" if item.covered else "MISSED"
            yield f"  {flow.file}:{item.line}: {item.kind} {item.label} — {mark}"
    yield Totals.of(report).line()
