"""Flows, directories and test files -> ``SuiteResult``: what ``flowctl test`` ran and found.

``run_tests`` refuses a flow named directly when it does not compile (tests or not), finds
the ``*.test.yaml`` files, runs the conversations ``-k`` selects file by file (handing each
file's results to ``on_file`` as soon as it is done), and measures coverage when asked
(``--coverage``, or ``--fail-under``, which implies it). The caller renders the result.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.compiler import compile_file
from engine.testing.coverage import FlowCoverage, Totals, coverage, render
from engine.testing.report import Selection, json_report
from engine.testing.results import ConversationResult
from engine.testing.runner import run_file
from engine.testing.spec import TEST_SUFFIX, find_test_files

__all__ = ["SuiteResult", "run_tests"]


@dataclass(frozen=True, slots=True)
class SuiteResult:
    """The test files found, the conversations run, those ``-k`` left out, and the coverage
    report when one was asked for."""

    paths: Sequence[str]
    patterns: Sequence[str]
    files: list[Path]
    results: list[ConversationResult]
    deselected: int = 0
    coverage: list[FlowCoverage] | None = None
    fail_under: float | None = None

    @property
    def unusable(self) -> str | None:
        """Why nothing ran (no test file, or ``-k`` chose no conversation), else None."""
        if not self.files:
            return f"no {TEST_SUFFIX} files found in {', '.join(self.paths)}"
        if not self.results:
            return f"no conversation's name contains {' or '.join(map(repr, self.patterns))}"
        return None

    @property
    def total(self) -> float:
        """The total coverage as shown (one decimal: a total shown as 96.2% passes
        ``--fail-under 96.2``); 100 without a coverage report."""
        return round(Totals.of(self.coverage).percent, 1) if self.coverage is not None else 100.0

    @property
    def under(self) -> bool:
        """Whether the total coverage is under ``--fail-under``."""
        return self.fail_under is not None and self.total < self.fail_under

    @property
    def failed(self) -> bool:
        """A conversation failed, or the coverage is under ``--fail-under``."""
        return any(not r.passed for r in self.results) or self.under

    def json(self) -> str:
        """Everything ``flowctl test`` would print, as one JSON document (``--json``)."""
        return json.dumps(json_report(self.results, deselected=self.deselected,
                                      coverage=self.coverage), ensure_ascii=False, indent=2)

    def coverage_lines(self) -> Sequence[str]:
        """The coverage report's lines (none without one)."""
        return list(render(self.coverage)) if self.coverage is not None else []


def run_tests(paths: Sequence[str], *, patterns: Sequence[str] = (), with_coverage: bool = False,
              fail_under: float | None = None,
              on_file: Callable[[list[ConversationResult]], object] | None = None
              ) -> SuiteResult:
    """Flows, directories and test files -> what their conversation tests did; raises
    FlowDefinitionError for a flow (named, or tested) that does not compile."""
    for named in paths:  # a flow named directly is refused when invalid, tests or not
        if Path(named).is_file() and not named.endswith(TEST_SUFFIX):
            compile_file(named)
    files = find_test_files(paths)
    selection = Selection(patterns)
    results: list[ConversationResult] = []
    for path in files:
        found = asyncio.run(run_file(path, select=selection))
        results += found
        if on_file is not None:
            on_file(found)
    measured = with_coverage or fail_under is not None
    report = coverage(results) if measured and results else None
    return SuiteResult(paths, patterns, files, results, selection.deselected, report,
                       fail_under)
