"""Error families of flowctl, grouped by who must act.

- ``FlowDefinitionError``: the flow author must fix the YAML; it carries one or more
  located ``Finding``s and renders as ``file:line:col: message``.
- ``FlowRuntimeError``: the operator must act (bad store path, port in use, ...).
- ``ProviderError``: an upstream LLM or HTTP service failed; ``retryable`` says whether
  a retry may help and ``retry_after`` honours the server's hint.

Retry and hand-off signals are not errors and do not live here.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class SourceLocation:
    """A position in a flow file; line and column are 1-based, as editors show them."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Finding:
    """One located problem in a flow file: what was found, and how to fix it."""

    location: SourceLocation
    message: str
    code: str = "FL000"
    severity: Severity = "error"
    hint: str | None = None
    source_line: str | None = field(default=None, compare=False)

    def render(self, *, with_source: bool = False) -> str:
        text = f"{self.location}: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        if with_source and self.source_line is not None:
            before = self.source_line[: self.location.column - 1]
            caret = " " * sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1
                              for ch in before) + "^"
            text += f"\n    {self.source_line}\n    {caret}"
        return text


def sorted_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Findings in file order, each reported once."""
    unique = {(f.location, f.code, f.message): f for f in findings}
    return sorted(unique.values(), key=lambda f: (f.location.file, f.location.line,
                                                  f.location.column, f.code, f.message))


class FlowctlError(Exception):
    """Base of every error flowctl raises on purpose."""


class FlowDefinitionError(FlowctlError):
    """The flow file is wrong; the author must act. Holds every finding, sorted by position."""

    def __init__(self, findings: Iterable[Finding]) -> None:
        self.findings: tuple[Finding, ...] = tuple(
            sorted(findings, key=lambda f: (f.location.file, f.location.line, f.location.column))
        )
        super().__init__("\n".join(f.render() for f in self.findings))


class FlowRuntimeError(FlowctlError):
    """The environment is wrong (store, port, settings); the operator must act."""


class ProviderError(FlowctlError):
    """An upstream service (LLM provider, HTTP action) failed."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        kind: Literal["timeout", "rate_limit", "server", "client", "connection", "malformed"],
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.kind = kind
        self.retry_after = retry_after
        self.status = status

    @property
    def retryable(self) -> bool:
        return self.kind in ("timeout", "rate_limit", "server", "connection")
