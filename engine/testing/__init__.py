"""Conversation test files (``*.test.yaml`` beside a flow) -> results with readable mismatches.

Each conversation runs on a fresh in-memory store with a fixed clock, turn by turn, and
every expectation a turn states is compared with what the turn produced. The file format
is documented in docs/testing.md.

- ``spec``: the models of a test file; finding and loading test files
- ``names``: names a test uses that its flow does not define (FL091)
- ``runner``: running a test file's conversations against an ``Engine``
- ``compare``: a turn's expectations against what it produced
- ``coverage``: what the conversations exercised, and the ``--coverage`` report
- ``results``: ``ConversationResult`` and ``Mismatch``
- ``suite``: ``run_tests``, what ``flowctl test`` runs (flows and directories -> ``SuiteResult``)
- ``evaluate``, ``readings``, ``eval_report``: ``flowctl eval``'s eval sets, scoring, reports
"""

from engine.testing.compare import compare
from engine.testing.names import check_names, name_findings
from engine.testing.results import ConversationResult, Mismatch
from engine.testing.runner import run_file
from engine.testing.spec import (
    TEST_SUFFIX,
    ConversationSpec,
    TestFileSpec,
    TurnSpec,
    find_test_files,
    load_tests,
)
from engine.testing.suite import SuiteResult, run_tests

__all__ = ["TEST_SUFFIX", "ConversationResult", "ConversationSpec", "Mismatch", "SuiteResult",
           "TestFileSpec", "TurnSpec", "check_names", "compare", "find_test_files", "load_tests",
           "name_findings", "run_file", "run_tests"]
