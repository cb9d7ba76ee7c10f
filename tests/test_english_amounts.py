"""An amount said in English words ("forty-five thousand won", "a hundred and twenty
thousand"): with its unit anywhere in a message, alone as the answer to "how much?", as the
change at a confirmation; the recipient right after the verb when the words follow. Words
that make no number ("five twenty won"), a small number alone ("ten": 10원? 10만원?) and
another currency give no amount; sending a message, photos or invitations is no transfer
(the flow's `unless` words, in the plural too).

Every sentence here is new: none is in an eval set or a flow's tests."""

from __future__ import annotations

import pytest

from engine.compiler.compiled import CompiledService
from engine.nlu import find_money
from engine.nlu.numbers import english_numeral
from engine.runtime.engine import Engine
from engine.store import MemoryStore

ASK_AMOUNT = "I need to send money to Hana"


async def state(transfer: CompiledService, *messages: str) -> dict[str, object]:
    engine = Engine(transfer, store=MemoryStore())
    for message in messages:
        done = await engine.reply("s", message)
    return {"stage": done.state_snapshot["stage"], **(done.state_snapshot.get("slots") or {})}


@pytest.mark.parametrize(("said", "value"), [
    ("sixty-two thousand", 62000), ("a hundred and twenty thousand", 120000),
    ("nine hundred", 900), ("three million four hundred thousand", 3400000),
    ("eleven", 11), ("five twenty", None), ("thousand", None), ("million thousand", None),
    ("twenty twelve", None),
])
def test_a_number_in_english_words_is_its_value_or_none(said: str,
                                                        value: int | None) -> None:
    assert english_numeral(said) == value


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("wire auntie forty-five thousand won", "auntie", 45000),
    ("send eighty thousand won to my uncle", "uncle", 80000),
    ("pay grandma a hundred and twenty thousand won", "grandma", 120000),
])
async def test_an_amount_in_words_with_its_unit_fills_a_first_message(
        transfer: CompiledService, message: str, target: str, amount: int) -> None:
    found = await state(transfer, message)
    assert (found["stage"], found["target"], found["amount"]) == ("READY", target, amount)


@pytest.mark.parametrize(("answer", "amount"), [
    ("sixty thousand", 60000), ("a hundred thousand won", 100000),
    ("thirty-five thousand please", 35000), ("Seventy Thousand Won", 70000),
])
async def test_an_amount_in_words_answers_how_much(transfer: CompiledService, answer: str,
                                                  amount: int) -> None:
    found = await state(transfer, ASK_AMOUNT, answer)
    assert (found["stage"], found["amount"]) == ("READY", amount)


@pytest.mark.parametrize("answer", ["ten", "five twenty won", "forty dollars",
                                    "twenty or thirty thousand"])
async def test_words_that_give_no_sure_amount_leave_it_asked(transfer: CompiledService,
                                                             answer: str) -> None:
    found = await state(transfer, ASK_AMOUNT, answer)
    assert found["amount"] is None and found["stage"] == "FILLING"


async def test_an_amount_in_words_changes_the_amount_at_the_confirmation(
        transfer: CompiledService) -> None:
    found = await state(transfer, "send Hana 10k", "make it forty thousand won")
    assert (found["stage"], found["amount"]) == ("READY", 40000)


@pytest.mark.parametrize("message", ["send grandma two messages",
                                     "send my aunt the invitations",
                                     "send dad the videos from the weekend"])
async def test_sending_messages_photos_or_invitations_is_no_transfer(
        transfer: CompiledService, message: str) -> None:
    done = await Engine(transfer, store=MemoryStore()).reply("x", message)
    assert (done.trace.get("reading") or {}).get("intent") != "transfer"
    assert done.state_snapshot["stage"] not in ("FILLING", "READY")


def test_an_amount_in_words_keeps_its_sign_and_currency() -> None:
    [minus] = find_money("minus twelve thousand won")
    [dollars] = find_money("fifty-five dollars")
    assert (minus.value, dollars.value, dollars.unit) == (-12000, 55, "USD")


async def test_an_and_inside_an_amount_in_words_splits_no_batch(
        transfer: CompiledService) -> None:
    """"and" between two tasks splits them; inside "a hundred and five thousand won" it
    does not (the amount would be read as 5천원)."""
    engine = Engine(transfer, store=MemoryStore())
    done = await engine.reply("b", "wire uncle a hundred and five thousand won and auntie "
                                   "seventy thousand won")
    queued = done.state_snapshot.get("task_queue") or []
    assert (done.state_snapshot["slots"]["target"], done.state_snapshot["slots"]["amount"]) == \
        ("uncle", 105000)
    assert "2건" in done.message and len(queued) == 1


@pytest.mark.parametrize(("answer", "amount"), [  # docs/understanding.md's examples
    ("twenty-five thousand", 25000), ("a hundred thousand won", 100000), ("ten", None)])
async def test_the_documented_amounts_in_english_words(transfer: CompiledService, answer: str,
                                                       amount: int | None) -> None:
    assert (await state(transfer, ASK_AMOUNT, answer))["amount"] == amount


async def test_the_documented_first_message_and_money_type_example(
        transfer: CompiledService) -> None:
    found = await state(transfer, "send mom thirty thousand won")
    assert (found["target"], found["amount"]) == ("mom", 30000)
    assert [m.value for m in find_money("thirty thousand won")] == [30000]  # docs/dsl.md


@pytest.mark.parametrize("message", ["cancel my transfer to grandma",
                                     "refund the transfer I made to Hana",
                                     "할머니한테 송금한 거 취소해 주세요"])
async def test_undoing_a_transfer_starts_no_transfer(transfer: CompiledService,
                                                     message: str) -> None:
    engine = Engine(transfer, store=MemoryStore())
    done = await engine.reply("u", message)
    assert (done.trace.get("reading") or {}).get("intent") != "transfer"
    assert done.state_snapshot["stage"] not in ("FILLING", "READY")
