"""The compiler: flow file -> CompiledService (``compile_file``), or every located finding.

``compile_file``, ``compile_service`` and ``prompt_candidates`` live in ``entry``; they are
imported from there when first used, so importing ``engine.compiler.compiled`` (what a
build is loaded into) does not import the front end: YAML, the schema, the checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.compiler.entry import compile_file, compile_service, prompt_candidates

__all__ = ["compile_file", "compile_service", "prompt_candidates"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from engine.compiler import entry

        return getattr(entry, name)
    raise AttributeError(f"module 'engine.compiler' has no attribute {name!r}")
