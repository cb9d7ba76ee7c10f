"""The transfer flow read in English: a recipient said with "to", "my", "please" or a full
stop around it is the name; pronouns, times, apps, numbers, interjections and someone's
relation are no recipient; money already sent, amounts each and questions about the
service's limits give no amount; a second request at the confirmation changes nothing; a
recipient right after the verb ("send mom money") and a name answered with thanks ("Mina,
thanks") are the name, thanks alone is none."""

from __future__ import annotations

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore

ASK_TARGET = "transfer some money please"


async def slots(transfer: CompiledService, *messages: str) -> dict[str, object]:
    engine = Engine(transfer, store=MemoryStore())
    for message in messages:
        done = await engine.reply("s", message)
    return {"stage": done.state_snapshot["stage"], **(done.state_snapshot.get("slots") or {})}


@pytest.mark.parametrize(("answer", "name"), [
    ("to my aunt.", "aunt"), ("Jisoo pls", "Jisoo"), ("to Mina, please", "Mina"),
    ("our landlord", "landlord"), ("Daniel!", "Daniel"),
])
async def test_a_name_said_with_words_around_it_is_the_name(
        transfer: CompiledService, answer: str, name: str) -> None:
    assert (await slots(transfer, ASK_TARGET, answer))["target"] == name


@pytest.mark.parametrize("answer", ["haha", "tomorrow", "them", "010 9876 5432",
                                    "my cousin's husband", "to my paypal"])
async def test_words_that_name_nobody_are_no_recipient(transfer: CompiledService,
                                                       answer: str) -> None:
    assert (await slots(transfer, ASK_TARGET, answer))["target"] is None


@pytest.mark.parametrize("message", [
    "we already paid him 40k", "she just transferred 15k to me",
    "send 10k apiece to my 2 cousins", "can I transfer 3 million won at once?",
])
async def test_money_already_sent_each_or_a_limit_question_gives_no_amount(
        transfer: CompiledService, message: str) -> None:
    assert (await slots(transfer, message)).get("amount") is None


async def test_send_to_my_someone_names_them(transfer: CompiledService) -> None:
    assert (await slots(transfer, "please send 25k to my grandma"))["target"] == "grandma"


@pytest.mark.parametrize("message", ["yes, and also 5k to Jake", "ok and 20k to Lee as well",
                                     "I just sent him 30k last week"])
async def test_another_request_or_money_sent_at_the_confirmation_changes_nothing(
        transfer: CompiledService, message: str) -> None:
    after = await slots(transfer, "send 50000 won to mom", message)
    assert (after["stage"], after["amount"]) == ("READY", 50000)


@pytest.mark.parametrize(("message", "name", "amount"), [
    ("send mom money", "mom", None), ("transfer Jisu 30k", "Jisu", 30000),
    ("send my brother 50k", "brother", 50000), ("Send Grandma 20000 won", "Grandma", 20000),
    ("could you transfer Minho some money", "Minho", None),
])
async def test_a_recipient_right_after_the_verb_is_the_name(
        transfer: CompiledService, message: str, name: str, amount: int | None) -> None:
    read = await slots(transfer, message)
    assert (read["target"], read["amount"]) == (name, amount)


@pytest.mark.parametrize("message", ["send it now", "send him 10k", "send the money",
                                     "transfer some cash"])
async def test_a_pronoun_or_a_thing_after_the_verb_is_no_recipient(
        transfer: CompiledService, message: str) -> None:
    assert (await slots(transfer, message)).get("target") is None


@pytest.mark.parametrize(("answer", "name"), [
    ("Mina, thanks", "Mina"), ("Tom thank you!", "Tom"), ("Jisoo, cheers", "Jisoo"),
    ("지수한테요 고마워요", "지수"), ("민준이요, 감사합니다", "민준"),
])
async def test_a_name_answered_with_thanks_is_the_name(
        transfer: CompiledService, answer: str, name: str) -> None:
    assert (await slots(transfer, ASK_TARGET, answer))["target"] == name


@pytest.mark.parametrize("answer", ["thanks", "고마워", "thank you so much", "감사합니다"])
async def test_thanks_alone_is_no_recipient(transfer: CompiledService, answer: str) -> None:
    assert (await slots(transfer, ASK_TARGET, answer))["target"] is None


AT_READY = "send 20000 won to Mina"


@pytest.mark.parametrize("reply", [
    "change the date to friday", "move it to monday", "push it to next week",
    "switch it to the weekend please", "can you move it to Thursday?", "to tuesday then",
])
async def test_a_day_after_to_at_the_confirmation_is_no_recipient(
        transfer: CompiledService, reply: str) -> None:
    assert (await slots(transfer, AT_READY))["stage"] == "READY"
    assert (await slots(transfer, AT_READY, reply))["target"] == "Mina"


@pytest.mark.parametrize(("reply", "name"), [
    ("send it to June instead", "June"), ("no, to Sunny", "Sunny"), ("to May then", "May"),
])
async def test_a_name_like_a_month_or_the_weather_is_still_a_name(
        transfer: CompiledService, reply: str, name: str) -> None:
    assert (await slots(transfer, AT_READY, reply))["target"] == name
