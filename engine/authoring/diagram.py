"""A service's flows -> a Mermaid ``stateDiagram-v2`` (renders on GitHub) or Graphviz dot.

Each transition is drawn once per source stage (``*`` expanded), labelled with its trigger
and, in brackets, its guard. Terminal stages get an edge to ``[*]`` (a double border in
dot); ``decide: confirm`` stages are highlighted because only there can money move on.
Several flows become one composite state (one cluster in dot) each, with stage ids
prefixed by the flow so that two flows may both have an ``INIT``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from engine.compiler.checks.model import FlowModel
from engine.dsl import spec as s

# Mermaid 11 shows entity codes (#59;) in state diagram labels literally; every character a
# guard may hold renders as is except ";", which ends the statement: show a full-width one.
_MERMAID_ESCAPES = {";": "\uff1b"}


def _label(t: s.TransitionSpec) -> str:
    return t.trigger + (f" [{' '.join(t.when.split())}]" if t.when else "")


def _mermaid_text(text: str) -> str:
    return "".join(_MERMAID_ESCAPES.get(ch, ch) for ch in text)


def _edges(model: FlowModel) -> Iterator[tuple[str, str, str]]:
    for t in model.flow.transitions:
        if t.dest in model.flow.stages:
            for source, _ in model.sources(t):
                yield source, t.dest, _label(t)


def mermaid(service: s.ServiceSpec, flows: Sequence[str]) -> str:
    """The flows as one Mermaid state diagram."""
    lines = ["stateDiagram-v2", "    direction LR"]
    nested = len(flows) > 1
    for name in flows:
        model = FlowModel(name, service.flows[name], service)
        body = list(_mermaid_flow(model, prefix=f"{name}_" if nested else ""))
        if nested:
            lines += [f"    state \"{name}\" as {name} {{", *("    " + b for b in body), "    }"]
        else:
            lines += body
    lines += ["    classDef terminal stroke-width:3px,font-weight:bold",
              "    classDef confirm fill:#fff3c4,stroke:#b58900"]
    for cls, stages in (("terminal", _marked(service, flows, nested, terminal=True)),
                        ("confirm", _marked(service, flows, nested, terminal=False))):
        if stages:
            lines.append(f"    class {', '.join(stages)} {cls}")
    return "\n".join(lines) + "\n"


def _marked(service: s.ServiceSpec, flows: Sequence[str], nested: bool, *,
            terminal: bool) -> list[str]:
    return [f"{name}_{stage}" if nested else stage for name in flows
            for stage, spec in service.flows[name].stages.items()
            if (spec.terminal if terminal else spec.decide == "confirm")]


def _mermaid_flow(model: FlowModel, *, prefix: str) -> Iterator[str]:
    for stage in model.flow.stages:
        yield f"    state \"{stage}\" as {prefix}{stage}"
    yield f"    [*] --> {prefix}{model.flow.initial}"
    for source, dest, label in _edges(model):
        yield f"    {prefix}{source} --> {prefix}{dest}: {_mermaid_text(label)}"
    for stage in sorted(model.terminals, key=list(model.flow.stages).index):
        yield f"    {prefix}{stage} --> [*]"


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot(service: s.ServiceSpec, flows: Sequence[str]) -> str:
    """The flows as one Graphviz digraph, a cluster per flow."""
    lines = [f"digraph {_dot_id(service.service)} {{", "  rankdir=LR;",
             '  node [shape=box, style=rounded, fontname="Helvetica"];',
             '  edge [fontname="Helvetica", fontsize=10];']
    for name in flows:
        model = FlowModel(name, service.flows[name], service)
        lines += [f"  subgraph {_dot_id('cluster_' + name)} {{", f"    label={_dot_id(name)};"]
        lines += [f"    {_dot_id(name + '.' + stage)} [label={_dot_id(stage)}"
                  + (", peripheries=2" if spec.terminal else "")
                  + (', style="rounded,filled", fillcolor="#fff3c4"'
                     if spec.decide == "confirm" else "") + "];"
                  for stage, spec in model.flow.stages.items()]
        start = _dot_id(f"{name}.__start__")
        lines += [f"    {start} [shape=point, label=\"\"];",
                  f"    {start} -> {_dot_id(name + '.' + model.flow.initial)};"]
        lines += [f"    {_dot_id(name + '.' + a)} -> {_dot_id(name + '.' + b)} "
                  f"[label={_dot_id(label)}];" for a, b, label in _edges(model)]
        lines.append("  }")
    return "\n".join(lines + ["}"]) + "\n"
