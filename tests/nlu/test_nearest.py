"""An intent's nearest example is looked for only among the examples that share a bigram with
the message; it must be what comparing the message with every example gives, ties and
repeated bigrams included."""

from pathlib import Path

import pytest
import yaml

from engine.compiler import compile_file
from engine.nlu.intents import IntentRule, _nearest
from engine.nlu.text import bigrams, dice
from engine.nlu.words import normalise

ROOT = Path(__file__).resolve().parents[2]
FLOWS = sorted(p for p in (ROOT / "flows").glob("*.yaml") if p.name.count(".") == 1 and
               "\napp:" not in p.read_text())


def every_example(grams, rule: IntentRule) -> tuple[float, str]:
    """The nearest example by comparing with each one in turn: with a bigram said twice,
    the greatest (similarity, example); else the first of the most alike."""
    if not rule.examples:
        return 0.0, ""
    scored = [(dice(grams, bigrams(normalise(e))), e) for e in rule.examples]
    if max(grams.values(), default=1) > 1:
        shared = [s for s in scored if s[0] > 0]
        return max(shared) if shared else (0.0, max(rule.examples))
    best = max(s for s, _ in scored)
    return (best, next(e for s, e in scored if s == best)) if best > 0 else (0.0, scored[0][1])


def messages() -> list[str]:
    """Messages no example was written for: every eval set's, and some with bigrams said
    twice."""
    found = ["한테 한테 보내", "보내보내 줘", "잔액 잔액", "aa aa", "ㅋㅋㅋㅋ", "", "a",
             "엄마한테 만원, 용걸이한테 5만원 보내줘", "send send money money"]
    for path in sorted(ROOT.glob("tests/fixtures/blind_*/*.eval.yaml")):
        found += [case["message"] for case in yaml.safe_load(path.read_text())["cases"]][::7]
    return found


@pytest.mark.parametrize("flow", FLOWS, ids=lambda p: p.stem)
def test_nearest_example_is_what_comparing_every_example_gives(flow: Path) -> None:
    rules = compile_file(flow).intents
    for message in messages():
        grams = bigrams(normalise(message))
        for rule in rules:
            assert _nearest(grams, rule) == every_example(grams, rule), (message, rule.name)
