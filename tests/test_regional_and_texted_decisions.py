"""From four blind sets of 2026-11-29 (the transfer in the regions' dialects and as older
people type; as the young text; what is and is not a yes at the confirmation; the world's
Englishes), each fixed as a class:

- yeses, noes and cancels as the regions say them: words (하모, 맞심더, 그려, 그라제, 오냐;
  아이다, 아녀, 아니우다; 됐슈, 됐당께, 치아라, 고만, 마 됐다) and endings (보내이소, 보내유,
  보내부러, 보내주랑께, 보내줍서; 보내지 마라/맙서; 안 보낼란다), an opener that is no word of
  its own (야, 고마), the honoured giving verb (보내드려요), and "sige", "go on then", "no
  worries";
- a no typed onto a cancel ("아니요취소해주세요"), a laugh typed onto one ("취소ㅋㅋ"), a
  cancel turned down before the yes ("아니 취소 안 해요, 보내주세요");
- why, then the decision ("생신이라서요 네 보내주세요", "바빠서 취소할게요"), never "and then"
  ("퇴근해서 보내줘" waits);
- the decision said of the task's own recipient ("지수는 취소" at 지수's transfer);
- amounts and days as they are typed: "2천만", "5마넌", "3만으로" ending a change, "5만 ㄱㄱ",
  낼, tmrw; a weekday never a name ("금요일로 바꿔주세요");
- a question opened by a filler ("wait how much do i have"), and the regions' 을매 (얼마).

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import datetime as dt

import pytest

from engine.nlu.dates import find_dates
from engine.nlu.money import find_money
from tests.test_changes_at_confirmation import BATCH, SINGLE, SINGLE_EN, confirming
from tests.test_plain_amounts import conversation
from tests.test_yes_forms_and_unsaid_cancels import decided_as


@pytest.mark.parametrize("reply", [
    "하모하모 보내주소", "맞심더 그래 보내이소", "그랴 보내유", "그라제 보내부러", "예 보내줍서",
    "오냐 그래라", "암요 보내 드리세요", "야 그래 보내라", "고마 보내뿌라", "그려 그렇게 혀",
    "할머니께 보내드려요", "네 얼른 보내 드려 주세요",
])
async def test_a_yes_as_the_regions_say_it_sends(reply: str) -> None:
    await decided_as(SINGLE, reply, "confirm")


@pytest.mark.parametrize("reply", [
    "됐심더", "치아뿌라", "아니여 보내지 말어", "고만둬", "아이다 마 됐다", "됐시유",
    "아니유 안 보내유", "보내지 마이소", "됐당께 고만 두랑께",
])
async def test_a_no_or_a_cancel_as_the_regions_say_it_cancels(reply: str) -> None:
    await decided_as(SINGLE, reply, "cancel")


@pytest.mark.parametrize("reply", [
    "하모 근데 수수료는", "잉 잠깐만", "오냐 생각 좀 해보고", "야 잠깐", "그려 근데 언제 들어가유",
    "고마 ㅎㅎ", "아 맞다", "맞다 잠깐만",
])
async def test_a_regional_word_with_something_else_decides_nothing(reply: str) -> None:
    await decided_as(SINGLE, reply, None)


@pytest.mark.parametrize(("reply", "decision", "stage"), [
    (SINGLE_EN, "lovely, send it", "EXECUTED"), (SINGLE_EN, "no worries, go ahead", "EXECUTED"),
    (SINGLE_EN, "opo", "EXECUTED"), (SINGLE_EN, "sige po", "EXECUTED"),
    (SINGLE_EN, "go on then, send it through", "EXECUTED"),
])
async def test_a_yes_of_the_worlds_englishes_sends(reply: list[str], decision: str,
                                                   stage: str) -> None:
    reading, said_stage, _ = await confirming(reply, decision)
    assert reading["decision"] == "confirm" and said_stage == stage


@pytest.mark.parametrize("reply", ["no worries, let me think first", "sige wait lang"])
async def test_an_english_yes_word_with_a_wait_decides_nothing(reply: str) -> None:
    await decided_as(SINGLE_EN, reply, None)


@pytest.mark.parametrize("reply", ["아뇨취소할게요", "아니보내지마세요", "그만ㅋㅋ",
                                   "취소할래요ㅠㅠ"])
async def test_a_cancel_typed_on_to_a_no_or_a_laugh_cancels(reply: str) -> None:
    await decided_as(SINGLE, reply, "cancel")


@pytest.mark.parametrize("reply", ["아뇨 취소는 안 할게요, 보내 주세요",
                                   "아니 취소 안 한다니까 그냥 이체해"])
async def test_a_no_that_turns_a_cancel_down_then_a_yes_sends(reply: str) -> None:
    await decided_as(SINGLE, reply, "confirm")


@pytest.mark.parametrize("reply", ["급한 거라서요 네 보내주세요", "결혼식이라 확인할게요",
                                   "용돈이거든요 네 이체해 주세요", "약속한 거니까 보내줘"])
async def test_why_then_a_yes_sends(reply: str) -> None:
    await decided_as(SINGLE, reply, "confirm")


@pytest.mark.parametrize("reply", ["돈이 모자라서 취소할게요", "깜빡해서요 취소",
                                   "헷갈려서 그만할래"])
async def test_why_then_a_cancel_cancels(reply: str) -> None:
    await decided_as(SINGLE, reply, "cancel")


@pytest.mark.parametrize("reply", ["퇴근해서 보내줘", "집에 가서 보낼게", "확인해 보고 나서 보내",
                                   "잘 몰라서요 네", "5만원이라서 네"])
async def test_and_then_or_a_value_before_a_yes_sends_nothing(reply: str) -> None:
    _, stage, _ = await confirming(SINGLE, reply)
    assert stage != "EXECUTED"


async def test_the_current_recipient_as_topic_decides_that_task() -> None:
    reading, stage, _ = await confirming(SINGLE, "할머니는 취소할게요")
    assert reading["decision"] == "cancel" and stage == "CANCELLED"
    reading, stage, _ = await confirming(BATCH, "엄마는 취소")  # 엄마's was the first: sent
    assert reading["decision"] is None and stage == "READY"


@pytest.mark.parametrize(("text", "amount"), [
    ("삼촌한테 3천만 보내줘", 30_000_000), ("7마넌", 70_000), ("누나한테 팔마넌 보내", 80_000),
    ("ㄴㄴ 6만으로", 60_000), ("이모한테 4만 ㄱ", 40_000),
])
def test_amounts_as_they_are_typed(text: str, amount: int) -> None:
    assert [m.value for m in find_money(text)] == [amount]


@pytest.mark.parametrize("text", ["6만으로 살 수 있어", "5만 명", "10만 포인트로"])
def test_a_number_of_ten_thousands_of_something_else_is_no_amount(text: str) -> None:
    assert find_money(text) == []


@pytest.mark.parametrize("text", ["낼 오전에 보내줘", "낼까지", "tmr pls", "send it 2morrow"])
def test_tomorrow_typed_short(text: str) -> None:
    today = dt.date(2026, 5, 4)
    assert [m.value for m in find_dates(text, today)] == [dt.date(2026, 5, 5)]


@pytest.mark.parametrize("text", ["보낼래", "안 보낼란다", "보낼게요 낼모레"])
def test_the_nael_of_a_verb_is_no_day(text: str) -> None:
    assert all(m.text != "낼" for m in find_dates(text, dt.date(2026, 5, 4)))


@pytest.mark.parametrize(("reply", "day"), [("수요일로 바꿔주세요", 2), ("일요일로 변경해줘", 6)])
async def test_a_weekday_changed_to_is_the_date_never_the_recipient(reply: str, day: int
                                                                    ) -> None:
    (_, state, _), = (await conversation(SINGLE[0], reply))[1:]
    assert state["slots"]["target"] == "할머니"
    assert dt.date.fromisoformat(state["slots"]["when"]).weekday() == day


@pytest.mark.parametrize("message", ["uh how much money is in my account",
                                     "hmm what is my balance", "잔고 얼매 있노",
                                     "통장에 을매 남았노"])
async def test_a_balance_question_after_a_filler_or_in_dialect_is_answered(message: str
                                                                           ) -> None:
    (reading, state, said), = await conversation(message)
    assert reading["intent"] == "balance" and "잔액은" in said


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("send 20k 2 dad", "dad", 20000), ("give money my sister 15000 won", "sister", 15000),
    ("transfer some money my uncle 70k", "uncle", 70000),
])
async def test_whom_as_english_is_texted_and_learned(message: str, target: str,
                                                     amount: int) -> None:
    (_, state, _), = await conversation(message)
    assert state["stage"] == "READY" and state["slots"]["target"] == target and \
        state["slots"]["amount"] == amount


async def test_people_paid_each_with_a_go_word_are_one_task_each() -> None:
    (_, state, said), = await conversation("태민이랑 소라한테 각각 3만씩 ㄱㄱ")
    assert state["stage"] == "READY" and state["slots"]["target"] == "태민" and "2건" in said


@pytest.mark.parametrize("reply", ["딸이 다음 달에 이사 가요", "회사가 다음 주에 쉬어서요 ㅎㅎ"])
async def test_a_time_of_what_someone_else_does_asks_no_date(reply: str) -> None:
    _, stage, said = await confirming(SINGLE, reply)
    assert stage == "READY" and "날짜" not in said


async def test_a_time_of_ones_own_doing_is_still_asked_as_a_date() -> None:
    _, stage, said = await confirming(SINGLE, "제가 다음 주 중에 보낼게요")
    assert stage == "FILLING" and "날짜" in said


@pytest.mark.parametrize("reply", ["이따 할께용", "나중에 할래용"])
async def test_putting_the_decision_off_in_a_texted_ending_waits(reply: str) -> None:
    reading, stage, said = await confirming(SINGLE, reply)
    assert stage == "READY" and reading["decision"] is None and "날짜" not in said
