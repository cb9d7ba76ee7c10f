"""Paths -> ``LintReport``: every finding of every flow file and conversation test file.

A flow file goes through load, schema, compile (all via ``recover.parse_file``) and then
every semantic check; its conversation tests (``*.test.yaml``) are checked against it in
the same task, so the flow is parsed once. Many files are linted in worker processes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path as FilePath

from engine.app.load import analyse_app, is_app_file
from engine.codes import UNUSABLE
from engine.compiler.checks import prompts
from engine.compiler.front import Parsed, analyse_file, parse_file
from engine.errors import Finding, FlowDefinitionError, SourceLocation, sorted_findings
from engine.testing.names import name_findings
from engine.testing.spec import EVAL_SUFFIX, TEST_SUFFIX, load_tests

PARALLEL_FROM = 200  # files; below this, worker start-up costs more than it saves (bench/lint.py)


@dataclass(slots=True)
class LintReport:
    files: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(f.severity == "error" for f in self.findings)

    @property
    def warnings(self) -> int:
        return sum(f.severity == "warning" for f in self.findings)

    @property
    def unusable(self) -> bool:
        return any(f.code in UNUSABLE for f in self.findings)

    def failed(self, *, strict: bool = False) -> bool:
        return bool(self.errors or (strict and self.warnings))


@dataclass(frozen=True, slots=True)
class Task:
    flow: FilePath | None
    tests: tuple[FilePath, ...] = ()


@dataclass(slots=True)
class TaskResult:
    files: list[str]
    findings: list[Finding]
    prompt_dirs: list[FilePath]


def is_test_file(path: FilePath) -> bool:
    return path.name.endswith(TEST_SUFFIX)


def discover(paths: Sequence[str | FilePath]) -> list[Task]:
    """One task per flow file (with its tests), one per test file whose flow is not linted."""
    unique = list(dict.fromkeys(f for raw in paths for f in _files(FilePath(raw))))
    flows = [p for p in unique if not is_test_file(p)]
    tests: dict[FilePath, list[FilePath]] = {p.resolve(): [] for p in flows}
    orphans = []
    for test in (p for p in unique if is_test_file(p)):
        target = _flow_of(test)
        if target is not None and target.resolve() in tests:
            tests[target.resolve()].append(test)
        else:
            orphans.append(test)
    return [Task(p, tuple(tests[p.resolve()])) for p in flows] + [Task(None, (t,))
                                                                   for t in orphans]


def _files(path: FilePath) -> list[FilePath]:
    """The YAML files under a directory (eval sets aside: ``flowctl eval`` checks those); a
    file and its conversation tests beside it."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()
                      and not p.name.endswith(EVAL_SUFFIX))
    sibling = path.with_name(path.name.removesuffix(path.suffix) + TEST_SUFFIX)
    return [path, sibling] if not is_test_file(path) and sibling.is_file() else [path]


def _flow_of(test: FilePath) -> FilePath | None:
    try:
        return load_tests(test)[2]
    except FlowDefinitionError:
        return None


def lint_paths(paths: Sequence[str | FilePath], *, jobs: int | None = None) -> LintReport:
    """Lint every flow and conversation test file under ``paths``."""
    tasks = discover(paths)
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if workers > 1 and len(tasks) >= PARALLEL_FROM:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(run_task, tasks, chunksize=max(1, len(tasks) // (4 * workers))))
    else:
        results = [run_task(task) for task in tasks]
    report = LintReport()
    for result in results:
        report.files += result.files
        report.findings += result.findings
    report.findings += prompts.unused(d for r in results for d in r.prompt_dirs)
    report.findings = sorted_findings(report.findings)
    return report


def run_task(task: Task) -> TaskResult:
    files, findings, dirs = [], [], []
    parsed: Parsed | None = None
    if task.flow is not None and is_app_file(task.flow):  # an app: engine/app checks it
        return TaskResult([str(task.flow)], analyse_app(task.flow, os.environ)[1], [])
    if task.flow is not None:
        files.append(str(task.flow))
        parsed, found = analyse_file(task.flow)
        findings += found
        dirs += prompts.prompt_dirs(task.flow.resolve().parent)
    for test in task.tests:
        files.append(str(test))
        findings += lint_tests(test, parsed)
    return TaskResult(files, findings, dirs)


def lint_tests(path: FilePath, parsed: Parsed | None = None) -> list[Finding]:
    """A conversation test file: valid, its flow exists, and every name it uses exists."""
    try:
        spec, source, flow_path = load_tests(path)
    except FlowDefinitionError as err:
        return list(err.findings)
    if parsed is None or FilePath(parsed.file).resolve() != flow_path.resolve():
        if not flow_path.is_file():
            where = ("flow",) if spec.flow else ()
            return [source.finding(where, f"flow file `{flow_path.name}` not found beside the "
                                   "test file", code="FL090",
                                   hint="name it with `flow: <file>.yaml`")]
        parsed = parse_file(flow_path)
    if parsed.spec is None:
        return []  # the flow's own findings say why; names cannot be checked against nothing
    return name_findings(spec, source, parsed.spec)


__all__ = ["LintReport", "SourceLocation", "discover", "lint_paths", "lint_tests"]
