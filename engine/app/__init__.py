"""Apps: several services (local flow files, remote servers) behind one API.

An app file (``app:`` at the top, where a flow file has ``service:``) lists its services
and the keywords that route to each; ``engine_factory`` turns either kind of file into what
``flowctl serve`` runs, so ``flowctl serve bank.yaml`` and ``flowctl serve transfer.yaml``
both work. See docs/apps.md.

>>> from engine.app import is_app_file
>>> is_app_file("flows/bank.yaml"), is_app_file("flows/transfer.yaml")
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from engine.app.kind import is_app_file

if TYPE_CHECKING:
    from engine.app.loaded import LoadedApp
    from engine.config import Settings
    from engine.runtime.serving import TurnEngine
    from engine.store.base import SessionStore

EngineFactory = Callable[["SessionStore", "Settings"], "TurnEngine"]

__all__ = ["EngineFactory", "engine_factory", "is_app_file", "load_app"]


def load_app(path: str | Path, env: Mapping[str, str]) -> LoadedApp:
    """``engine.app.load.load_app``, imported when an app is loaded (serving a flow file
    never imports the app's models)."""
    from engine.app.load import load_app as load

    return load(path, env)


def engine_factory(path: str | Path, env: Mapping[str, str]) -> EngineFactory:
    """Compile the flow or app at ``path`` now (FlowDefinitionError when it is invalid);
    return what makes its engine once the store is open."""
    from engine.compiler import artefact

    service = artefact.prebuilt(Path(path), env)  # a build: no YAML read, nothing checked
    if service is None and is_app_file(path):
        from engine.app.engine import AppEngine

        loaded = load_app(path, env)
        return lambda store, settings: AppEngine(loaded, store=store, settings=settings)
    from engine.runtime.webhooks import hooked_engine

    if service is None:
        service = artefact.compile_kept(Path(path), env)
    # its hook handlers (`hooks:`) are delivered as an app's are
    return lambda store, settings: hooked_engine(service, store=store, settings=settings)
