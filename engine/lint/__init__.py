"""Flow files and their conversation tests -> a report of every finding, in any format.

Lint adds nothing the compiler does not check: each flow goes through the compiler's front
end (``engine.compiler.front.analyse_file``: load, schema, compile, semantic checks), which
also reports the warnings; lint adds the checks of ``*.test.yaml`` files and of prompt files
no flow uses, and renders the report as text, JSON, GitHub annotations or SARIF.

>>> from engine.lint import lint_paths
>>> report = lint_paths(["flows/"])      # doctest: +SKIP
>>> report.failed(strict=True)           # doctest: +SKIP
False

The codes are listed in ``engine.codes`` and docs/lint.md.
"""

from engine.codes import CATALOGUE, CODES, Code
from engine.lint.run import LintReport, lint_paths, lint_tests

__all__ = ["CATALOGUE", "CODES", "Code", "LintReport", "lint_paths", "lint_tests"]
