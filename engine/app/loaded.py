"""A valid app file -> ``LoadedApp``: its spec, where it is, and its local services compiled.

What ``load.py`` makes and ``checks.py`` checks (compiling the local flows into it); the
engine, the router model and the diagram read it. Kept apart from both so that checks.py
needs nothing of load.py, which runs the checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path as FilePath

from engine.app.spec import AppSpec
from engine.compiler.compiled import CompiledService
from engine.source import SourceMap

__all__ = ["LoadedApp"]


@dataclass(slots=True)
class LoadedApp:
    """A valid app file: its spec, where it is, and its local services compiled."""

    spec: AppSpec
    path: FilePath
    source: SourceMap
    flows: dict[str, CompiledService] = field(default_factory=dict)
