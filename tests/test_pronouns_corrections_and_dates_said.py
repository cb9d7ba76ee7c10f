"""From four more blind sets of 2026-11-29 (the transfer in English with context first; when to
send, in Korean; the card help desk as customers explain before they ask; the small shop's users
on a phone), each fixed as a class:

- "him" or "her" after the flow's verb stands for the one person named before it ("it's
  Priya's birthday, send her 120k", "I owe Hannah…, send her 33k"); two named, or none, is
  no one;
- a correction after "or actually" / "I meant" ("X or actually Y", "sorry, I meant Tom not
  Tim");
- courtesies and fillers beside an English yes ("anyway", "for real", "yaar", "with it"),
  "that's all right" is a yes, a no with "for now" after the speaker's plan is a no;
- "말일" and "the last day of the month" are dates; a request said again with its date is the
  yes; "날짜 빼고 그냥 지금으로" takes the date back; "can we do it tomorrow instead" moves it;
- a four-digit PIN is never read from inside a customer id ("u4401");
- an English keyword's doubled-consonant forms ("ship" -> shipped).

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import datetime as dt

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.nlu import find_dates
from engine.nlu.keywords import inflections
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.test_plain_amounts import FLOWS, conversation

MARCH = dt.date(2026, 3, 11)


@pytest.mark.parametrize(("message", "target"), [
    ("it's Carlos's graduation today, please send him 45k", "Carlos"),
    ("I owe Mina for the concert tickets, transfer her 62,000 won", "Mina"),
    ("my sister's rent is late again, send her 150k", "sister"),
])
async def test_him_or_her_is_the_one_person_named_before(message: str, target: str) -> None:
    said = await conversation(message)
    assert said[-1][1]["slots"]["target"] == target and said[-1][1]["stage"] == "READY"


@pytest.mark.parametrize("message", ["Carlos's and Mina's dinner, send her 30k",
                                     "send him 30k please"])
async def test_him_or_her_with_no_one_or_two_named_is_no_one(message: str) -> None:
    said = await conversation(message)
    assert said[-1][1]["slots"]["target"] is None


@pytest.mark.parametrize("reply", ["oh I meant Sam not Tom", "sorry, i meant Sam, not Tom",
                                   "Tom or actually Sam"])
async def test_a_name_corrected_as_meant(reply: str) -> None:
    said = await conversation("send Tom 40k", reply)
    assert said[-1][1]["slots"]["target"] == "Sam" and said[-1][1]["stage"] == "READY"


@pytest.mark.parametrize("reply", ["ok anyway, go ahead", "yes for real, send it",
                                   "go ahead with it yaar", "yes please, that's all right"])
async def test_an_english_yes_with_courtesies_and_fillers(reply: str) -> None:
    said = await conversation("send Tom 40k", reply)
    assert said[-1][0]["decision"] == "confirm" and said[-1][1]["stage"] == "EXECUTED"


async def test_a_no_then_the_speakers_plan_for_now_is_a_no() -> None:
    said = await conversation("send Tom 40k", "nope, i'll hand him cash for now")
    assert said[-1][0]["decision"] == "deny" and said[-1][1]["stage"] == "CANCELLED"


@pytest.mark.parametrize(("text", "iso"), [
    ("다음 달 말일까지 보내줘", "2026-04-30"), ("말일에 월세 보내", "2026-03-31"),
    ("pay it on the last day of the month", "2026-03-31"),
])
def test_the_last_day_of_a_month_is_a_date(text: str, iso: str) -> None:
    assert [m.value.isoformat() for m in find_dates(text, MARCH)] == [iso]


async def test_a_request_said_again_with_its_date_is_the_yes() -> None:
    said = await conversation("모레 이모한테 4만원 보내줘", "모레 이모한테 4만원 보내줘")
    assert said[-1][0]["decision"] == "confirm"


@pytest.mark.parametrize(("reply", "when"), [
    ("날짜는 빼고 바로 보내줘", None), ("could we do it the day after tomorrow instead", "+2"),
])
async def test_the_date_taken_back_or_moved_at_the_confirmation(reply: str,
                                                                when: str | None) -> None:
    said = await conversation("send Tom 40k tomorrow", reply)
    held = said[-1][1]["slots"]["when"]
    today = dt.date.fromisoformat(said[0][1]["slots"]["when"]) - dt.timedelta(days=1)
    assert held == (None if when is None else (today + dt.timedelta(days=2)).isoformat())
    assert said[-1][1]["stage"] == "READY"


async def test_a_pin_is_not_read_from_inside_a_customer_id() -> None:
    said = await conversation("verify me please", "u7781", "no wait, it's u7718",
                              flow="cards.yaml")
    assert said[-1][1]["slots"]["user_id"] == "u7718" and said[-1][1]["stage"] == "FILLING"


def test_a_short_keyword_doubles_its_last_consonant() -> None:
    assert {"shipped", "shipping"} <= inflections("ship")
    assert {"stopped", "logged"} <= inflections("stop") | inflections("log")
    assert "addded" not in inflections("add") and "tracked" in inflections("track")


@pytest.mark.parametrize(("message", "target"), [
    ("it's Priya's birthday, send her 120k", "Priya"),
    ("I owe Hannah for the groceries, send her 33k", "Hannah"),
])
async def test_the_examples_of_docs_understanding(message: str, target: str) -> None:
    """The sentences docs/understanding.md gives for whom "him" or "her" stands for."""
    assert (await conversation(message))[-1][1]["slots"]["target"] == target


def test_the_example_of_docs_dsl() -> None:
    """docs/dsl.md: on Thursday 2026-01-08, "말일" is 2026-01-31."""
    assert find_dates("말일", dt.date(2026, 1, 8))[0].value == dt.date(2026, 1, 31)


@pytest.mark.parametrize(("reply", "stage"), [
    ("에휴 그냥 안 할래요", "CANCELLED"), ("아이고 네 신청해 주세요", "APPLIED"), ("하아", "READY"),
])
async def test_a_sigh_before_the_answer_adds_nothing(reply: str, stage: str) -> None:
    said = await conversation("체크카드 신청할게요", reply, flow="card.yaml")
    assert said[-1][1]["stage"] == stage


@pytest.mark.parametrize("message", ["음 그 뭐더라 신용카드 하나 만들려고요",
                                     "저기 그래서 신용 카드를 새로 신청하려고 하는데요"])
async def test_searching_for_a_word_and_so_are_neither_question_nor_report(message: str) -> None:
    said = await conversation(message, flow="card.yaml")
    assert said[-1][1]["slots"]["kind"] == "credit" and said[-1][1]["stage"] == "READY"


@pytest.mark.parametrize("reply", ["네 진행해 주세요", "네 저장해 주세요", "그럼 처리해 주세요"])
async def test_a_likeness_alone_does_not_pull_a_running_flow_away(reply: str) -> None:
    """A request's ending while a review asks for its rating is a little like a refund's
    example ("환불해 주세요"): the review keeps asking, no refund starts."""
    engine = Engine(compile_file(FLOWS / "commerce.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    shopper = {"is_logged_in": True, "user_id": "u-7", "user_type": "consumer"}
    try:
        for message in ("에어팟 후기 쓸래요", reply):
            done = await engine.reply("t", message, context=shopper)
    finally:
        await engine.aclose()
    assert done.state_snapshot["flow"] == "review"
