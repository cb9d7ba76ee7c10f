"""Flow file -> validated ``ServiceSpec`` plus its ``SourceMap``, or a located error.

``load_service``, ``load_service_text`` and ``parse`` live in ``entry`` and are imported
from there when first used: importing ``engine.dsl.spec`` (what a compiled flow holds) does
not import YAML or the schema.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.dsl.entry import ServiceSpec, load_service, load_service_text, parse

__all__ = ["ServiceSpec", "load_service", "load_service_text", "parse"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from engine.dsl import entry

        return getattr(entry, name)
    raise AttributeError(f"module 'engine.dsl' has no attribute {name!r}")
