"""An app -> a diagram of its services and the keywords that route to each (Mermaid or dot).

A message enters on the left; each service is a box (a local flow file), a subroutine box
(a remote server) or a hexagon (an A2A agent), its edge labelled with its keywords; the
default service's edge is dashed.
"""

from __future__ import annotations

from engine.app.checks import service_keywords
from engine.app.loaded import LoadedApp

__all__ = ["dot", "mermaid"]


def _where(app: LoadedApp, name: str) -> tuple[str, str]:
    """(kind, where) of service ``name``: flow file, remote URL or A2A URL."""
    spec = app.spec.services[name]
    if spec.flow is not None:
        return "flow", spec.flow
    return ("remote", spec.remote) if spec.remote else ("a2a", spec.a2a or "")


def _label(words: list[str]) -> str:
    return ", ".join(words).replace('"', "'") or "-"


def mermaid(app: LoadedApp) -> str:
    """A Mermaid flowchart of ``app`` (renders on GitHub)."""
    shapes = {"flow": ('["', '"]'), "remote": ('[["', '"]]'), "a2a": ('{{"', '"}}')}
    lines = ["flowchart LR", '  message(["message"])']
    for name in app.spec.services:
        kind, where = _where(app, name)
        left, right = shapes[kind]
        lines.append(f"  {name}{left}{name}<br/>{kind}: {where}{right}")
    for name in app.spec.services:
        words = service_keywords(app, name)
        if words:
            lines.append(f'  message -->|"{_label(words)}"| {name}')
    lines.append(f'  message -.->|"default"| {app.spec.default}')
    return "\n".join(lines) + "\n"


def dot(app: LoadedApp) -> str:
    """The same as a Graphviz digraph."""
    shapes = {"flow": "box", "remote": "box3d", "a2a": "hexagon"}
    lines = [f'digraph "{app.spec.app}" {{', "  rankdir=LR;",
             '  message [shape=oval];']
    for name in app.spec.services:
        kind, where = _where(app, name)
        lines.append(f'  {name} [shape={shapes[kind]}, label="{name}\\n{kind}: {where}"];')
    for name in app.spec.services:
        words = service_keywords(app, name)
        if words:
            lines.append(f'  message -> {name} [label="{_label(words)}"];')
    lines.append(f'  message -> {app.spec.default} [label="default", style=dashed];')
    return "\n".join(lines) + "\n}\n"
