"""Flow files -> every finding an author must act on: load, schema, compile and semantic
checks, each with a stable code, severity, ``file:line:col`` and a fix hint.

>>> from engine.lint import lint_paths
>>> report = lint_paths(["flows/"])      # doctest: +SKIP
>>> report.failed(strict=True)           # doctest: +SKIP
False

The checks and their codes are listed in ``engine.lint.codes`` and docs/lint.md.
"""

from engine.lint.codes import CATALOGUE, CODES, Code
from engine.lint.run import LintReport, lint_flow, lint_paths, lint_tests

__all__ = ["CATALOGUE", "CODES", "Code", "LintReport", "lint_flow", "lint_paths", "lint_tests"]
