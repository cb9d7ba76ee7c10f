"""`flowctl eval`: eval files read against their flow, scored, reported and gated.

A tiny flow with a made-up eval set: a case the rules read right, one they leave to the
model, and (in the failing file) one they settle wrong, so each figure and gate is seen.
"""

from __future__ import annotations

import doctest
import json
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest

from cli import main
from engine.testing import readings
from tests.conftest import ROOT

CASES = """\
flow: transfer.yaml
cases:
  - message: "이모한테 4만원 보내줘"
    tag: start_request
    expect: {intent: transfer, slots: {target: 이모, amount: 40000}}
  - after: ["이모한테 보내줘"]
    message: "오늘 날씨 어때?"
    tag: question_mid_flow
    expect: {slots: {}, settled: false}
  - after: ["이모한테 4만원 보내줘"]
    message: "확인 전에 수수료는?"
    tag: question_at_confirmation
    expect: {decision: none}
"""
WRONG = """
  - after: ["이모한테 보내줘"]
    message: "4만원"
    tag: mislabelled
    expect: {slots: {amount: 50000}}
"""


@pytest.fixture
def flows(tmp_path: Path) -> Path:
    """flows/ and prompts/ side by side, as in a project (never in the shared temp root)."""
    flows = tmp_path / "flows"
    flows.mkdir()
    shutil.copy(ROOT / "flows" / "transfer.yaml", flows / "transfer.yaml")
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")
    (flows / "transfer.eval.yaml").write_text(CASES, encoding="utf-8")
    return flows


def test_a_flow_that_reads_its_cases_right_passes(flows: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(flows / "transfer.yaml")]) == 0
    out = capsys.readouterr().out
    assert "read right          3/3  100.0 %" in out
    assert "wrong settlements   0 (harmful 0)" in out
    assert "settled by rules    33.3 %" in out  # both questions went to the (probe) model


def test_a_wrong_settlement_fails_with_its_location(flows: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (flows / "transfer.eval.yaml").write_text(CASES + WRONG, encoding="utf-8")
    assert main(["eval", str(flows)]) == 1
    out = capsys.readouterr().out
    assert "transfer.eval.yaml:15:5: '4만원' HARMFUL" in out
    assert "slot amount: expected 50000, read 40000" in out
    assert "FAIL: 1 wrong settlement(s) (at most 0)" in out
    assert main(["eval", str(flows), "--max-wrong", "1"]) == 0


def test_fail_under_gates_the_share_read_right(flows: Path) -> None:
    (flows / "transfer.eval.yaml").write_text(CASES + WRONG, encoding="utf-8")
    assert main(["eval", str(flows), "--max-wrong", "1", "--fail-under", "80"]) == 1


def test_json_and_junit(flows: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (flows / "transfer.eval.yaml").write_text(CASES + WRONG, encoding="utf-8")
    junit = tmp_path / "eval.xml"
    assert main(["eval", str(flows), "--json", "--junit", str(junit)]) == 1
    (report,) = json.loads(capsys.readouterr().out)
    assert report["total"] == 4 and report["wrong_settlements"] == 1
    assert report["decision_precision"] is None  # no decision was taken
    assert [c["right"] for c in report["cases"] if c["tag"] == "mislabelled"] == [False]
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "4" and suite.get("failures") == "1"


def test_k_picks_cases_by_tag_or_words(flows: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(flows), "-k", "question_at"]) == 0
    assert "1 case(s)" in capsys.readouterr().out


@pytest.mark.parametrize(("body", "said"), [
    ("flow: transfer.yaml\ncases:\n  - message: hi\n    expect: {intnet: null}\n",
     "unknown key `intnet`"),
    ("flow: transfer.yaml\ncases:\n  - message: hi\n    expect: {intent: payment}\n",
     "unknown intent `payment`"),
    ("flow: transfer.yaml\ncases:\n  - message: hi\n    expect: {slots: {amount: 1}, "
     "settled: false}\n", "cannot also expect a decision or slot values"),
    ("flow: nowhere.yaml\ncases: []\n", "flow file"),
])
def test_a_broken_eval_file_is_refused_with_its_location(
        flows: Path, capsys: pytest.CaptureFixture[str], body: str, said: str) -> None:
    (flows / "transfer.eval.yaml").write_text(body, encoding="utf-8")
    assert main(["eval", str(flows)]) == 2
    err = capsys.readouterr().err
    assert said in err and "transfer.eval.yaml:" in err and "FL092" in err


def test_no_eval_file_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["eval", str(tmp_path)]) == 2


SHOP = """\
service: returns
default_flow: chat
intents:
  refund: {keywords: [refund]}
routes: {refund: refund}
slots:
  order: {type: string, required: true, ask: ask_order, extract: {patterns: ['(?P<value>A-\\d+)']}}
actions:
  lookup:
    http: {method: GET, url: "http://127.0.0.1:9/orders/{{ slots.order }}"}
flows:
  chat: {initial: A, stages: {A: {say: hi}}}
  refund:
    slots: [order]
    initial: INIT
    stages:
      INIT: {}
      FILLING: {say: ask}
      CHECK: {steps: [{call: lookup, ok: found, error: missing}]}
      READY: {decide: confirm, say: sure}
      DONE: {terminal: true, say: hi}
      GONE: {terminal: true, say: hi}
    transitions:
      - {trigger: cancel, source: '*', dest: GONE}
      - {trigger: update, source: [INIT, FILLING], dest: CHECK, when: not missing}
      - {trigger: update, source: [INIT, FILLING], dest: FILLING}
      - {trigger: found, source: CHECK, dest: READY}
      - {trigger: missing, source: CHECK, dest: GONE}
      - {trigger: confirm, source: READY, dest: DONE}
messages: {hi: hi, ask: which order?, ask_order: which order?, sure: "refund it?"}
"""
SCENES = """\
flow: returns.yaml
STUBS
cases:
  - after: ["refund A-7 please"]
    at: {flow: refund, stage: READY}
    message: "yes"
    tag: confirm_yes
    expect: {decision: confirm}
"""


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    (tmp_path / "returns.yaml").write_text(SHOP, encoding="utf-8")
    return tmp_path


def test_stubs_bring_a_scene_to_its_confirmation(shop: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    stubbed = SCENES.replace("STUBS", "stubs:\n  lookup: {result: {status: paid}}")
    (shop / "returns.eval.yaml").write_text(stubbed, encoding="utf-8")
    assert main(["eval", str(shop / "returns.yaml")]) == 0
    assert "read right          1/1  100.0 %" in capsys.readouterr().out


def test_a_scene_not_reached_is_reported_as_such(shop: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # no stub: the lookup fails (nothing listens there), the request ends before READY
    (shop / "returns.eval.yaml").write_text(SCENES.replace("STUBS\n", ""), encoding="utf-8")
    main(["eval", "-v", str(shop / "returns.yaml")])
    assert ("scene: the earlier turns were to leave refund at READY; they left refund at GONE"
            in capsys.readouterr().out)


@pytest.mark.parametrize(("change", "said"), [
    (("STUBS", "stubs:\n  lookups: {result: {}}"), "unknown action or tool `lookups`"),
    (("stage: READY", "stage: READDY"), "unknown stage `READDY` of flow `refund`"),
    (("{flow: refund,", "{flow: refunds,"), "unknown flow `refunds`"),
])
def test_names_of_scenes_and_stubs_are_checked(shop: Path, capsys: pytest.CaptureFixture[str],
                                               change: tuple[str, str], said: str) -> None:
    text = SCENES.replace(*change).replace("STUBS\n", "")
    (shop / "returns.eval.yaml").write_text(text, encoding="utf-8")
    assert main(["eval", str(shop / "returns.yaml")]) != 0
    out = capsys.readouterr()
    assert said in out.out + out.err and "FL092" in out.out + out.err


def test_an_unsure_message_expected_of_the_model_is_right_offline_when_left(
        flows: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`settled: false` with an intent: the intent is the model's to find (--live); offline
    the case is right when the rules leave the message, or read that very intent."""
    cases = ('flow: transfer.yaml\ncases:\n'
             '  - message: "오늘 날씨 어때?"\n    expect: {intent: balance, settled: false}\n'
             '  - message: "통장 잔액 알려줘"\n    expect: {intent: balance, settled: false}\n'
             '  - message: "통장 잔액 알려줘"\n    expect: {intent: history, settled: false}\n')
    (flows / "transfer.eval.yaml").write_text(cases, encoding="utf-8")
    assert main(["eval", "-v", str(flows / "transfer.yaml")]) == 1
    out = capsys.readouterr().out
    assert "read right          2/3" in out and "wrong settlements   1" in out


def test_docstring_examples() -> None:
    result = doctest.testmod(readings)
    assert (result.failed, result.attempted > 0) == (0, True)
