"""Authoring: the engine's clock reaches validators and expressions as `today`/`now`, and a
validator may normalise the value it is given (`Replace` or `{"value": ...}`)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.errors import FlowDefinitionError
from engine.runtime.engine import Engine
from engine.store import MemoryStore

BOOKING = """
service: demo
default_flow: book
slots:
  date: {type: date, required: true, ask: ask_date, validator: "rules:RULE"}
flows:
  book:
    slots: [date]
    initial: INIT
    stages:
      INIT: {}
      ASKING: {say: ask}
      SOON: {say: soon, terminal: true}
      LATER: {say: later, terminal: true}
    transitions:
      - trigger: update
        source: [INIT, ASKING]
        dest: SOON
        when: "not missing and slots.date <= today"
      - {trigger: update, source: [INIT, ASKING], dest: LATER, when: not missing}
      - {trigger: update, source: [INIT, ASKING], dest: ASKING}
messages:
  ask_date: Which day?
  ask: "{{ errors.date ~ ' ' if errors.date else '' }}{{ ask(missing[0]) }} (today is {{ today }})"
  soon: "today it is ({{ now[:16] }})"
  later: "booked for {{ slots.date }}"
"""

RULES = '''
import datetime as dt

from engine.compiler.validators import Replace

def not_past(value, slots, today):
    if dt.date.fromisoformat(value) < today:
        return "That day has passed."
    return True

def old_style(value, slots):
    return value != "2026-01-09" or "not that day"

def any_kwargs(value, slots, **extra):
    return f"saw {sorted(extra)} {extra['today'].isoformat()}"

def move_to_friday(value, slots):
    day = dt.date.fromisoformat(value)
    return Replace((day + dt.timedelta(days=(4 - day.weekday()) % 7)).isoformat())

def as_dict(value, slots):
    return {"value": "2026-01-20"}

def replaced_badly(value, slots):
    return {"value": "not a date"}

def confused(value, slots):
    return {"ok": True}

def one_argument(value):
    return True
'''

NOW = dt.datetime(2026, 1, 8, 9, 30).astimezone()  # a Thursday


def _engine(tmp_path: Path, rule: str) -> Engine:
    (tmp_path / "rules.py").write_text(RULES)
    (tmp_path / "book.yaml").write_text(BOOKING.replace("RULE", rule))
    return Engine(compile_file(tmp_path / "book.yaml"), store=MemoryStore(), clock=lambda: NOW)


async def _say(engine: Engine, message: str) -> tuple[str, str, object]:
    """Stage, reply and the date slot (empty again once a terminal stage ends the task)."""
    done = await engine.reply("s", message)
    snap = done.state_snapshot
    return snap["stage"], done.message, snap["slots"]["date"]


async def test_a_validator_sees_the_engine_clock_as_today(tmp_path: Path) -> None:
    engine = _engine(tmp_path, "not_past")
    assert await _say(engine, "2026-01-02") == (
        "ASKING", "That day has passed. Which day? (today is 2026-01-08)", None)
    assert await _say(engine, "2026-01-12") == ("LATER", "booked for 2026-01-12", None)


async def test_expressions_see_today_and_now(tmp_path: Path) -> None:
    engine = _engine(tmp_path, "old_style")
    assert await _say(engine, "today") == ("SOON", "today it is (2026-01-08T09:30)", None)


async def test_two_argument_validators_still_work(tmp_path: Path) -> None:
    engine = _engine(tmp_path, "old_style")
    assert (await _say(engine, "tomorrow"))[:2] == ("ASKING", "not that day Which day? "
                                                              "(today is 2026-01-08)")


async def test_kwargs_validators_get_today_by_name(tmp_path: Path) -> None:
    engine = _engine(tmp_path, "any_kwargs")
    assert (await _say(engine, "tomorrow"))[1].startswith("saw ['today'] 2026-01-08 ")


@pytest.mark.parametrize(("rule", "stored"), [("move_to_friday", "2026-01-16"),
                                              ("as_dict", "2026-01-20")])
async def test_a_validator_may_replace_the_value(tmp_path: Path, rule: str, stored: str) -> None:
    engine = _engine(tmp_path, rule)
    assert await _say(engine, "2026-01-13") == ("LATER", f"booked for {stored}", None)


async def test_a_replacement_is_checked_like_input(tmp_path: Path) -> None:
    engine = _engine(tmp_path, "replaced_badly")
    stage, _, date = await _say(engine, "2026-01-13")
    assert (stage, date) == ("ASKING", None)


async def test_an_unknown_verdict_fails_the_turn_without_saving(tmp_path: Path) -> None:
    engine = _engine(tmp_path, "confused")
    done = await engine.reply("s", "2026-01-13")
    assert done.message == engine.text("turn_failed")
    assert (await engine.reply("s", "hello")).state_snapshot["slots"].get("date") is None


def test_a_validator_that_cannot_take_value_and_slots_is_fl034(tmp_path: Path) -> None:
    with pytest.raises(FlowDefinitionError) as err:
        _engine(tmp_path, "one_argument")
    (finding,) = err.value.findings
    assert finding.code == "FL034"
    assert "cannot be called as `one_argument(value, slots)`" in finding.message


TIMED = """
service: table
locale: en
default_flow: book
slots:
  at: {type: time, required: true, ask: ask_at}
flows:
  book:
    slots: [at]
    initial: INIT
    stages:
      INIT: {}
      ASKING: {say: ask}
      DONE: {say: done, terminal: true}
    transitions:
      - {trigger: update, source: [INIT, ASKING], dest: DONE, when: not missing}
      - {trigger: update, source: [INIT, ASKING], dest: ASKING}
messages:
  ask_at: What time?
  ask: "{{ ask(missing[0]) }}"
  done: "See you at {{ slots.at }}."
"""


@pytest.mark.parametrize(("said", "reply"), [("7pm please", "See you at 19:00."),
                                             ("오후 3시 반", "See you at 15:30."),
                                             ("25:99", "What time?")])
async def test_a_time_slot(tmp_path: Path, said: str, reply: str) -> None:
    (tmp_path / "t.yaml").write_text(TIMED)
    engine = Engine(compile_file(tmp_path / "t.yaml"), store=MemoryStore(), clock=lambda: NOW)
    assert (await engine.reply("s", said)).message == reply


def test_a_time_slot_validates_model_values(tmp_path: Path) -> None:
    from engine.runtime.understanding.slots import Rejected, validate

    (tmp_path / "t.yaml").write_text(TIMED)
    slot = compile_file(tmp_path / "t.yaml").slots["at"]
    assert [validate(slot, v, {}) for v in ("7pm", "19:30", " 07:05 ")] == [
        "19:00", "19:30", "07:05"]
    assert all(isinstance(validate(slot, v, {}), Rejected)
               for v in ("25:99", "soon", 1930, ["19:30"], "7pm or 8pm"))


def test_a_time_slot_lints_clean(tmp_path: Path) -> None:
    from engine.lint import lint_paths

    (tmp_path / "t.yaml").write_text(TIMED)
    report = lint_paths([tmp_path / "t.yaml"])
    assert [f.code for f in report.findings] == []


LINTED = """
service: a
default_flow: main
flows:
  main:
    initial: INIT
    stages: {INIT: {}, DONE: {terminal: true}, CANCELLED: {terminal: true}}
    transitions:
      - {trigger: update, source: INIT, dest: DONE, when: WHEN}
      - {trigger: cancel, source: SOURCE, dest: CANCELLED}
"""


@pytest.mark.parametrize(("when", "source", "code", "hint"), [
    ("'{{ not missing }}'", "'*'", "FL030",
     "an expression is written without {{ }}: drop them, e.g. `when: not missing`"),
    ("not missing", "*", "FL002", "quote '*': YAML reads a bare * as an alias; "
                                  "write `source: '*'`"),
])
def test_lint_hints_for_newcomers_mistakes(tmp_path: Path, when: str, source: str, code: str,
                                           hint: str) -> None:
    from engine.lint import lint_paths

    (tmp_path / "a.yaml").write_text(LINTED.replace("WHEN", when).replace("SOURCE", source))
    errors = [f for f in lint_paths([tmp_path / "a.yaml"]).findings if f.severity == "error"]
    assert [(f.code, f.hint) for f in errors] == [(code, hint)]


@pytest.mark.parametrize(("when", "source", "code"), [("'not (missing'", "INIT", "FL030"),
                                                    ("not missing", "[INIT, 3 * 4", "FL002")])
def test_no_hint_when_the_mistake_is_another(tmp_path: Path, when: str, source: str,
                                             code: str) -> None:
    from engine.lint import lint_paths

    (tmp_path / "a.yaml").write_text(LINTED.replace("WHEN", when).replace("SOURCE", source))
    found = [f for f in lint_paths([tmp_path / "a.yaml"]).findings if f.code == code]
    assert [f.hint for f in found] == [None]


def test_the_slots_scaffold_is_named_after_what_was_asked_for(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cli import main

    flows = tmp_path / "flows"
    assert main(["new", "table_booking", "--shape", "slots", "--dir", str(flows)]) == 0
    text = (flows / "table_booking.yaml").read_text(encoding="utf-8")
    assert "table booking" in text and "TABLE_BOOKING_URL" in text
    assert not any(word in text.lower() for word in ("pay", "payee", "usd", "money"))
    capsys.readouterr()
    assert main(["test", str(flows)]) == 0, capsys.readouterr().out
    assert capsys.readouterr().out.splitlines()[-1] == "5 passed, 0 failed"


async def test_two_flows_with_their_own_rules_module_each_get_theirs(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir(), second.mkdir()
    _engine(first, "old_style")
    (second / "rules.py").write_text("def old_style(value, slots):\n    return 'second'\n")
    (second / "book.yaml").write_text(BOOKING.replace("RULE", "old_style"))
    engine = Engine(compile_file(second / "book.yaml"), store=MemoryStore(), clock=lambda: NOW)
    assert (await _say(engine, "2026-01-20"))[1].startswith("second ")
