"""One conversation run -> ``ConversationResult``: its mismatches and what it exercised.

Plain records shared by the runner (which fills them), the coverage report and whoever
prints them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import SourceLocation


@dataclass(frozen=True, slots=True)
class Mismatch:
    turn: int
    user: str
    field: str
    expected: Any
    actual: Any
    location: SourceLocation


@dataclass(slots=True)
class ConversationResult:
    file: str
    name: str
    location: SourceLocation
    mismatches: list[Mismatch] = field(default_factory=list)
    stages: set[str] = field(default_factory=set)
    flow_file: str = ""
    """The flow file the conversation ran against (coverage groups results by it)."""
    visited: set[tuple[str, str]] = field(default_factory=set)
    """(flow, stage) pairs the conversation entered or left."""
    transitions: set[tuple[str, int]] = field(default_factory=set)
    """(flow, index in the flow's ``transitions``) of every transition that fired."""
    slot_branches: set[tuple[str, str, str]] = field(default_factory=set)
    """(flow, slot, "filled" | "rejected" | "corrected") the conversation exercised."""
    seconds: float = 0.0
    """How long the conversation took to run (for reports such as JUnit's)."""

    @property
    def passed(self) -> bool:
        return not self.mismatches
