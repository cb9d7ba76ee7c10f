"""Where the flow and app JSON Schemas live: the checkout's schemas/, else the installed copy.

The checked-in files are ``schemas/flow.schema.json`` and ``schemas/app.schema.json`` at the
top of a checkout. A wheel or ``pip install .`` carries the same files as ``engine/schemas/``
(copied there by the build step in engine/build_hooks.py), so an install without a
checkout still has a stable file for editors' ``$schema`` modelines and for
``flowctl schema --check``.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_TOP = _PACKAGE.parent


def checkout() -> Path | None:
    """The top of the source checkout the engine runs from, or None in an install."""
    if (_TOP / "pyproject.toml").is_file() and (_TOP / "schemas").is_dir():
        return _TOP
    return None


def schema_path(name: str) -> Path:
    """The schema file ``name`` (e.g. ``flow.schema.json``): checkout copy, else packaged copy."""
    top = checkout()
    return top / "schemas" / name if top is not None else _PACKAGE / "schemas" / name
