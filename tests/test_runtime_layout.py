"""The runtime's folders are layers: a module imports only its own folder's modules and the
folders below its own (docs/architecture.md, "One turn"); the modules at the runtime's top
(the engine, the turn's run, serving, webhooks) are imported by no folder."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RUNTIME = Path(__file__).parent.parent / "engine" / "runtime"
RANK = {"values": 0, "understanding": 1, "calls": 2, "turn": 3, "steps": 4, "conversation": 4}
TOP = 5


def place(module: str) -> tuple[str, int]:
    """(folder, rank) of ``engine.runtime.<module>``; a top module is its own folder."""
    first = module.split(".")[0]
    return (first, RANK[first]) if first in RANK else (first, TOP)


def runtime_imports(path: Path) -> set[str]:
    """The ``engine.runtime`` modules ``path`` imports (TYPE_CHECKING imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("engine.runtime."):
            found.add(node.module.removeprefix("engine.runtime."))
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("engine.runtime.") for a in node.names
                      if a.name.startswith("engine.runtime.")}
    return found


MODULES = sorted(p for p in RUNTIME.rglob("*.py") if p.name != "__init__.py")


def test_every_runtime_module_is_in_a_known_folder_or_at_the_top() -> None:
    folders = {p.parent.name for p in MODULES if p.parent != RUNTIME}
    assert folders == set(RANK)
    assert {p.stem for p in MODULES if p.parent == RUNTIME} == {
        "engine", "turn_run", "serving", "webhooks"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(RUNTIME)))
def test_a_module_imports_only_its_folder_and_those_below(path: Path) -> None:
    here = path.relative_to(RUNTIME).with_suffix("").as_posix().replace("/", ".")
    folder, rank = place(here)
    wrong = [m for m in runtime_imports(path)
             if place(m)[1] > rank or (place(m)[1] == rank and place(m)[0] != folder
                                       and rank != TOP)]
    assert not wrong, f"{here} imports {wrong}: a folder above its own, or beside it"
