"""docs/server.md's "Long runs" shows tests/docs_examples/flows/report.yaml as it is, and
that flow compiles clean (the walkthrough in tests/server/test_server_docs.py serves it)."""

from __future__ import annotations

import re

from cli import main
from tests.conftest import ROOT

REPORT = ROOT / "tests" / "docs_examples" / "flows" / "report.yaml"


def test_the_long_runs_example_is_the_file_and_lints_clean() -> None:
    page = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    section = page.split("## Long runs", 1)[1].split("\n## ", 1)[0]
    shown = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert shown is not None
    assert shown[1] == REPORT.read_text(encoding="utf-8")
    assert main(["lint", "--strict", str(REPORT)]) == 0
