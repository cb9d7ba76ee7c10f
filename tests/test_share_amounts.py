"""An amount said as a share of a whole ("잔액 전부", "all of my balance") answers the amount
asked: no rule can count it, so it settles nothing (a model, if configured, is asked, and a
number it makes of the share is one the user never said: dropped; the amount is asked
again) and is never the balance flow's request for the balance word in
it. A question about the balance still is. And money asked for with the English verbs
"pay" and "wire" is a transfer, read like "send"."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.nlu.money import names_a_share
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import TODAY

# a model that makes a number of the share (the balance is 1,000만원 in the flow's fixture)
READS = """\
- match: "몽땅|everything"
  repeat: true
  json: {intent: transfer, confidence: 0.9, operations: [{op: set, slot: amount, value: 10000000}]}
"""

BALANCE_SHOWN = "잔액은"


async def turns(transfer: CompiledService, *messages: str) -> tuple[dict[str, object], str]:
    engine = Engine(transfer, store=MemoryStore())
    for message in messages:
        done = await engine.reply("s", message)
    snapshot = done.state_snapshot
    return {"flow": snapshot["flow"], "stage": snapshot["stage"],
            **(snapshot.get("slots") or {})}, done.message


@pytest.mark.parametrize(("ask", "share"), [
    ("엄마한테 보내줘", "통장에 있는 거 몽땅"), ("엄마한테 보내줘", "잔고 절반만"),
    ("동생한테 이체할래", "남은 돈 싹 다요"), ("아빠한테 송금", "잔액 나머지 전부"),
    ("send money to dad", "everything in my account"),
    ("send money to dad", "the rest of my balance"), ("transfer to Mina", "half my balance"),
])
async def test_a_share_of_the_balance_answers_the_amount_and_settles_nothing(
        transfer: CompiledService, ask: str, share: str) -> None:
    read, reply = await turns(transfer, ask, share)
    assert (read["flow"], read["stage"], read["amount"]) == ("transfer", "FILLING", None)
    assert BALANCE_SHOWN not in reply  # not the balance flow's turn


@pytest.mark.parametrize("question", ["잔액이 얼마지?", "통장 잔액 알려줘",
                                      "what's my balance?", "check my balance please"])
async def test_a_question_about_the_balance_mid_transfer_still_shows_it(
        transfer: CompiledService, question: str) -> None:
    read, reply = await turns(transfer, "엄마한테 보내줘", question)
    assert BALANCE_SHOWN in reply and (read["flow"], read["target"]) == ("transfer", "엄마")


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("pay Jisu 30k", "Jisu", 30000), ("could you pay my sister 50,000 won", "sister", 50000),
    ("wire 100k to my landlord", "landlord", 100000),
    ("please wire Minho 15000 won", "Minho", 15000),
])
async def test_pay_and_wire_ask_for_a_transfer(transfer: CompiledService, message: str,
                                               target: str, amount: int) -> None:
    read, _ = await turns(transfer, message)
    assert (read["flow"], read["stage"], read["target"], read["amount"]) == \
        ("transfer", "READY", target, amount)


@pytest.mark.parametrize("message", ["3만원", "다음 달에 보내줘", "다른 사람한테", "5 thousand",
                                     "반찬값 2만원"])
def test_an_amount_or_a_word_that_only_starts_like_a_share_is_none(message: str) -> None:
    assert not names_a_share(message)


@pytest.mark.parametrize("message", ["전액이요", "몽땅", "절반만", "나머지 다", "the whole thing",
                                     "whatever's left"])
def test_a_share_said_alone_is_one(message: str) -> None:
    assert names_a_share(message)


@pytest.mark.parametrize("share", ["통장에 있는 거 몽땅이요", "everything I have"])
async def test_a_share_goes_to_the_model_whose_unsaid_number_is_dropped(
        transfer: CompiledService, tmp_path: Path, share: str) -> None:
    fixture = tmp_path / "reads.yaml"
    fixture.write_text(READS, encoding="utf-8")
    engine = Engine(transfer, store=MemoryStore(), clock=lambda: TODAY,
                    settings=load_settings({"FLOWCTL_MODEL_FAST": f"scripted:{fixture}"}))
    await engine.reply("s", "엄마한테 보내줘")
    done = await engine.reply("s", share)
    assert done.trace["reading"]["by"] == "model"  # asked: the rules settled nothing
    # an amount the user never said is the model's, not theirs: dropped, asked again
    assert (done.state_snapshot["stage"], done.state_snapshot["slots"]["amount"]) == \
        ("FILLING", None)
    assert "얼마" in done.message
