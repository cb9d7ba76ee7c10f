"""Prompt files -> compiled templates: the files agent steps, `understand.prompt` and
`memory.summary_prompt` name, looked up in prompts/ beside or above the flow file, each
checked for the names it may read (FL026, FL030–FL032, located in the prompt file)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path as FilePath

from engine.compiler.resolve import Resolver, suggest
from engine.compiler.templates import (
    CONTEXT_NAMES,
    Compiled,
    TemplateSyntaxError,
    base_context,
    compile_template,
    undeclared,
)
from engine.dsl import spec as s
from engine.errors import Finding, SourceLocation
from engine.registry import AGENT_PROMPT_NAMES, SUMMARY_PROMPT_NAMES, UNDERSTAND_PROMPT_NAMES
from engine.source import Path, SourceMap

__all__ = ["compile_prompts", "prompt_candidates"]

# what a prompt may read: an agent's sees the turn context, the understanding prompt does not
AGENT_PROMPT = CONTEXT_NAMES | frozenset(AGENT_PROMPT_NAMES)
UNDERSTAND_PROMPT = frozenset(base_context()) | frozenset(UNDERSTAND_PROMPT_NAMES)
SUMMARY_PROMPT = frozenset(base_context()) | frozenset(SUMMARY_PROMPT_NAMES)


def compile_prompts(spec: s.ServiceSpec, base: FilePath, r: Resolver) -> dict[str, Compiled | None]:
    """Prompt files named by agent steps (and `understand.prompt`), looked up in prompts/
    beside or above the flow. A file that fails to compile maps to None; a missing one is
    absent (reported where it is named)."""
    names = {step.prompt: AGENT_PROMPT for _, step in _agent_steps(spec)}
    for prompt, path, allowed in ((spec.understand.prompt, ("understand", "prompt"),
                                   UNDERSTAND_PROMPT),
                                  (spec.memory.summary_prompt, ("memory", "summary_prompt"),
                                   SUMMARY_PROMPT)):
        if prompt:
            _named_prompt(prompt, path, allowed, names, base, r)
    out: dict[str, Compiled | None] = {}
    for name in sorted(names):
        found = next((p for p in prompt_candidates(base, name) if p.is_file()), None)
        if found is not None:
            out[name] = _prompt(found, names[name], r)
    return out


def _named_prompt(prompt: str, path: Path, allowed: frozenset[str],
                  names: dict[str, frozenset[str]], base: FilePath, r: Resolver) -> None:
    """A prompt named outside the steps: it may read only ``allowed`` (and what every other
    use of the same file may read); a missing file is FL026 at ``path``."""
    names[prompt] = allowed & names[prompt] if prompt in names else allowed
    if not any(p.is_file() for p in prompt_candidates(base, prompt)):
        r.error(path, f"prompt `{prompt}` not found", "FL026",
                hint=f"create prompts/{prompt}.j2 beside or above the flow file")


def _prompt(path: FilePath, allowed: frozenset[str], r: Resolver) -> Compiled | None:
    """Compile one prompt file; its problems are located in that file."""
    text = path.read_text(encoding="utf-8")
    source = SourceMap(str(path), text.splitlines())
    try:
        compiled = compile_template(text)
    except TemplateSyntaxError as err:
        line = err.lineno or 1
        r.findings.append(Finding(SourceLocation(str(path), line, 1),
                                  f"template syntax error: {err.message}", "FL030",
                                  source_line=source.line(line)))
        return None
    for name in undeclared(compiled.names, allowed):
        line = _first_line(text, name)
        r.findings.append(Finding(SourceLocation(str(path), line, 1),
                                  f"`{name}` is not defined in a prompt", "FL031",
                                  hint=suggest(name, allowed), source_line=source.line(line)))
    for slot in sorted(compiled.slot_refs - r.slot_names):
        line = _first_line(text, slot)
        r.findings.append(Finding(SourceLocation(str(path), line, 1),
                                  f"slot `{slot}` is not declared", "FL032",
                                  hint=suggest(slot, r.slot_names),
                                  source_line=source.line(line)))
    return compiled


def _first_line(text: str, word: str) -> int:
    return next((i for i, line in enumerate(text.splitlines(), 1) if word in line), 1)



def prompt_candidates(base: FilePath, name: str) -> list[FilePath]:
    return [base / "prompts" / f"{name}.j2", base.parent / "prompts" / f"{name}.j2"]


def _agent_steps(spec: s.ServiceSpec) -> Iterable[tuple[Path, s.AgentStep]]:
    for _, _, path, step in s.service_steps(spec):
        if isinstance(step, s.AgentStep):
            yield path, step
