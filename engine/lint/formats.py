"""LintReport -> text, JSON, GitHub workflow annotations or SARIF 2.1.0.

Text is for people (source line and caret under each finding); ``github`` makes findings
show up on the pull request diff; SARIF feeds GitHub code scanning. Every format carries
the code, severity, ``file:line:col``, message and hint of each finding.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path as FilePath
from typing import Any

from engine.codes import CATALOGUE, CODES
from engine.errors import Finding
from engine.lint.run import LintReport

FORMATS = ("text", "json", "github", "sarif")
DOCS_URL = "https://github.com/flowctl/flowctl/blob/main/docs/lint.md"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def line(finding: Finding) -> str:
    """``file:line:col: message (hint) [severity CODE]`` — the form goldens hold."""
    return f"{finding.render()} [{finding.severity} {finding.code}]"


def findings_text(findings: Iterable[Finding]) -> Iterator[tuple[str, str | None]]:
    """(line, style) pairs: each finding with its source line and a caret."""
    for finding in findings:
        style = "red" if finding.severity == "error" else "yellow"
        yield line(finding), style
        for extra in finding.render(with_source=True).split("\n")[1:]:
            yield extra, None


def text(report: LintReport) -> Iterator[tuple[str, str | None]]:
    """``findings_text`` of every finding, then a summary line."""
    yield from findings_text(report.findings)
    bad = len({f.location.file for f in report.findings if f.severity == "error"})
    yield (f"{len(report.files)} file(s) checked, {bad} with errors; "
           f"{report.errors} error(s), {report.warnings} warning(s)"), "bold"


def as_json(report: LintReport) -> str:
    body = {"version": 1, "files": report.files,
            "summary": {"files": len(report.files), "errors": report.errors,
                        "warnings": report.warnings},
            "findings": [_plain(f) for f in report.findings]}
    return json.dumps(body, ensure_ascii=False, indent=2)


def _plain(f: Finding) -> dict[str, Any]:
    return {"file": f.location.file, "line": f.location.line, "column": f.location.column,
            "code": f.code, "severity": f.severity, "message": f.message, "hint": f.hint}


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(report: LintReport) -> Iterator[str]:
    """``::error file=...,line=...,col=...,title=FL012::message`` workflow commands."""
    for f in report.findings:
        message = f.message + (f" ({f.hint})" if f.hint else "")
        props = (f"file={_escape_property(f.location.file)},line={f.location.line},"
                 f"col={f.location.column},title={_escape_property(f.code)}")
        yield f"::{f.severity} {props}::{_escape_data(message)}"


def _uri(file: str) -> tuple[str, bool]:
    """A URI relative to the working directory when possible (code scanning wants that)."""
    path = FilePath(file)
    try:
        return path.resolve().relative_to(FilePath.cwd().resolve()).as_posix(), True
    except ValueError:
        return path.resolve().as_uri(), False


def sarif(report: LintReport, *, version: str = "0.1.0") -> str:
    """A SARIF 2.1.0 log with one run; every code is a rule, every finding a result."""
    index = {c.code: i for i, c in enumerate(CATALOGUE)}
    rules = [{"id": c.code, "name": c.title, "shortDescription": {"text": c.summary},
              "helpUri": f"{DOCS_URL}#{c.code.lower()}--{c.title}-{c.severity}",
              "defaultConfiguration": {"level": c.severity}} for c in CATALOGUE]
    results = [_result(f, index) for f in report.findings]
    run = {"tool": {"driver": {"name": "flowctl", "version": version,
                               "informationUri": DOCS_URL, "rules": rules}},
           "columnKind": "unicodeCodePoints",
           "originalUriBaseIds": {"SRCROOT": {"uri": FilePath.cwd().resolve().as_uri() + "/"}},
           "results": results}
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]},
                      ensure_ascii=False, indent=2)


def _result(f: Finding, index: dict[str, int]) -> dict[str, Any]:
    uri, relative = _uri(f.location.file)
    artifact: dict[str, Any] = {"uri": uri, **({"uriBaseId": "SRCROOT"} if relative else {})}
    region: dict[str, Any] = {"startLine": f.location.line, "startColumn": f.location.column}
    if f.source_line is not None:
        region["snippet"] = {"text": f.source_line}
    result: dict[str, Any] = {
        "ruleId": f.code, "level": f.severity,
        "message": {"text": f.message + (f" ({f.hint})" if f.hint else "")},
        "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": region}}]}
    if f.code in index:
        result["ruleIndex"] = index[f.code]
    return result


def render(report: LintReport, fmt: str) -> str:
    """Every format but ``text`` as one string (text is printed line by line, in colour)."""
    if fmt == "json":
        return as_json(report)
    if fmt == "github":
        return "\n".join(github(report))
    if fmt == "sarif":
        return sarif(report)
    return "\n".join(t for t, _ in text(report))


__all__ = ["CODES", "FORMATS", "as_json", "github", "line", "render", "sarif", "text"]
