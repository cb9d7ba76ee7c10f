"""Stories told in English around a request, and asides that are no request, each class with
sentences of its own (none from the blind sets that found them):

- a story with sums before the request ("…, so send X N"), a sum worked out after the last
  "so", what is told after the request ("send X N. she covered …"): the request's values;
- a request for a text message never becomes a transfer by its values alone;
- a leading "don't use X" with the value to use is a correction, not a cancel;
- a why that tells of someone ("…, my sister's coming too") keeps its "too" and its numbers;
- a time in someone else's plan ("…다음 달에 받겠대요") or in a clause of why ("…이사라서")
  is no date to ask for; a sum worked out in a clause of why leaves the amount after it exact;
- "보내 주게" (as older people ask) is a request and a yes; code-switched amounts ("2만
  transfer");
- a sentence of why after a change or a yes, a day in a clause of why or of a story, and how
  long something was used ("for 2 years") are the story's, never the task's values.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.nlu.money import find_money
from engine.runtime.understanding.stories import story_en_off
from tests.played import play

ROOT = Path(__file__).resolve().parents[1]
TRANSFER = compile_file(ROOT / "flows" / "transfer.yaml")
CARDS = compile_file(ROOT / "flows" / "cards.yaml")
PIZZA = compile_file(ROOT / "flows" / "pizza.yaml")


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("the concert tickets were 180k for the three of us, so send Nora 60k", "Nora", 60000),
    ("I just got paid, 2,800,000 won, and my sister helped me last month. Send my sister "
     "100k.", "sister", 100000),
    ("groceries came to 96k and Ben paid for everything, but send Ben 48k", "Ben", 48000),
    ("please send Ivy 25k. she covered the cab on the 2nd when my phone died", "Ivy", 25000),
])
async def test_an_english_story_keeps_its_sums_and_days(message: str, target: str,
                                                        amount: int) -> None:
    played = await play(TRANSFER, [message])
    assert (played.stage, played.slots["target"], played.slots["amount"],
            played.slots["when"]) == ("READY", target, amount, None)
    assert "(1/" not in played.message


@pytest.mark.parametrize(("text", "kept"), [
    ("the cabin was 300k split between the three of us so 100k", "100k"),
    ("send dad 20k. mom 30k", "send dad 20k. mom 30k"),
    ("send a new card, my phone is 010-1212-3434", "send a new card, my phone is 010-1212-3434"),
    ("sure, my id is u900", "sure, my id is u900"),
])
def test_what_the_english_story_cutter_keeps(text: str, kept: str) -> None:
    assert story_en_off(text) == kept


@pytest.mark.parametrize("message", ["아빠한테 메시지 좀 보내줘. 어제 부쳐주신 5만원 고맙다고",
                                     "누나한테 문자 보내줘 3만원 잘 받았다고"])
async def test_a_text_message_is_never_a_transfer_by_its_values(message: str) -> None:
    played = await play(TRANSFER, [message])
    assert played.snapshot.get("flow") != "transfer" and "이체할까요" not in played.message


@pytest.mark.parametrize("answer", ["don't text 010-3434-5656, use 010-7878-9090",
                                    "do not use my old one, use 010-7878-9090"])
async def test_dont_use_x_with_the_value_to_use_is_a_correction(answer: str) -> None:
    played = await play(CARDS, ["my card cracked, I need a replacement", answer],
                        slots={"user_id": "u5"})
    assert (played.stage, played.slots["phone"], played.finished) == \
        ("READY", "010-7878-9090", [])


async def test_dont_need_it_still_cancels() -> None:
    played = await play(CARDS, ["my card cracked, I need a replacement",
                                "forget it, I don't need a new one"], slots={"user_id": "u5"})
    assert [t["outcome"] for t in played.finished] == ["CANCELLED"]


@pytest.mark.parametrize("change", ["make it large, my sister's coming too",
                                    "large please, his friends are joining and they eat a lot"])
async def test_a_why_that_tells_of_someone_keeps_the_change(change: str) -> None:
    played = await play(PIZZA, ["small pizza, no extra cheese", change])
    assert played.message.startswith("Change the size from small to large?")


@pytest.mark.parametrize(("reply", "when"), [
    ("민지가 원래 3만원 받기로 했는데 만원은 다음 주에 받겠대요", None),
    ("다음 달에 전학이라서 민지한테 3만원 보내줘", None),
])
async def test_a_time_of_another_plan_or_of_a_why_is_no_date(reply: str,
                                                             when: str | None) -> None:
    played = await play(TRANSFER, ["민지한테 3만원 보내줘", reply])
    assert (played.stage, played.slots["when"]) == ("READY", when)


async def test_a_sum_worked_out_in_a_why_leaves_the_amount_exact() -> None:
    played = await play(TRANSFER, ["셋이 나눠 내기로 해서 동생한테 만 이천원 보내줘"])
    assert (played.stage, played.slots["amount"]) == ("READY", 12000)


@pytest.mark.parametrize("request_", ["손자한테 5만원 보내 주게", "손자한테 5만원 좀 보내 주게나"])
async def test_an_elders_request_and_yes(request_: str) -> None:
    played = await play(TRANSFER, [request_, "그래, 보내 주게"])
    assert [t["outcome"] for t in played.finished] == ["EXECUTED"]


@pytest.mark.parametrize(("text", "amount"), [("2만 transfer 해주세요", 20000),
                                              ("3.5만 send 부탁해", 35000)])
def test_a_code_switched_amount_is_read(text: str, amount: int) -> None:
    assert [m.value for m in find_money(text)] == [amount]


@pytest.mark.parametrize(("change", "when"), [
    ("아 내일 말고 금요일로 해줘. 어차피 그날 용돈 받거든", "2026-03-13"),
    ("모레로 미뤄줘. 엄마가 어제 3만원 주셨거든", "2026-03-13"),
])
async def test_a_sentence_of_why_after_a_change_is_the_story(change: str, when: str) -> None:
    played = await play(TRANSFER, ["동생한테 내일 2만원 보내줘", change])
    assert (played.stage, played.slots["when"], played.slots["amount"], played.finished) == \
        ("READY", when, 20000, [])


async def test_a_sentence_of_why_after_a_change_reasons_first() -> None:
    played = await play(TRANSFER, ["동생한테 내일 2만원 보내줘",
                                   "삼촌 제사가 토요일이라 다들 바빠. 월요일로 바꿔줘"])
    assert (played.stage, played.slots["when"]) == ("READY", "2026-03-16")


async def test_a_yes_with_a_sentence_of_why_after_it_sends() -> None:
    played = await play(TRANSFER, ["고모한테 4만원 보내줘",
                                   "응 고모한테 4만원 보내줘. 고모가 지난주에 반찬을 보내주셨거든"])
    assert [t["outcome"] for t in played.finished] == ["EXECUTED"]


@pytest.mark.parametrize(("message", "when"), [
    ("할머니 팔순이 5월 2일이라 선물값 내일 할머니한테 20만원 보내줘", "2026-03-12"),
    ("조카 생일이 지난 토요일이었는데 놓쳤어 ㅠㅠ 모레 조카한테 3만원 보내줘", "2026-03-13"),
    ("지난달 3일에 빌린 돈 갚을게 민호한테 5만원 보내줘", None),
])
async def test_a_day_of_the_story_is_no_transfer_date(message: str, when: str | None) -> None:
    played = await play(TRANSFER, [message])
    assert (played.stage, played.slots["when"]) == ("READY", when)


async def test_a_cancel_after_a_told_day_cancels() -> None:
    played = await play(TRANSFER, ["민호한테 모레 5만원 보내줘",
                                   "모임이 다음 주 금요일로 바뀌었대. 보내지 마"])
    assert [t["outcome"] for t in played.finished] == ["CANCELLED"]


SHOP = compile_file(ROOT / "flows" / "commerce.yaml")


@pytest.mark.parametrize("message", [
    "I've had the Galaxy Buds3 for 2 years and want to write a review",
    "버즈3 6개월 썼는데 리뷰 쓸래요"])
async def test_how_long_is_no_rating(message: str) -> None:
    played = await play(SHOP, [message], context={"is_logged_in": True, "user_id": "u-1",
                                                  "user_type": "consumer"})
    assert played.slots.get("rating") is None


@pytest.mark.parametrize("answer", ["my previous number was 010-2020-3030, now it's 010-4040-5050",
                                    "010-2020-3030 is my old one, use 010-4040-5050"])
async def test_the_old_value_gives_way_to_the_new(answer: str) -> None:
    played = await play(CARDS, ["my card cracked, I need a replacement", answer],
                        slots={"user_id": "u5"})
    assert (played.stage, played.slots["phone"]) == ("READY", "010-4040-5050")


async def test_two_values_said_alike_are_still_asked() -> None:
    played = await play(CARDS, ["my card cracked, I need a replacement",
                                "010-2020-3030 or 010-4040-5050"], slots={"user_id": "u5"})
    assert played.stage == "FILLING" and played.slots["phone"] is None


@pytest.mark.parametrize(("answer", "target"), [("지난주에 이사 도와준 형한테", "형"),
                                                ("어제 밥 사준 누나한테", "누나")])
async def test_what_someone_did_is_no_part_of_their_name_nor_a_day(answer: str,
                                                                   target: str) -> None:
    played = await play(TRANSFER, ["3만원 보내줘", answer])
    assert (played.stage, played.slots["target"], played.slots["when"]) == \
        ("READY", target, None)


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("피자값 4만원 중에 반은 내가 내야 해서 지호한테 2만원 보내줘", "지호", 20000),
    ("어제 택시비 민재가 냈대 민재한테 9천원 보내줘", "민재", 9000),
    ("중고로 자전거 20만원짜리를 15만원에 샀어 ㅋㅋ 판매자한테 15만원 보내줘", "판매자", 150000),
    ("손녀한테 5만원 보내 주게. 작년엔 3만원 줬는데 올해는 더 줘야지", "손녀", 50000),
])
async def test_a_sum_of_the_story_is_not_the_requests(message: str, target: str,
                                                      amount: int) -> None:
    played = await play(TRANSFER, [message])
    assert (played.stage, played.slots["target"], played.slots["amount"]) == \
        ("READY", target, amount)


@pytest.mark.parametrize("reply", ["네, 오늘이 마감이니까 보내주세요", "응 약속한 거니까 보내줘"])
async def test_a_yes_on_both_sides_of_why_sends(reply: str) -> None:
    played = await play(TRANSFER, ["과외 선생님한테 20만원 보내줘", reply])
    assert [t["outcome"] for t in played.finished] == ["EXECUTED"]


@pytest.mark.parametrize("reply", ["취소, 급하니까 보내주세요", "네 근데 비싸니까 보내지 마"])
async def test_a_why_between_two_decisions_that_differ_waits(reply: str) -> None:
    played = await play(TRANSFER, ["과외 선생님한테 20만원 보내줘", reply])
    assert played.finished == [] and played.stage == "READY"
