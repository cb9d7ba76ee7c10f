"""A path or loaded data -> whether it is an app file (``app:``) or a flow file (``service:``).

Kept apart from ``load.py`` so that serving a flow file never imports the app's models.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.errors import FlowDefinitionError

__all__ = ["is_app_data", "is_app_file"]


def is_app_data(data: Any) -> bool:
    """An app file has a top-level `app:` (a flow file has `service:`)."""
    return isinstance(data, dict) and "app" in data and "service" not in data


def is_app_file(path: str | Path) -> bool:
    """Whether ``path`` holds an app (False for a flow file, and for one that cannot be read:
    the flow loader then says why)."""
    from engine.dsl.load import load_file  # YAML: not imported by a server started from a build

    try:
        data, _ = load_file(path)
    except FlowDefinitionError:
        return False
    return is_app_data(data)
