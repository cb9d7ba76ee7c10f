"""docs/contributing.md's checklists name the files a change touches: the files that handle
every step kind are exactly the ones "Adding a step kind" lists (a new kind touches those
and no others), and every file a checklist names exists."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from engine.compiler import compiled
from engine.dsl import spec

ROOT = Path(__file__).parent.parent
GUIDE = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = GUIDE.index(f"## {title}")
    end = GUIDE.find("\n## ", start + 1)
    return GUIDE[start:end if end != -1 else None]


def named_files(text: str) -> set[str]:
    """The repository files a checklist names (`engine/...py`, `docs/...md`, ...)."""
    return set(re.findall(r"`((?:engine|docs|tests|schemas)/[\w/.]+\.\w+)", text))


def naming(name: str) -> set[str]:
    """The engine's modules that name the class ``name``."""
    return {str(p.relative_to(ROOT)) for p in (ROOT / "engine").rglob("*.py")
            if re.search(rf"\b{name}\b", p.read_text(encoding="utf-8"))}


def handling_every(union: object) -> set[str]:
    """The engine's modules that name every member of a step union."""
    kinds = [k.__name__ for k in typing.get_args(union)]
    assert len(kinds) > 5
    return set.intersection(*(naming(kind) for kind in kinds))


def test_the_files_that_handle_every_step_kind_are_the_checklists() -> None:
    """A module that names every step kind (of the spec, or compiled) is a dispatch table a
    new kind must be added to; the checklist lists each, and no other module is one."""
    handling_all = handling_every(spec.Step) | handling_every(compiled.Step)
    listed = {f for f in named_files(section("Adding a step kind"))
              if f.startswith("engine/") and f.endswith(".py")}
    assert handling_all == listed, (
        "a module now handles every step kind (or no longer does): update the checklist "
        "in docs/contributing.md, 'Adding a step kind'")


@pytest.mark.parametrize("title", ["Adding a step kind", "Adding a finding code",
                                   "Adding a provider", "Adding a setting",
                                   "Adding a built-in text", "The turn's control flow",
                                   "What a transport needs of an engine"])
def test_every_file_a_checklist_names_exists(title: str) -> None:
    files = named_files(section(title))
    assert files, f"the section {title!r} names no file"
    missing = sorted(f for f in files if not (ROOT / f).exists())
    assert not missing, f"{title}: no such file {missing}"
