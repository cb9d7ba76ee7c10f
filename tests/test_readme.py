"""The README keeps up with the CLI: its two set-up commands and every command exist."""

from __future__ import annotations

from cli import app
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_has_the_two_setup_commands() -> None:
    assert "python3 -m pip install -e . && flowctl serve flows/transfer.yaml" in README
    assert "bash .ci/run" in README


def test_readme_documents_every_command() -> None:
    missing = [name for name in app.commands if f"`flowctl {name}" not in README]
    assert not missing, f"README does not document: {missing}"


def test_ci_runs_what_the_readme_says() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pytest" in ci and "flowctl test flows/" in ci and "flowctl lint" in ci
