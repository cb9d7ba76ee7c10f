"""(name, shape, directory) -> a new flow file, its conversation tests and its chat prompt.

The three shapes are the three ways a service usually starts: ``chat``
(plain chat, one agent), ``intent`` (intents routed to flows, a default chat flow) and
``slots`` (slot filling, confirmation, an irreversible action), each named after the
service: ``flowctl new booking --shape slots`` takes "booking" requests. Each passes
``flowctl lint --strict`` and ``flowctl test`` as generated. Nothing is ever overwritten.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from engine.dsl.schema import SCHEMA_PATH
from engine.precompiled import re_compile
from engine.schema_files import checkout

SHAPES = ("chat", "intent", "slots")
_NAME = re_compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ScaffoldError(Exception):
    """The scaffold cannot be written (bad name, or a file would be overwritten)."""


def _template(name: str) -> str:
    template = resources.files("engine.authoring").joinpath("templates", name)
    return template.read_text(encoding="utf-8")


def prompts_dir(directory: Path) -> Path:
    """The prompts/ directory the flow will use: the project's one above, else a new one."""
    above = directory.resolve().parent / "prompts"
    return above if above.is_dir() else directory / "prompts"


def _schemas(directory: Path) -> tuple[Path, dict[Path, str]]:
    """Where the modelines point: the checkout's schemas/ when there is one; else a copy of
    the installed schemas in ``directory``/schemas/, written with the flow, so the
    relative modelines work for whoever checks the project out (not a path into one
    machine's virtualenv)."""
    if checkout() is not None:
        return SCHEMA_PATH.parent, {}
    copies = directory / "schemas"
    return copies, {copies / name: (SCHEMA_PATH.parent / name).read_text(encoding="utf-8")
                    for name in ("flow.schema.json", "test.schema.json")
                    if (SCHEMA_PATH.parent / name).is_file()}


def _relative(target: Path, directory: Path) -> str:
    return Path(os.path.relpath(target.resolve(), directory.resolve())).as_posix()


def plan(name: str, shape: str, directory: Path) -> dict[Path, str]:
    """The files to write, with their text."""
    if not _NAME.match(name):
        raise ScaffoldError(f"`{name}` is not a valid service name; use letters, digits and _, "
                            "not starting with a digit")
    if shape not in SHAPES:
        raise ScaffoldError(f"unknown shape `{shape}`; expected one of {', '.join(SHAPES)}")
    schemas, copies = _schemas(directory)
    words = name.replace("_", " ").strip().lower() or name
    values = {"__NAME__": name, "__DIR__": directory.as_posix(),
              "__SCHEMA__": _relative(schemas / "flow.schema.json", directory),
              "__TEST_SCHEMA__": _relative(schemas / "test.schema.json", directory),
              "__WORDS__": words, "__TITLE__": words[:1].upper() + words[1:],
              "__ENV__": f"{name.upper().strip('_')}_URL"}

    def fill(text: str) -> str:
        for key, value in values.items():
            text = text.replace(key, value)
        return text

    return {directory / f"{name}.yaml": fill(_template(f"{shape}.yaml")),
            directory / f"{name}.test.yaml": fill(_template(f"{shape}.test.yaml")),
            prompts_dir(directory) / f"{name}.j2": fill(_template("prompt.j2")),
            **{path: text for path, text in copies.items() if not path.exists()}}


def scaffold(name: str, shape: str, directory: Path) -> list[Path]:
    """Write the files of ``plan``; refuse (writing nothing) if any of them exists."""
    files = plan(name, shape, directory)
    existing = [p for p in files if p.exists()]
    if existing:
        raise ScaffoldError(f"refusing to overwrite {', '.join(map(str, existing))}")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)
