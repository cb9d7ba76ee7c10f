"""Conversation results -> what `flowctl test` hands to other tools: the ``-k`` selection,
a JUnit XML report (``--junit``, for CI test tabs) and one JSON document (``--json``).

>>> pick = Selection(["batch", "CANCEL"])
>>> [pick(n) for n in ("5 batch: two tasks", "1b cancel at READY", "2 missing amount")]
[True, True, False]
>>> pick.deselected
1
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.testing.coverage import FlowCoverage, Totals
from engine.testing.results import ConversationResult, Mismatch

__all__ = ["Selection", "json_report", "junit_xml"]


@dataclass(slots=True)
class Selection:
    """Which conversations run: those whose name contains any of ``patterns`` (ignoring
    case); all when there are none. Counts the ones it leaves out."""

    patterns: Sequence[str]
    deselected: int = 0

    def __call__(self, name: str) -> bool:
        chosen = not self.patterns or any(p.casefold() in name.casefold() for p in self.patterns)
        self.deselected += not chosen
        return chosen


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _failure_text(mismatches: Sequence[Mismatch]) -> str:
    return "\n".join(f"{m.location} turn {m.turn} {m.user} — {m.field}\n"
                     f"  - expected: {_shown(m.expected)}\n  + actual:   {_shown(m.actual)}"
                     for m in mismatches)


def junit_xml(results: Sequence[ConversationResult]) -> str:
    """A JUnit XML document: a ``testsuite`` per test file, a ``testcase`` per conversation,
    a ``failure`` (its message the first mismatch, its text every one) for each failed."""
    suites = ET.Element("testsuites", name="flowctl test")
    by_file: dict[str, list[ConversationResult]] = {}
    for result in results:
        by_file.setdefault(result.file, []).append(result)
    for file, group in by_file.items():
        suite = ET.SubElement(suites, "testsuite", name=file, tests=str(len(group)),
                              failures=str(sum(not r.passed for r in group)), errors="0",
                              skipped="0", time=f"{sum(r.seconds for r in group):.3f}")
        for result in group:
            case = ET.SubElement(suite, "testcase", classname=file, name=result.name,
                                 file=file, line=str(result.location.line),
                                 time=f"{result.seconds:.3f}")
            if not result.passed:
                first = result.mismatches[0]
                failure = ET.SubElement(case, "failure", type="mismatch", message=(
                    f"turn {first.turn} {first.user} — {first.field}: expected "
                    f"{_shown(first.expected)}, got {_shown(first.actual)}"))
                failure.text = _failure_text(result.mismatches)
    for key in ("tests", "failures", "errors", "skipped"):
        suites.set(key, str(sum(int(s.get(key, "0")) for s in suites)))
    suites.set("time", f"{sum(float(s.get('time', '0')) for s in suites):.3f}")
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def json_report(results: Sequence[ConversationResult], *, deselected: int = 0,
                coverage: Sequence[FlowCoverage] | None = None) -> dict[str, Any]:
    """Everything `flowctl test` would print, as one JSON-ready document."""
    document: dict[str, Any] = {
        "passed": sum(r.passed for r in results),
        "failed": sum(not r.passed for r in results),
        "deselected": deselected,
        "conversations": [_conversation(r) for r in results],
    }
    if coverage is not None:
        totals = Totals.of(coverage)
        document["coverage"] = {
            "percent": round(totals.percent, 2), "covered": totals.covered,
            "total": totals.total,
            "flows": [{"file": f.file, "flow": f.flow,
                       "items": [{"kind": i.kind, "label": i.label, "line": i.line,
                                  "covered": i.covered} for i in f.items]}
                      for f in coverage]}
    return document


def _conversation(result: ConversationResult) -> dict[str, Any]:
    return {"file": result.file, "name": result.name, "location": str(result.location),
            "passed": result.passed, "seconds": round(result.seconds, 4),
            "mismatches": [{"turn": m.turn, "user": m.user, "field": m.field,
                            "expected": m.expected, "actual": m.actual,
                            "location": str(m.location)} for m in result.mismatches]}
