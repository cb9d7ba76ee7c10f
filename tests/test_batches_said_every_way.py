"""Several transfers in one message, listed and decided every way people put them, each
class with sentences of its own (none from the blind sets that found them):

- a cancel of all of them ("전부 취소해 주세요", "나머지 다 취소") cancels the tasks waiting
  too; a plain cancel only the one asked about; "all" said with a yes is no yes ("보내 보내
  전부 보내 ㅋㅋㅋ");
- a list numbered inline ("1) … 2) …"), items joined after an amount ("2만원이랑 한지원 씨
  5만원"), an item that names its person in Latin letters ("…, Tom 20k") or with a kin word
  glued on ("큰이모", "사촌누나"): each item its own task with its own person;
- a change said of the task's own person with 씨 ("한지원 씨는 6만원으로 해줘") is a change;
- what others said, told before the request ("…하라고 하던데"), leaves the request's values;
- "oops" between two values takes back the first; "should be 52k" is said, not asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from tests.played import play

ROOT = Path(__file__).resolve().parents[1]
CARDS = compile_file(ROOT / "flows" / "cards.yaml")
TRANSFER = compile_file(ROOT / "flows" / "transfer.yaml")
THREE = "김정수 2만원, 이영희 3만원, 박민지 4만원 보내줘"


def outcomes(finished: list[dict[str, object]]) -> list[object]:
    return [task["outcome"] for task in finished]


@pytest.mark.parametrize("cancel", ["전부 취소해 주세요", "하나도 보내지 마", "cancel all of them"])
async def test_a_cancel_of_all_cancels_the_tasks_waiting_too(cancel: str) -> None:
    played = await play(TRANSFER, [THREE, cancel])
    assert outcomes(played.finished) == ["CANCELLED"] * 3 and played.stage == "CANCELLED"


async def test_the_rest_cancelled_after_one_sent() -> None:
    played = await play(TRANSFER, [THREE, "응", "나머지 다 취소"])
    assert outcomes(played.finished) == ["EXECUTED", "CANCELLED", "CANCELLED"]


async def test_a_plain_cancel_cancels_the_one_asked_about() -> None:
    played = await play(TRANSFER, [THREE, "취소"])
    assert outcomes(played.finished) == ["CANCELLED"]
    assert (played.stage, played.slots["target"]) == ("READY", "이영희")


async def test_all_said_with_a_mocking_yes_is_no_yes() -> None:
    played = await play(TRANSFER, [THREE, "보내 보내 전부 보내 ㅋㅋㅋ"])
    assert played.finished == [] and played.stage == "READY"


@pytest.mark.parametrize(("message", "second"), [
    ("1) 이모 3만원 2) 고모 4만원", "고모"),
    ("정민수 2만원이랑 한지원 씨 5만원 보내줘", "한지원"),
    ("이모 3만원, Tom 20k 보내줘", "Tom"),
    ("큰이모 5만원, 사촌누나 2만원 보내줘", "사촌누나"),
])
async def test_each_item_of_a_list_is_a_task_with_its_person(message: str,
                                                              second: str) -> None:
    played = await play(TRANSFER, [message, "응"])
    assert outcomes(played.finished) == ["EXECUTED"]
    assert (played.stage, played.slots["target"]) == ("READY", second)


async def test_an_english_request_names_no_verb_as_a_person() -> None:
    played = await play(TRANSFER, ["Transfer 30,000 won to my dad"])
    assert played.slots["target"] == "dad"


async def test_a_change_of_the_tasks_own_person_said_with_ssi() -> None:
    played = await play(TRANSFER, ["정민수 2만원이랑 한지원 씨 5만원 보내줘", "응",
                                   "한지원 씨는 6만원으로 해줘"])
    assert (played.slots["target"], played.slots["amount"]) == ("한지원", 60000)
    assert outcomes(played.finished) == ["EXECUTED"]


async def test_what_others_said_before_the_request_is_the_story() -> None:
    played = await play(TRANSFER, ["아빠가 용돈 주라고 하던데 동생한테 3만원 보내줘"])
    assert (played.stage, played.slots["target"], played.slots["amount"]) == (
        "READY", "동생", 30000)


async def test_oops_takes_back_the_value_before_it() -> None:
    played = await play(TRANSFER, ["send Tom 30k oops 35k"])
    assert played.slots["amount"] == 35000
    played = await play(CARDS, ["replace my damaged card", "010-1111-2222 whoops 010-1111-3333"],
                        slots={"user_id": "u8"})
    assert played.slots["phone"] == "010-1111-3333"


async def test_should_be_is_said_not_asked() -> None:
    played = await play(TRANSFER, ["send Tom 25k", "sorry, should be 52k"])
    assert (played.stage, played.slots["amount"]) == ("READY", 52000)
