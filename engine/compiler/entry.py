"""Flow file -> CompiledService, or every located finding: the one front end of flowctl.

(``engine.compiler`` gives these names without importing the front end until they are used:
a server started from a build never imports it.)

``compile_file`` is what ``serve``, ``chat`` and ``test`` call, and what ``lint`` reports
from: load, schema, names, templates, graph safety, data flow and values are all checked
here, so a flow that lint calls wrong never runs. ``build.py`` turns a parsed spec into the
compiled form; ``checks/`` are the semantic checks; ``front.py`` ties them together.
"""

from __future__ import annotations

from pathlib import Path as FilePath

from engine.compiler import compiled as c
from engine.compiler.build import build_service
from engine.compiler.checks import prompts, run_checks
from engine.compiler.checks.context import Context
from engine.compiler.front import analyse_file
from engine.compiler.prompt_files import prompt_candidates
from engine.dsl import spec as s
from engine.errors import FlowDefinitionError
from engine.source import SourceMap


def compile_file(path: str | FilePath) -> c.CompiledService:
    """Load, check and compile a flow file; raise FlowDefinitionError with every finding
    (warnings included, as lint shows them) when any of them is an error."""
    parsed, findings = analyse_file(FilePath(path))
    if parsed.compiled is None or any(f.severity == "error" for f in findings):
        raise FlowDefinitionError(findings)
    return parsed.compiled


def compile_service(spec: s.ServiceSpec, source: SourceMap, *,
                    base_dir: FilePath | None = None) -> c.CompiledService:
    """Compile an already parsed spec with the same checks as ``compile_file``."""
    compiled = build_service(spec, source, base_dir=base_dir)
    ctx = Context(spec, source, compiled.base_dir)
    run_checks(ctx)
    findings = [*ctx.findings, *prompts.check(ctx)]
    if any(f.severity == "error" for f in findings):
        raise FlowDefinitionError(findings)
    return compiled


__all__ = ["compile_file", "compile_service", "prompt_candidates"]
