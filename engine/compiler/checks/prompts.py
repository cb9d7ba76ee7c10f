"""Prompt files (``prompts/*.j2``) -> findings located in the prompt file itself.

The compiler checks prompts too (at ``prompts/x.j2:line:1``); lint reports the same
syntax errors and undefined names with exact columns instead, plus
FL069 (the prompt reads ``tools``/``intents`` the step or service does not provide) and
FL062 (a prompt file no flow that can see the directory uses).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path as FilePath
from typing import Any

import yaml

from engine.codes import severity
from engine.compiler.checks.context import Context
from engine.compiler.checks.reads import reads
from engine.compiler.resolve import _short, suggest  # the compiler's own wording
from engine.compiler.templates import CONTEXT_NAMES, TemplateSyntaxError, compile_template
from engine.dsl import spec as s
from engine.errors import Finding, SourceLocation

PROMPT_NAMES = CONTEXT_NAMES | {"message", "history", "instructions", "intents", "tools"}
RELOCATED = frozenset({"FL030", "FL031", "FL032"})
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def display(file: FilePath) -> str:
    """The path relative to the working directory when it is below it (as authors type it)."""
    try:
        return str(file.resolve().relative_to(FilePath.cwd().resolve()))
    except ValueError:
        return str(file)


def _finding(file: FilePath, lines: list[str], line: int, column: int, message: str,
             code: str, hint: str | None = None) -> Finding:
    text = lines[line - 1] if 0 < line <= len(lines) else None
    return Finding(SourceLocation(display(file), line, column), message, code, severity(code),
                   hint, text)


def _column(lines: list[str], line: int, word: str) -> int:
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    match = re.search(rf"\b{re.escape(word)}\b", text)
    return match.start() + 1 if match else 1


def check_file(file: FilePath, slots: Iterable[str]) -> list[Finding]:
    """Syntax errors, undefined names and undeclared slots of one prompt file."""
    text = file.read_text(encoding="utf-8")
    lines = text.splitlines()
    try:
        compile_template(text)
    except TemplateSyntaxError as err:
        return [_finding(file, lines, err.lineno or 1, 1,
                         f"template syntax error: {_short(err.message)}", "FL030")]
    found = reads(text)
    out = []
    for name, line in found.name_lines:
        if name not in PROMPT_NAMES:
            out.append(_finding(file, lines, line, _column(lines, line, name),
                                f"`{name}` is not defined here", "FL031",
                                suggest(name, PROMPT_NAMES) or
                                f"available: {', '.join(sorted(PROMPT_NAMES))}"))
    declared = set(slots)
    for slot in sorted(found.slots - declared):
        line = next((i + 1 for i, t in enumerate(lines) if re.search(
            rf"slots(\.{slot}\b|\[['\"]{slot}['\"]\])", t)), 1)
        out.append(_finding(file, lines, line, _column(lines, line, slot),
                            f"slot `{slot}` is not declared", "FL032",
                            suggest(slot, declared)))
    return out


def check(ctx: Context) -> list[Finding]:
    """Findings inside the prompt files the service's agent steps use, and FL069."""
    out: list[Finding] = []
    seen: set[FilePath] = set()
    for _, _, path, step in ctx.steps():
        if not isinstance(step, s.AgentStep):
            continue
        file = ctx.prompt_file(step.prompt)
        if file is None:
            continue
        if file not in seen:
            seen.add(file)
            out += check_file(file, ctx.spec.slots)
        names = reads(file.read_text(encoding="utf-8")).names
        if "tools" in names and not step.tools:
            ctx.add((*path, "prompt"), "FL069", f"prompt `{step.prompt}` reads `tools`, but "
                    f"agent step `{step.agent}` lists no tools", hint="add `tools: [...]` to "
                    "the step, or remove the tool instructions from the prompt")
        if "intents" in names and not ctx.spec.intents:
            ctx.add((*path, "prompt"), "FL069", f"prompt `{step.prompt}` reads `intents`, but "
                    "the service declares none", hint="declare `intents`, or remove them "
                    "from the prompt")
    return out


def relocated(ctx: Context, compile_findings: list[Finding], prompt_findings: list[Finding]
              ) -> list[Finding]:
    """Compiler findings without the prompt ones it could only place at the flow's 1:1, and
    without "prompt not found" for a prompt that exists but did not compile (the relocated
    syntax error says why)."""
    out = []
    for f in compile_findings:
        in_prompt = f.location.file.endswith(".j2")  # lint's own check has exact columns
        at_top = (f.location.line, f.location.column) == (1, 1)
        if f.code in RELOCATED and (in_prompt or at_top) and \
                any(p.code in RELOCATED for p in prompt_findings):
            continue
        name = f.message.split("`")[1] if f.code == "FL026" and "`" in f.message else None
        if name is not None and ctx.prompt_file(name) is not None:
            continue
        out.append(f)
    return out


# -- FL062: unused prompt files, per prompts/ directory ------------------------------------

def _looks_like_flow(path: FilePath) -> bool:
    if path.name.endswith(".test.yaml"):
        return False
    try:
        return any(line.startswith("service:") for line in
                   path.read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return False


def _users(prompts_dir: FilePath) -> list[FilePath]:
    """Flow files whose prompt lookup can land in ``prompts_dir`` (beside or one above)."""
    root = prompts_dir.parent
    candidates = [*root.glob("*.y*ml"), *root.glob("*/*.y*ml")]
    return sorted(p for p in candidates if _looks_like_flow(p))


def _prompt_names(data: Any) -> Iterable[str]:
    if isinstance(data, dict):
        if "agent" in data and isinstance(data.get("prompt"), str):
            yield data["prompt"]
        for value in data.values():
            yield from _prompt_names(value)
    elif isinstance(data, list):
        for value in data:
            yield from _prompt_names(value)


def unused(prompt_dirs: Iterable[FilePath]) -> list[Finding]:
    """A prompt file that no flow able to see its directory names in an agent step."""
    out = []
    for directory in sorted(set(prompt_dirs)):
        used: set[str] = set()
        try:
            for flow in _users(directory):
                used.update(_prompt_names(yaml.load(flow.read_text(encoding="utf-8"),
                                                    Loader=_LOADER)))
        except (yaml.YAMLError, OSError, UnicodeDecodeError):
            continue  # a broken neighbour: its own lint run says why; do not guess here
        for file in sorted(directory.glob("*.j2")):
            if file.stem not in used:
                lines = file.read_text(encoding="utf-8").splitlines()
                out.append(_finding(file, lines, 1, 1, f"prompt `{file.stem}` is not used by "
                                    "any agent step", "FL062",
                                    "name it in an agent step's `prompt`, or delete the file"))
    return out


def prompt_dirs(base_dir: FilePath) -> list[FilePath]:
    return [d for d in (base_dir / "prompts", base_dir.parent / "prompts") if d.is_dir()]
