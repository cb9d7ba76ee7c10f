"""A flow's own mistake after money moved: the outcome is kept and told, the task ends, the
session goes on. And an action's `returns`: a result without a field the flow needs is the
action's failure (its `error` route), not a failed turn.

The bank is a real loopback HTTP server that counts executions (tests/fakes/bank.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.errors import FlowDefinitionError
from engine.runtime.engine import Engine
from engine.store.sqlite import SqliteStore
from tests.fakes.bank import Bank

FLOW = """
service: payer
default_flow: chat
slots:
  target:
    type: string
    required: true
    ask: ask_target
    extract: {patterns: ['(?P<value>[가-힣]+?)(?:한테|에게)']}
  amount: {type: money, currency: KRW, required: true, ask: ask_amount}
intents:
  pay: {keywords: [보내]}
routes: {pay: pay}
actions:
  send:
    http: {url: "{{ env.BANK_URL }}/transfers", json: {to: slots.target, amount: slots.amount}}
    irreversible: true
    timeout_sec: 5
flows:
  chat:
    initial: CHAT
    stages:
      CHAT: {say: chat}
  pay:
    slots: [target, amount]
    initial: INIT
    stages:
      INIT: {}
      FILLING: {say: filling}
      READY: {decide: confirm, say: confirm, buttons: [확인, 취소]}
      CONFIRMED:
        steps:
          - {call: send, ok: sent, error: failed}
      SENT: {terminal: true, say: sent}
      FAILED: {terminal: true, say: failed}
      CANCELLED: {terminal: true, say: cancelled}
    transitions:
      - {trigger: cancel, source: '*', dest: CANCELLED}
      - {trigger: update, source: [INIT, FILLING, READY], dest: READY, when: not missing}
      - {trigger: update, source: [INIT, FILLING, READY], dest: FILLING}
      - {trigger: confirm, source: READY, dest: CONFIRMED}
      - {trigger: sent, source: CONFIRMED, dest: SENT}
      - {trigger: failed, source: CONFIRMED, dest: FAILED}
messages:
  chat: 무엇을 도와드릴까요?
  filling: "{{ ask(missing[0]) }}"
  ask_target: 누구에게 보낼까요?
  ask_amount: 얼마를 보낼까요?
  confirm: "{{ slots.target }}에게 {{ slots.amount | won }}을 보낼까요?"
  sent: "보냈어요. 거래번호 {{ result.transaction_id }}"
  failed: 보내지 못했어요.
  cancelled: 취소했어요.
"""

# the same flow with one mistake of the class: it reads a field the bank never returns
MISTAKES = {
    "a message": ('거래번호 {{ result.transaction_id }}', '영수증 {{ result.receipt_no }}'),
    "a transition's condition": ("{trigger: sent, source: CONFIRMED, dest: SENT}",
                                 "{trigger: sent, source: CONFIRMED, dest: SENT, "
                                 "when: result.receipt.ok}"),
    "a step of the next stage": ("SENT: {terminal: true, say: sent}",
                                 "SENT: {terminal: true, say: sent, steps: "
                                 "[{emit: paid, data: {receipt: result.receipt.no}}]}"),
}


@pytest.fixture
def bank() -> Iterator[Bank]:
    bank = Bank().start()
    yield bank
    bank.stop()


def engine_of(tmp_path: Path, bank: Bank, text: str) -> Engine:
    (tmp_path / "payer.yaml").write_text(text, encoding="utf-8")
    return Engine(compile_file(tmp_path / "payer.yaml"), store=SqliteStore(tmp_path / "s.db"),
                  settings=load_settings({"BANK_URL": bank.url}))


@pytest.mark.parametrize("where", sorted(MISTAKES))
async def test_a_flow_mistake_after_the_money_moved_keeps_and_tells_the_outcome(
        tmp_path: Path, bank: Bank, where: str) -> None:
    old, new = MISTAKES[where]
    engine = engine_of(tmp_path, bank, FLOW.replace(old, new))
    await engine.reply("s", "엄마한테 3만원 보내줘")
    done = await engine.reply("s", "확인")
    assert done.message == engine.text("action_done_unshown")
    assert done.message.startswith("요청하신 작업은 처리됐어요.")
    assert done.trace["error"] == "turn_failed" and done.trace["error_kind"] == "template"
    assert len(bank.executions) == 1
    completed = await engine.store.completed("s")
    assert [(c["flow"], c["outcome"]) for c in completed] == [("pay", "ACTION_DONE")]
    assert completed[0]["result"]["transaction_id"] == "tx-1"
    # the session goes on: not stuck in the stage that failed, nothing sent again
    after = await engine.reply("s", "고마워")
    assert "error" not in after.trace and after.state_snapshot["flow"] == "chat"
    again = await engine.reply("s", "확인")
    assert "error" not in again.trace and len(bank.executions) == 1
    await engine.store.close()


async def test_a_refusal_after_which_the_flow_fails_is_told_as_not_done(
        tmp_path: Path, bank: Bank) -> None:
    bank.status = 422  # the bank refuses: the FAILED stage's message is the mistake here
    engine = engine_of(tmp_path, bank, FLOW.replace("failed: 보내지 못했어요.",
                                                    "failed: \"{{ result.reason.text }}\""))
    await engine.reply("s", "엄마한테 3만원 보내줘")
    done = await engine.reply("s", "확인")
    assert done.message.startswith("요청하신 작업은 처리되지 않았어요.")
    completed = await engine.store.completed("s")
    assert [c["outcome"] for c in completed] == ["ACTION_FAILED"] and not bank.executions
    await engine.store.close()


LOOKUP = FLOW.replace("""    irreversible: true
    timeout_sec: 5
flows:""", """    irreversible: true
    timeout_sec: 5
  quote:
    http: {url: "{{ env.BANK_URL }}/transfers", json: {to: slots.target, amount: 0}}
    returns: [RETURNS]
flows:""").replace("- {call: send, ok: sent, error: failed}",
                   "- {call: quote, ok: sent, error: failed}").replace(
    "failed: 보내지 못했어요.", "failed: \"조회하지 못했어요: {{ result.error }}\"")


@pytest.mark.parametrize(("returns", "said"), [
    ("fee", "조회하지 못했어요: the result has no `fee`"),
    ("fee, limit", "조회하지 못했어요: the result has no `fee`, `limit`"),
    ("transaction_id", "보냈어요. 거래번호 tx-1"),
])
async def test_a_result_without_a_field_it_returns_takes_the_error_route(
        tmp_path: Path, bank: Bank, returns: str, said: str) -> None:
    engine = engine_of(tmp_path, bank, LOOKUP.replace("RETURNS", returns))
    await engine.reply("s", "엄마한테 3만원 보내줘")
    done = await engine.reply("s", "확인")
    assert done.message == said and "error" not in done.trace
    await engine.store.close()


def test_returns_is_refused_on_an_irreversible_action(tmp_path: Path, bank: Bank) -> None:
    text = FLOW.replace("    irreversible: true\n", "    irreversible: true\n    returns: [fee]\n")
    with pytest.raises(FlowDefinitionError) as caught:
        engine_of(tmp_path, bank, text)
    assert "`returns` cannot be used on an irreversible action" in str(caught.value)


# -- what failed a turn: _trace.error_kind -------------------------------------------------------

RULES = '''
def odd(value, slots):
    return 42  # no verdict: the validator's bug


def crash(value, slots):
    return {}["boom"]
'''


NO_ERROR_ROUTE = [("- {call: send, ok: sent, error: failed}", "- {call: send, ok: sent}"),
                  ("      FAILED: {terminal: true, say: failed}\n", ""),
                  ("      - {trigger: failed, source: CONFIRMED, dest: FAILED}\n", "")]


@pytest.mark.parametrize(("changes", "kind"), [
    # an action failing with no `error` route to take
    (NO_ERROR_ROUTE, "action"),
    # the flow's own Python: a verdict that is none, or an exception of its own
    ([("ask: ask_amount}", "ask: ask_amount, validator: 'rules:odd'}")], "validator"),
    ([("ask: ask_amount}", "ask: ask_amount, validator: 'rules:crash'}")], "validator"),
    # a message reading a name that is not there at run time
    ([("confirm: \"{{ slots.target }}", "confirm: \"{{ slots.target.first }}")], "template"),
])
async def test_a_failed_turn_says_what_kind_of_thing_failed(
        tmp_path: Path, bank: Bank, changes: list[tuple[str, str]], kind: str) -> None:
    (tmp_path / "rules.py").write_text(RULES, encoding="utf-8")
    text = FLOW.replace("    irreversible: true\n", "")
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    bank.status = 500
    engine = engine_of(tmp_path, bank, text)
    done = await engine.reply("s", "엄마한테 3만원 보내줘")
    if "error" not in done.trace:
        done = await engine.reply("s", "확인")
    assert (done.trace["error"], done.trace["error_kind"]) == ("turn_failed", kind)
    await engine.store.close()


async def test_a_store_that_cannot_load_is_a_store_failure(tmp_path: Path, bank: Bank) -> None:
    engine = engine_of(tmp_path, bank, FLOW)
    with sqlite3.connect(tmp_path / "s.db") as db:  # the database breaks under the server
        db.execute("DROP TABLE sessions")
    done = await engine.reply("s", "안녕")
    assert (done.trace["error"], done.trace["error_kind"]) == ("turn_failed", "store")
