"""Every broken flow in tests/broken_flows/ fails to compile with exactly its golden findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.errors import FlowDefinitionError
from engine.lint import lint_paths

CORPUS = Path(__file__).parent / "broken_flows"
CASES = sorted(CORPUS.glob("*.yaml"))


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_broken_flow_reports_golden_findings(path: Path) -> None:
    with pytest.raises(FlowDefinitionError) as caught:
        compile_file(path)
    rendered = "\n".join(f.render().replace(f"{path.parent}/", "") for f in caught.value.findings)
    assert rendered + "\n" == path.with_suffix(".expected").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_findings_carry_the_source_line(path: Path) -> None:
    with pytest.raises(FlowDefinitionError) as caught:
        compile_file(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    for finding in caught.value.findings:
        assert 1 <= finding.location.line <= max(1, len(lines))
        if lines:
            assert finding.source_line == lines[finding.location.line - 1]


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_compile_refuses_with_exactly_what_lint_reports(path: Path) -> None:
    with pytest.raises(FlowDefinitionError) as caught:
        compile_file(path)
    assert list(caught.value.findings) == lint_paths([path]).findings
