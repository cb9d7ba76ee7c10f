"""Check that every name a ServiceSpec uses exists; collect located findings with hints.

Also compiles each template and expression once to find syntax errors, variables the turn
context does not provide, and ``slots.x`` references to undeclared slots.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Set
from dataclasses import dataclass, field
from pathlib import Path as FilePath

from engine.compiler.templates import (
    CONTEXT_NAMES,
    Compiled,
    TemplateSyntaxError,
    compile_expression,
    compile_template,
    undeclared,
)
from engine.errors import Finding
from engine.precompiled import re_compile
from engine.registry import AGENT_RESULT_FIELDS, CONTEXT_FIELDS
from engine.source import Path, SourceMap

RUNTIME_TRIGGERS = ("update", "confirm", "cancel", "deny")


def suggest(word: str, options: Iterable[str]) -> str | None:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


@dataclass
class Resolver:
    """Collects findings while the compiler walks the spec."""

    source: SourceMap
    slot_names: frozenset[str]
    findings: list[Finding] = field(default_factory=list)
    agent_steps: frozenset[str] = frozenset()
    """Agent steps, whose results templates may read (``agents.<name>.status``)."""
    agent_outputs: frozenset[str] = frozenset()
    """Agents whose output fields templates may read too (``agents.<name>.<field>``)."""
    retrievals: frozenset[str] = frozenset()
    """Names of the hits of ``retrieve`` steps (``retrieved.<name>``)."""
    base: FilePath | None = None
    """The flow file's directory, where its validators are imported from."""

    def error(self, path: Path, message: str, code: str, *, hint: str | None = None,
              key: bool = False) -> None:
        self.findings.append(self.source.finding(path, message, code=code, hint=hint, key=key))

    def exists(self, name: str | None, options: Iterable[str], path: Path, what: str,
               code: str) -> bool:
        """Report ``name`` if it is not among ``options``; True when it is fine."""
        if name is None:
            return True
        pool = list(options)
        if name in pool:
            return True
        hint = suggest(name, pool) or (f"declare it under `{what}s`" if not pool else
                                       f"known: {', '.join(sorted(pool)[:8])}")
        self.error(path, f"unknown {what} `{name}`", code, hint=hint)
        return False

    def template(self, text: str, path: Path, extra: Iterable[str] = (), *,
                 only: Iterable[str] | None = None, why: str = "") -> Compiled | None:
        """Compile a template; ``only`` replaces the turn context as the names it may read."""
        return self._compile(text, path, compile_template, extra, only, why)

    def expression(self, text: str, path: Path, extra: Iterable[str] = (), *,
                   only: Iterable[str] | None = None, why: str = "") -> Compiled | None:
        return self._compile(text, path, compile_expression, extra, only, why)

    def _compile(self, text: str, path: Path, compiler, extra: Iterable[str],
                 only: Iterable[str] | None = None, why: str = "") -> Compiled | None:
        """Source -> its compiled form, each name it reads checked; None on a syntax error."""
        try:
            compiled = compiler(text)
        except TemplateSyntaxError as err:
            self._syntax_error(text, path, err, expression=compiler is compile_expression)
            return None
        allowed = set(only) if only is not None else CONTEXT_NAMES | set(extra)
        self._undefined(compiled, path, allowed, restricted=only is not None, why=why)
        for check in (self._fields, self._agents, self._agent_fields, self._retrieved,
                      self._slots):
            check(compiled, path, allowed)
        return compiled

    def _syntax_error(self, text: str, path: Path, err: TemplateSyntaxError, *,
                      expression: bool) -> None:
        """A template or expression jinja2 cannot parse -> FL030 (with a hint for {{ }})."""
        kind = "expression" if expression else "template"
        reason = _short(err.message)
        if expression:
            reason = reason.replace("end of template", "end of expression")
        braced = expression and text.strip().startswith("{{")
        self.error(path, f"{kind} syntax error: {reason}", "FL030",
                   hint="an expression is written without {{ }}: drop them, e.g. "
                        "`when: not missing`" if braced else None)

    def _undefined(self, compiled: Compiled, path: Path, allowed: Set[str], *,
                   restricted: bool, why: str) -> None:
        """Names read that ``allowed`` lacks -> FL031; ``restricted``: ``allowed`` replaces
        the turn context, and the hint says so (``why``)."""
        for name in undeclared(compiled.names, allowed):
            if restricted:
                names = ", ".join(f"`{n}`" for n in sorted(allowed))
                hint = ((why or "a message that replaces a built-in text sees ")
                        + (f"only {names}" if names else "no variables"))
            else:
                hint = suggest(name, allowed) or f"available: {', '.join(sorted(allowed))}"
            self.error(path, f"`{name}` is not defined here", "FL031", hint=hint)

    def _fields(self, compiled: Compiled, path: Path, allowed: Set[str]) -> None:
        """Fields read of fixed-shape values (``turn.intent``) they lack -> FL031."""
        for name, attr in sorted(compiled.field_refs):
            known = CONTEXT_FIELDS[name]
            if name in allowed and attr not in known:
                self.error(path, f"`{name}.{attr}` is not defined: `{name}` has "
                           + ", ".join(f"`{k}`" for k in known), "FL031",
                           hint=suggest(attr, known))

    def _agents(self, compiled: Compiled, path: Path, allowed: Set[str]) -> None:
        """``agents.<name>`` naming no agent step -> FL037."""
        for agent in sorted(compiled.agent_refs - self.agent_steps):
            if "agents" in allowed:
                self.error(path, f"`agents.{agent}` names no agent step", "FL037",
                           hint=suggest(agent, self.agent_steps))

    def _agent_fields(self, compiled: Compiled, path: Path, allowed: Set[str]) -> None:
        """``agents.<name>.<field>`` of an agent that keeps no output, beyond its result's
        own fields -> FL037."""
        for agent, name in sorted(compiled.agent_field_refs):
            if "agents" in allowed and agent in self.agent_steps - self.agent_outputs and \
                    name not in AGENT_RESULT_FIELDS:
                self.error(path, f"`agents.{agent}.{name}` is not part of its result: agent "
                           f"step `{agent}` keeps no output (no `json_output` with a model "
                           "that has an `output_schema`), only `status`, `reason` and "
                           "`missing`", "FL037")

    def _retrieved(self, compiled: Compiled, path: Path, allowed: Set[str]) -> None:
        """``retrieved.<name>`` naming no ``retrieve`` step's hits -> FL107."""
        for name in sorted(compiled.retrieved_refs - self.retrievals):
            if "retrieved" in allowed:
                self.error(path, f"`retrieved.{name}` names no `retrieve` step's hits",
                           "FL107", hint=suggest(name, self.retrievals)
                           or "add a `retrieve` step (its `as`, or its knowledge base's name)")

    def _slots(self, compiled: Compiled, path: Path, allowed: Set[str]) -> None:
        """``slots.<name>`` of an undeclared slot -> FL032 (wherever it is read)."""
        for slot in sorted(compiled.slot_refs):
            if slot not in self.slot_names:
                self.error(path, f"slot `{slot}` is not declared", "FL032",
                           hint=suggest(slot, self.slot_names))

    def regex(self, pattern: str, path: Path) -> re.Pattern[str] | None:
        try:
            return re_compile(pattern)
        except re.error as err:
            self.error(path, f"invalid regular expression: {err.msg} at position {err.pos}",
                       "FL033")
            return None


def _short(message: str | None) -> str:
    """jinja2's message without its closing 'The innermost block ...' explanation."""
    sentences = (message or "invalid syntax").strip().split(". ")
    return ". ".join(s for s in sentences[:2] if not s.startswith("The innermost")).rstrip(".")
