"""Conversation test results -> per flow, which stages, transitions and slot branches
(filled, rejected, corrected) the tests exercised and which they did not, each with its
line in the flow file.

The test runner records what fired (``engine.testing``); this module only compares that
with what the flow file declares.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.dsl import load_service
from engine.dsl import spec as s
from engine.source import SourceMap
from engine.testing import ConversationResult

BRANCHES = ("filled", "rejected", "corrected")


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
    visited = {stage for r in results for f, stage in r.visited if f == name}
    fired = {i for r in results for f, i in r.transitions if f == name}
    branches = {(slot, b) for r in results for f, slot, b in r.slot_branches if f == name}
    path = ("flows", name)
    result = FlowCoverage(file, name)
    result.items += [Item("stage", stage, source.locate((*path, "stages", stage), key=True).line,
                          stage in visited) for stage in flow.stages]
    result.items += [Item("transition", transition_label(t),
                          source.locate((*path, "transitions", i)).line, i in fired)
                     for i, t in enumerate(flow.transitions)]
    result.items += [Item("slot", f"{slot} {branch}", source.locate(("slots", slot),
                                                                    key=True).line,
                          (slot, branch) in branches)
                     for slot in flow.slots if slot in spec.slots for branch in BRANCHES]
    return result


def render(report: Sequence[FlowCoverage], *, show_covered: bool = True) -> Iterator[str]:
    """A summary line per flow, then each item: ``file:line: kind label — covered|MISSED``."""
    for flow in report:
        counts = ", ".join(f"{kind}s {a}/{b}" if kind != "slot" else f"slot branches {a}/{b}"
                           for kind in ("stage", "transition", "slot")
                           for a, b in [flow.count(kind)])
        yield f"coverage of flow `{flow.flow}` ({Path(flow.file).name}): {counts}"
        for item in flow.items:
            if item.covered and not show_covered:
                continue
            mark = "covered" if item.covered else "MISSED"
            yield f"  {flow.file}:{item.line}: {item.kind} {item.label} — {mark}"
