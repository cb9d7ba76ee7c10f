"""From two blind sets of 2026-11-29 written as speech-to-text writes what people say to a
voice assistant (the transfer in Korean, the pizza shop in English), each fixed as a class:

- amounts said in Hangul numerals and spaced as dictation spaces them ("칠 만원", "이십오 만
  원", "삼십 육만 원"), and ten thousands in Hangul before a verb with no 원 ("육만 보내줘");
  never a lone "이만" ("이만 할게요": this far), nor a count of other things ("오만 명");
- a month and day said in Hangul numerals ("칠월 칠일", "유월 이십오일", "시월 9일"): the last
  일 counts the day ("이십일" is the 20th, "이십일일" the 21st);
- an answer opened by the sounds one makes while thinking ("어 박지성 씨", "음 그러니까 삼촌",
  "um my uncle"), never by a word that asks to wait ("hold on", "잠깐만");
- the request said again at its confirmation with the particle said apart ("누나 한테 칠만
  원 보내 줘"): a yes, as without the space;
- a polite "if" ("if that's possible", "if it's no trouble", "if you have one") is no
  condition; a yes with it still decides nothing at a confirmation.

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import datetime as dt

import pytest

from engine.nlu.dates import find_dates
from engine.nlu.money import find_money
from tests.test_changes_at_confirmation import SINGLE, SINGLE_EN
from tests.test_plain_amounts import conversation
from tests.test_yes_forms_and_unsaid_cancels import decided_as

TODAY = dt.date(2026, 3, 11)


@pytest.mark.parametrize(("said", "amount"), [
    ("칠 만원", 70000), ("이십오 만 원", 250000), ("삼십 육만 원", 360000), ("구 만 원", 90000),
    ("팔십 만원만", 800000), ("사 만 오천 원", 45000), ("육만 보내줘", 60000),
    ("십오만 이체해 주세요", 150000), ("칠십만 송금", 700000), ("삼만 오천 부쳐줘", 35000),
])
def test_an_amount_spoken_in_hangul_numerals_is_read_whole(said: str, amount: int) -> None:
    assert [m.value for m in find_money(said)] == [amount]


@pytest.mark.parametrize("said", ["이만 할게요", "이만 가볼게요", "오만 명이 왔대",
                                  "십만 포인트 적립", "오만하다", "이 원하는 거"])
def test_a_word_that_only_looks_like_a_spoken_amount_is_none(said: str) -> None:
    assert find_money(said) == []


@pytest.mark.parametrize(("said", "day"), [
    ("칠월 칠일에 보내줘", "2026-07-07"), ("유월 이십오일", "2026-06-25"),
    ("시월 9일로", "2026-10-09"), ("십일월 십일일", "2026-11-11"), ("4월 이십일", "2026-04-20"),
    ("삼월 이십일일", "2026-03-21"), ("일월 삼일", "2027-01-03"),
])
def test_a_month_and_day_spoken_in_hangul_numerals_is_a_date(said: str, day: str) -> None:
    assert [m.value.isoformat() for m in find_dates(said, TODAY)] == [day]


@pytest.mark.parametrize("said", ["이월된 금액", "구월에 봐요", "이십일 동안"])
def test_a_month_word_with_no_day_is_no_date(said: str) -> None:
    assert find_dates(said, TODAY) == []


@pytest.mark.parametrize(("answer", "target"), [
    ("음 이모", "이모"), ("어어 박지성 씨", "박지성"), ("음 그러니까 삼촌", "삼촌"),
    ("어 작은 아빠요", "작은 아빠"), ("um my uncle", "uncle"), ("그 할머니", "할머니"),
])
async def test_an_answer_opened_while_thinking_is_the_answer(answer: str, target: str) -> None:
    said = await conversation("돈 좀 보내줘", answer)
    assert said[-1][1]["slots"]["target"] == target and said[-1][1]["stage"] == "FILLING"


@pytest.mark.parametrize("answer", ["어 잠깐만", "음 누구더라", "hold on", "uh wait", "어 글쎄요"])
async def test_a_sound_before_a_wait_or_a_question_is_no_answer(answer: str) -> None:
    said = await conversation("돈 좀 보내줘", answer)
    assert said[-1][1]["slots"]["target"] is None


async def test_the_request_said_again_with_its_particle_apart_is_a_yes() -> None:
    said = await conversation("할머니한테 6만원 보내줘", "할머니 한테 육만 원 보내 줘")
    assert said[-1][0]["decision"] == "confirm" and said[-1][1]["stage"] == "EXECUTED"


async def test_another_amount_with_the_particle_apart_is_a_change_not_a_yes() -> None:
    said = await conversation("할머니한테 6만원 보내줘", "할머니 한테 칠만 원 보내 줘")
    assert said[-1][1]["stage"] == "READY" and said[-1][1]["slots"]["amount"] == 70000


async def test_a_change_opened_with_a_sound_changes_the_value() -> None:
    said = await conversation("할머니한테 6만원 보내줘", "어 그 팔만 원으로 바꿔 줘")
    assert said[-1][1]["stage"] == "READY" and said[-1][1]["slots"]["amount"] == 80000


@pytest.mark.parametrize(("message", "size"), [
    ("could i get a large pizza with extra cheese if it's no trouble", "large"),
    ("small pizza extra cheese if that is possible thanks", "small"),
    ("a medium pizza with extra cheese if that's cool", "medium"),
])
async def test_a_polite_if_is_no_condition(message: str, size: str) -> None:
    said = await conversation(message, flow="pizza.yaml")
    assert said[-1][1]["stage"] == "READY" and said[-1][1]["slots"]["size"] == size


@pytest.mark.parametrize("message", ["a large pizza if it's cheaper than yesterday",
                                     "send dad 30k if my bonus comes in"])
async def test_an_if_that_is_a_condition_still_holds_the_request(message: str) -> None:
    flow = "pizza.yaml" if "pizza" in message else "transfer.yaml"
    said = await conversation(message, flow=flow)
    assert said[-1][1]["stage"] != "READY"


@pytest.mark.parametrize("reply", ["yes if it's no trouble", "sure if that's possible"])
async def test_a_yes_with_a_polite_if_decides_nothing(reply: str) -> None:
    await decided_as(SINGLE_EN, reply, None)


@pytest.mark.parametrize("reply", ["네 네 보내 주세요", "어 그래 보내 줘"])
async def test_a_spoken_yes_sends(reply: str) -> None:
    await decided_as(SINGLE, reply, "confirm")
