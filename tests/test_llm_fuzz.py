"""Whole turns of the transfer service with a fuzzed understanding model: no turn fails.

The model's reply is untrusted input. Whatever it writes (any text, JSON nested 10,000
levels deep, NaN, Infinity, 1e999, 5,000-digit numbers, a 70,000-character string, wrong
types in every field, cut off, fenced or wrapped in prose), the turn must take the documented
paths: a malformed reply is asked for once more and then read as unclear, a bad slot value
is rejected with the slot's error. Never ``turn_failed``, and no money moves without the
user's confirmation.

The model is injected the public way: a ``ScriptedProvider`` given to ``ModelPool`` as the
service's ``fast`` model, replaying the fuzzed reply to every call (understanding, chat,
memory). No network, nothing of the runtime patched.

Cases: 3 scenarios x 700 + 300 (arbitrary text) = 2,400 turns after their setup, derandomized.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.compiler import compile_file
from engine.config import load_settings
from engine.providers.scripted import ScriptedProvider
from engine.runtime.calls.models import ModelPool
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done
from engine.store import MemoryStore
from tests.conftest import ROOT, TODAY

TRANSFER = compile_file(ROOT / "flows" / "transfer.yaml")
SETTINGS = load_settings({})
CASES_PER_SCENARIO = 300  # derandomized: the same 300 cases every run
TEXT_CASES = 300


def fuzz(examples: int) -> Any:
    return settings(max_examples=examples, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# -- the scenarios: where the turn is when the model answers --------------------------------

SCENARIOS: dict[str, tuple[list[str], str, str | None]] = {
    # setup messages (settled by the rules, no model call), the fuzzed turn's message, the
    # stage the setup must reach (None: a new session, the model routes)
    "route": ([], "음 그거 좀 해줘", None),
    "filling": (["엄마한테 보내줘"], "음 그 정도면 될 것 같아", "FILLING"),
    "ready": (["엄마한테 만원 보내줘"], "흠 잘 모르겠네", "READY"),
}
MONEY_MOVED = {"CONFIRMED", "EXECUTED", "FAILED"}


async def run_turn(scenario: str, reply: str) -> tuple[Done, list[dict[str, Any]], int]:
    """The scenario's setup, then one turn answered by ``reply``; the Done, what the store
    recorded as completed, and how many model calls the turn made."""
    setup, message, stage = SCENARIOS[scenario]
    provider = ScriptedProvider([{"reply": reply, "repeat": True}])
    pool = ModelPool(TRANSFER, SETTINGS.env, providers={"fast": provider})
    store = MemoryStore()
    engine = Engine(TRANSFER, store=store, settings=SETTINGS, clock=lambda: TODAY, models=pool)
    for text in setup:
        done = await engine.reply("s", text)
    if stage is not None:
        assert done.state_snapshot["stage"] == stage, "the setup is settled by the rules"
    assert provider.requests == [], "the setup made no model call"
    done = await engine.reply("s", message)
    return done, await store.completed("s"), len(provider.requests)


def check_turn(scenario: str, reply: str) -> None:
    done, completed, calls = asyncio.run(run_turn(scenario, reply))
    assert done.trace.get("error") != "turn_failed", f"turn failed on reply {reply[:200]!r}"
    assert calls >= 1, "the fuzzed reply was asked for"
    assert isinstance(done.message, str) and done.message
    snapshot = done.state_snapshot
    assert snapshot["stage"] not in MONEY_MOVED, "no confirmation was given"
    assert not [c for c in completed if c.get("outcome") in MONEY_MOVED]
    slots = snapshot["slots"]
    amount = slots.get("amount")
    assert amount is None or (isinstance(amount, int | float) and not isinstance(amount, bool)
                              and math.isfinite(amount) and 1 <= amount <= 10**15)
    target = slots.get("target")
    assert target is None or (isinstance(target, str) and 0 < len(target) <= 20)


# -- fuzzed replies, as JSON text fragments so that any literal can be injected -------------

def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# Valid JSON that is still a bad slot value: huge, negative, fractional, of the wrong kind.
VALID_SCALARS = st.one_of(
    st.integers().map(str),
    st.integers(min_value=10**15, max_value=10**300).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(dumps),
    st.sampled_from(["1e308", "-1e308", "1E15", "1e16", "-0", "0.5", "10000", "1e-400", "true",
                     "false", "null", "9" * 300]),
    st.text(max_size=30).map(dumps),
    st.sampled_from(["엄마", "아빠", "용걸이", "2026-11-23", "2026-02-30", "내일", "만원", "50000",
                     "1e999", "NaN", "inf", "-1", "1,000,000", "9" * 400, " ", "", "x" * 21,
                     "transfer"]).map(dumps),
)
# Not JSON, or JSON past the bounds: each makes the whole reply a parse error.
NASTY_SCALARS = st.sampled_from([
    "NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1E400", "9" * 310, "-" + "9" * 400,
    "1" * 5000, "[" * 10_000 + "]" * 10_000, '{"a":' * 10_000 + "1" + "}" * 10_000,
    "[" * 40 + "1" + "]" * 40, dumps("x" * 70_000), '"\\ud800"', "'single'", "undefined",
])
KEYS = st.sampled_from(["intent", "confidence", "operations", "tasks", "op", "slot", "value",
                        "target", "amount", "when", "message", ""]) | st.text(max_size=6)


def json_fragment(scalars: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """JSON text of scalars, lists and objects (keys may repeat)."""
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(KEYS.map(dumps), inner), max_size=4).map(
            lambda kvs: "{" + ", ".join(f"{k}: {v}" for k, v in kvs) + "}")), max_leaves=8)


CLEAN_VALUES = json_fragment(VALID_SCALARS)
ANY_VALUES = json_fragment(st.one_of(VALID_SCALARS, VALID_SCALARS, NASTY_SCALARS))


def usually(draw: st.DrawFn, percent: int) -> bool:
    return draw(st.integers(0, 99)) < percent


def obj(draw: st.DrawFn, fields: dict[str, st.SearchStrategy[str]], keep: int,
        required: str = "") -> str:
    """An object of ``fields``, each kept with probability ``keep`` % (``required`` with 97 %),
    sometimes shuffled."""
    names = [name for name in fields if usually(draw, 97 if name == required else keep)]
    if usually(draw, 10):
        names = draw(st.permutations(names))
    return "{" + ", ".join(f"{dumps(name)}: {draw(fields[name])}" for name in names) + "}"


def mostly(good: st.SearchStrategy[str], other: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """``good`` 93 % of the time, else ``other`` (a field of the wrong kind)."""
    return st.integers(0, 99).flatmap(lambda n: good if n < 93 else other)


def listing(items: st.SearchStrategy[str], min_size: int = 0) -> st.SearchStrategy[str]:
    return st.lists(items, min_size=min_size, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")


@st.composite
def operation(draw: st.DrawFn, values: st.SearchStrategy[str]) -> str:
    ops = st.sampled_from(["set", "set", "set", "clear", "cancel_flow", "confirm"]).map(dumps)
    slots = st.sampled_from(["target", "amount", "amount", "when", "nope"]).map(dumps)
    return obj(draw, {"op": mostly(ops, values), "slot": mostly(slots, values),
                      "value": values}, keep=90, required="op")


@st.composite
def task(draw: st.DrawFn, values: st.SearchStrategy[str]) -> str:
    return obj(draw, {name: values for name in ("target", "amount", "when")}, keep=60)


@st.composite
def understanding(draw: st.DrawFn, values: st.SearchStrategy[str]) -> str:
    """An understanding-shaped reply: mostly well formed, ``values`` in every slot value,
    and now and then a field of the wrong kind."""
    intents = st.sampled_from(["transfer", "history", "chat", "nope"]).map(dumps) | st.just("null")
    return obj(draw, {
        "intent": mostly(intents, values),
        "confidence": mostly(st.sampled_from(["0.95", "1", "0", "0.5", "0.99"]), values),
        "operations": mostly(listing(operation(values), min_size=1) | listing(operation(values)),
                             values),
        "tasks": mostly(listing(task(values)), values),
    }, keep=70, required="operations")


@st.composite
def wrapped(draw: st.DrawFn, body: st.SearchStrategy[str]) -> str:
    """The body bare, fenced, in prose, cut off, or followed by another reply."""
    text = draw(body)
    match draw(st.sampled_from(["bare", "bare", "bare", "fenced", "prose", "cut", "twice"])):
        case "fenced":
            return f"```json\n{text}\n```"
        case "prose":
            return f"{draw(st.text(max_size=20))} {text} {draw(st.text(max_size=20))}"
        case "cut":
            return text[: draw(st.integers(0, max(0, len(text) - 1)))]
        case "twice":
            return f"{text}\n{draw(understanding(CLEAN_VALUES))}"
    return text


REPLIES = st.one_of(
    wrapped(understanding(CLEAN_VALUES)),  # parses: the slot values are what is fuzzed
    wrapped(understanding(CLEAN_VALUES)),
    wrapped(understanding(ANY_VALUES)),  # mostly a parse error somewhere
    wrapped(ANY_VALUES),
    st.lists(st.sampled_from([*'{}[]":, \n', "NaN", "1e999", "null", '"operations"', '"op"',
                              '"set"', '"amount"', '"value"', "9" * 400]), max_size=40)
    .map("".join),
)


# -- the tests --------------------------------------------------------------------------------

@pytest.mark.parametrize("scenario", list(SCENARIOS))
@fuzz(CASES_PER_SCENARIO)
@given(reply=REPLIES)
def test_no_fuzzed_understanding_reply_fails_the_turn(scenario: str, reply: str) -> None:
    check_turn(scenario, reply)


@fuzz(TEXT_CASES)
@given(scenario=st.sampled_from(list(SCENARIOS)), reply=st.text())
def test_no_arbitrary_text_reply_fails_the_turn(scenario: str, reply: str) -> None:
    check_turn(scenario, reply)


ADVERSARIAL = {
    "deep-objects": '{"operations": [], "x": ' + '{"a":' * 10_000 + "1" + "}" * 10_000 + "}",
    "deep-arrays": '{"operations": ' + "[" * 10_000 + "]" * 10_000 + "}",
    "deep-value": '{"operations": [{"op": "set", "slot": "amount", "value": '
                  + "[" * 5_000 + "1" + "]" * 5_000 + "}]}",
    "amount-nan": '{"operations": [{"op": "set", "slot": "amount", "value": NaN}]}',
    "amount-inf": '{"operations": [{"op": "set", "slot": "amount", "value": Infinity}]}',
    "amount-1e999": '{"operations": [{"op": "set", "slot": "amount", "value": 1e999}]}',
    "amount-digits": '{"operations": [{"op": "set", "slot": "amount", "value": '
                     + "9" * 5000 + "}]}",
    "amount-1e308": '{"intent": "transfer", "operations": [{"op": "set", "slot": "amount", '
                    '"value": 1e308}]}',
    "amount-string-1e999": '{"operations": [{"op": "set", "slot": "amount", "value": "1e999"}]}',
    "amount-true": '{"operations": [{"op": "set", "slot": "amount", "value": true}]}',
    "amount-object": '{"operations": [{"op": "set", "slot": "amount", "value": {"v": 1}}]}',
    "confidence-nan": '{"intent": "transfer", "confidence": NaN, "operations": []}',
    "confidence-huge": '{"intent": "transfer", "confidence": ' + "1" * 400 + ', "operations": []}',
    "target-huge": '{"operations": [{"op": "set", "slot": "target", "value": '
                   + dumps("x" * 70_000) + "}]}",
    "target-number": '{"operations": [{"op": "set", "slot": "target", "value": '
                     + "1" * 300 + "}]}",
    "tasks-nasty": '{"intent": "transfer", "operations": [], "tasks": [{"target": "엄마", '
                   '"amount": 1e999}, {"target": ["x"], "amount": NaN}, {"amount": true}]}',
    "confirm-op": '{"operations": [{"op": "confirm"}]}',
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("reply", list(ADVERSARIAL.values()), ids=list(ADVERSARIAL))
def test_adversarial_replies(scenario: str, reply: str) -> None:
    check_turn(scenario, reply)
