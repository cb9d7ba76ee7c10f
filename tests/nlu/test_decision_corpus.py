"""The decision corpus (decision_corpus.yaml): replies typed at a transfer's confirmation,
written without looking at the word lists. None of the ``not_yes`` replies may confirm, at
any decision point of any shipped flow, nor with an author's extra words; every ``yes``
reply confirms wherever confirm words are read. A new phrasing is a new line in the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.app.kind import is_app_file
from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.nlu import YesNoWords, yes_no
from tests.conftest import ROOT

CORPUS = Path(__file__).with_name("decision_corpus.yaml")
FLOW_FILES = sorted(p for p in (ROOT / "flows").glob("*.yaml")
                    if not p.name.endswith((".test.yaml", ".eval.yaml")) and not is_app_file(p))
AUTHOR_WORDS = YesNoWords(confirm=("콜", "Let's go!", "보내줘", "진행시켜"), cancel=("됐어",),
                          deny=("별로", "싫은데"))
"""An author's own words, as a flow's ``words:`` adds them."""


@cache
def corpus() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
    return loaded


def replies(kind: str, *, restating: bool = False) -> list[tuple[str, str]]:
    """(category, message) for every reply of ``kind`` ("not_yes" or "yes"); the yes
    replies that repeat the task's values only with ``restating`` (only the engine, which
    knows the values, can read them)."""
    return [(category, message) for category, messages in corpus()[kind].items()
            if restating or category != "restating" for message in messages]


def verbs() -> YesNoWords:
    return YesNoWords(act=tuple(corpus()["flow_verbs"]))


def decision_points(service: CompiledService) -> Iterator[tuple[str, YesNoWords]]:
    """Every set of words a message is decided by: the service's, the resume question's,
    and each stage's own (a confirmation, a correction's question)."""
    yield "service", service.words
    yield "resume", service.patterns.resume
    for flow in service.flows.values():
        for stage in flow.stages.values():
            if stage.words is not None:
                yield f"{flow.name}.{stage.name}", stage.words


@cache
def shipped() -> list[tuple[str, YesNoWords]]:
    """Each decision point of each shipped flow, its words with the corpus's verbs added."""
    points = []
    for path in FLOW_FILES:
        for where, words in decision_points(compile_file(path)):
            points.append((f"{path.name}:{where}", words.merge(verbs())))
    return points


def test_the_corpus_is_large_and_has_no_reply_twice() -> None:
    no, yes = replies("not_yes"), replies("yes", restating=True)
    assert len(no) >= 300 and len(yes) >= 100
    messages = [m for _, m in no + yes]
    assert len(messages) == len(set(messages))


def test_no_shipped_decision_point_confirms_a_reply_that_is_not_a_yes() -> None:
    wrong = [(where, category, message) for where, words in shipped()
             for category, message in replies("not_yes")
             if yes_no(message, words) == "confirm"]
    assert wrong == []


def test_every_yes_confirms_at_every_shipped_confirmation() -> None:
    missed = [(where, category, message, yes_no(message, words))
              for where, words in shipped() if not where.endswith(":resume")
              for category, message in replies("yes") if yes_no(message, words) != "confirm"]
    assert missed == []


def test_the_transfer_flow_reads_its_own_verbs() -> None:
    """No verbs added: the transfer flow's READY has 보내/이체/송금 from its intents."""
    ready = compile_file(ROOT / "flows" / "transfer.yaml").flows["transfer"].stages["READY"]
    assert ready.words is not None
    assert [m for _, m in replies("yes") if yes_no(m, ready.words) != "confirm"] == []
    assert [m for _, m in replies("not_yes") if yes_no(m, ready.words) == "confirm"] == []


@pytest.mark.parametrize("kind", ["not_yes", "yes"])
def test_author_words_keep_the_rule(kind: str) -> None:
    words = next(w for where, w in shipped() if where == "transfer.yaml:service")
    words = words.merge(AUTHOR_WORDS)
    expect_confirm = kind == "yes"
    wrong = [m for _, m in replies(kind) if (yes_no(m, words) == "confirm") != expect_confirm]
    assert wrong == []
