"""A request told with the story around it, each class with sentences of its own (none from
the blind sets that found them):

- sentences before the request that only tell, with sums or people of their own ("…35만원이었고
  엄마가 반을 냈대. 동생한테 …"): the request's values are the asking sentence's;
- a clause that prices a thing or passes on what was heard ("가방이 12만원인데 …", "…나왔다는데
  …"), or tells what was ("어린이날이었는데"): its sum or date is nobody's request;
- words that open a sentence with a surname's syllable are no one ("남은돈 3만원", "여기서");
- "-면 될 것 같아서" (that would do), "-지 뭐야" (a sigh), "누구냐면" (the answer's opening),
  "요약하면" (in short) are no condition and no question;
- at the confirmation: insisting with 달라 is a yes, a glad remark beside a yes is read with it,
  why and then a cancel cancels, a change after "아 아니다," or with a heard why is taken,
  "before sending" asks the other question now; nothing is sent without a plain yes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.nlu import names, persons
from engine.nlu.phrases import is_question
from engine.runtime.understanding.stories import priced_off, story_off
from tests.played import play
from tests.test_shoppers_and_card_desk_answers import shop

ROOT = Path(__file__).resolve().parents[1]
TRANSFER = compile_file(ROOT / "flows" / "transfer.yaml")


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("동생 학원비가 한 달에 35만원이었고 엄마가 반을 냈대. 나머지는 내가 내기로 했어. "
     "동생한테 17만 5천원 보내줘", "동생", 175000),
    ("지난달 관리비가 24만원 나왔어요. 룸메이트랑 반씩 내기로 했거든요. 룸메이트한테 12만원 "
     "보내주세요.", "룸메이트", 120000),
    ("작년 이맘때 삼촌이 30만원 주셨는데 이번엔 내가 드리고 싶어. 삼촌께 20만원 보내드려",
     "삼촌", 200000),
    ("회비가 1인당 4만원이고 총무가 바뀌었대요. 새 총무 강다은 씨한테 4만원 보내주세요.",
     "강다은", 40000),
])
async def test_a_story_before_the_request_keeps_its_sums_to_itself(message: str, target: str,
                                                                   amount: int) -> None:
    played = await play(TRANSFER, [message])
    assert (played.stage, played.slots["target"], played.slots["amount"]) == \
        ("READY", target, amount)
    assert "(1/2)" not in played.message and played.finished == []


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("가방이 12만원인데 누나한테 4만원 보내줘", "누나", 40000),
    ("수리비가 8만원 나왔다는데 아빠한테 3만원만 보내드려", "아빠", 30000),
    ("콘서트 표가 15만원짜리인데 친구한테 7만 5천원 보내줘", "친구", 75000),
    ("택시비가 2만원 조금 넘는데 동생한테 만원 보내줘", "동생", 10000),
])
async def test_a_priced_or_heard_clause_is_no_task(message: str, target: str,
                                                  amount: int) -> None:
    played = await play(TRANSFER, [message])
    assert (played.stage, played.slots["target"], played.slots["amount"]) == \
        ("READY", target, amount)
    assert "(1/2)" not in played.message


async def test_a_date_told_of_what_was_is_no_transfer_date() -> None:
    played = await play(TRANSFER, ["5월 5일이 어린이날이었는데 조카한테 3만원 보내줘"])
    assert (played.stage, played.slots["amount"], played.slots["when"]) == \
        ("READY", 30000, None)


@pytest.mark.parametrize("message", ["남은돈 3만원 동생한테 보내줘", "여기서 5만원 아빠한테 보내줘",
                                     "마지막 2만원 언니한테 보내줘", "오늘도 만원 엄마한테 보내줘"])
async def test_an_opening_word_with_a_surnames_syllable_is_no_one(message: str) -> None:
    played = await play(TRANSFER, [message])
    assert played.slots["target"] in {"동생", "아빠", "언니", "엄마"}


@pytest.mark.parametrize("word", ["남은돈", "여기서", "거기서", "오랜만", "지난번"])
def test_words_are_no_full_names(word: str) -> None:
    assert not persons.full_name(word)


@pytest.mark.parametrize(("text", "asks"), [
    ("바빠서 결국 못 갔지 뭐예요. 엄마한테 5만원 보내주세요", False),
    ("누구냐면 제 사촌이에요", False),
    ("왜냐면 오늘이 마감이라서요", False),
    ("못 갔지 뭐야?", True),
    ("누구한테 보냈지?", True),
])
def test_a_sigh_or_an_answers_opening_is_no_question(text: str, asks: bool) -> None:
    assert is_question(text) is asks


@pytest.mark.parametrize(("text", "conditional"), [
    ("제가 내면 될 것 같아서 이모한테 3만원 보내줘", False),
    ("요약하면 ORD-1002 환불이요", False),
    ("간단히 말하면 환불해 주세요", False),
    ("돈 들어오면 보내줘", True),
])
def test_a_way_of_saying_is_no_condition(text: str, conditional: bool) -> None:
    assert names.conditional(text) is conditional


def test_the_story_and_price_cutters_keep_a_task_said_first() -> None:
    both = "엄마한테 3만원. 아빠한테 5만원 보내줘"
    assert story_off(both) == both
    assert priced_off("엄마한테 2만원이고 아빠한테 3만원 보내줘") == \
        "엄마한테 2만원이고 아빠한테 3만원 보내줘"
    assert story_off("식비가 6만원이었어. 동생한테 3만원 보내줘") == "동생한테 3만원 보내줘"


REQUEST = "형한테 6만원 보내줘"


@pytest.mark.parametrize("reply", ["이체해 달라구요", "송금해달라니까요",
                                   "형한테 6만원 보내 달라고요"])
async def test_insisting_with_dalla_is_a_yes(reply: str) -> None:
    played = await play(TRANSFER, [REQUEST, reply])
    assert [t["outcome"] for t in played.finished] == ["EXECUTED"]


async def test_someone_elses_insisting_is_no_yes() -> None:
    played = await play(TRANSFER, [REQUEST, "누나가 보내 달라고요"])
    assert (played.stage, played.finished) == ("READY", [])


@pytest.mark.parametrize("reply", ["네 보내주세요. 형이 엄청 반가워하겠네요",
                                   "응 보내줘! 다행이다 ㅎㅎ",
                                   "yes please. he'll be so glad"])
async def test_a_glad_remark_beside_a_yes_is_read_with_it(reply: str) -> None:
    played = await play(TRANSFER, [REQUEST, reply])
    assert [t["outcome"] for t in played.finished] == ["EXECUTED"]


@pytest.mark.parametrize("reply", ["네 보내주세요. 형이 화내겠다",
                                   "네 보내주세요. 형이 좋아하겠다 근데 잠깐",
                                   "형이 좋아하겠다"])
async def test_any_other_remark_leaves_the_question(reply: str) -> None:
    played = await play(TRANSFER, [REQUEST, reply])
    assert (played.stage, played.finished) == ("READY", [])


@pytest.mark.parametrize("reply", ["아 형이 방금 필요 없대요. 취소해 주세요",
                                   "생각해보니 형이 지난주에 빌려간 게 있네. 안 보낼래"])
async def test_why_and_then_a_cancel_cancels(reply: str) -> None:
    played = await play(TRANSFER, [REQUEST, reply])
    assert [t["outcome"] for t in played.finished] == ["CANCELLED"]


async def test_why_with_a_sum_and_then_a_cancel_waits() -> None:
    played = await play(TRANSFER, [REQUEST, "형이 4만원이면 된대. 보내지 마"])
    assert (played.stage, played.finished) == ("READY", [])


@pytest.mark.parametrize(("reply", "slot", "value"), [
    ("아 아니다, 계좌가 바뀌어서 형수님한테 보내야 돼요", "target", "형수님"),
    ("아 그게 아니라 형이 반은 낸대서 3만원으로 해줘", "amount", 30000),
    ("다시 생각해봤는데 4만원으로 할게요", "amount", 40000),
])
async def test_a_change_after_a_correction_opener_or_a_heard_why_is_taken(
        reply: str, slot: str, value: object) -> None:
    played = await play(TRANSFER, [REQUEST, reply])
    assert (played.stage, played.slots[slot], played.finished) == ("READY", value, [])


@pytest.mark.parametrize("reply", ["송금하기 전에 잔액 먼저 볼게요",
                                   "잠깐 보내기 전에 잔액 얼마야"])
async def test_before_sending_the_other_question_is_answered_now(reply: str) -> None:
    played = await play(TRANSFER, [REQUEST, reply])
    assert "잔액은" in played.message and played.stage == "READY"
    assert [t["outcome"] for t in played.finished if t["outcome"] == "EXECUTED"] == []


def test_a_withdrawal_of_an_order_asks_which_kind() -> None:
    assert shop("ORD-1003 주문 철회 부탁드립니다", "after_sales", "INIT") == \
        {"order_id": "ORD-1003"}


def test_a_typo_owned_before_the_number_keeps_the_number() -> None:
    assert shop("아 영어 O로 쳤네요 ORD-1005", "after_sales", "FILLING", asked="order_id") == \
        {"order_id": "ORD-1005"}


def test_in_short_then_the_request_is_read() -> None:
    assert shop("정리하면 ORD-1005 교환이요", "after_sales", "INIT") == \
        {"order_id": "ORD-1005", "kind": "exchange"}
