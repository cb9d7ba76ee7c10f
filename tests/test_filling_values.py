"""While a flow collects its values, a name or an amount in a sentence about something else —
another verb's clause, a condition, a comparison, a quote — is no value the user gave: the
rules leave it (to the model, or offline the question is asked again). An answer said any
usual way is still read."""

from __future__ import annotations

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore

ASK_TARGET, ASK_AMOUNT = "송금 좀 하려고요", "조카한테 보내줘"


async def slots_after(transfer: CompiledService, first: str, message: str) -> dict[str, object]:
    engine = Engine(transfer, store=MemoryStore())
    await engine.reply("s", first)
    done = await engine.reply("s", message)
    assert "error" not in done.trace
    return dict(done.state_snapshot["slots"])


@pytest.mark.parametrize("message", [
    "누나한테 전화 먼저 해볼게",  # another verb's clause
    "아빠한테 혼날 것 같아",
    "삼촌한테 들었는데 수수료 없대",
    "엄마가 '이모한테 보내'라고 했어",  # a quote
    "형이 허락하면 형한테",  # a condition
])
async def test_a_name_in_a_sentence_about_something_else_is_no_recipient(
        transfer: CompiledService, message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize("message", [
    "월급 들어오면 30만원",  # a condition
    "저번보다 2만원 더",  # a comparison
    "동생은 5만원 받았대",  # someone else's sentence
    "사촌이 '10만원이면 된다'고 했어",  # a quote
    "용돈 7만원 받았다",
])
async def test_an_amount_in_a_sentence_about_something_else_is_no_amount(
        transfer: CompiledService, message: str) -> None:
    assert (await slots_after(transfer, ASK_AMOUNT, message))["amount"] is None


@pytest.mark.parametrize(("first", "message", "slot", "value"), [
    (ASK_TARGET, "할머니요", "target", "할머니"),
    (ASK_TARGET, "할머니한테 보내 주세요", "target", "할머니"),
    (ASK_TARGET, "외삼촌한테 송금해줘", "target", "외삼촌"),
    (ASK_AMOUNT, "4만원이요", "amount", 40000),
    (ASK_AMOUNT, "칠만 원 보내줘", "amount", 70000),
    (ASK_AMOUNT, "12만원 이체해 주세요", "amount", 120000),
    (ASK_AMOUNT, "3만원 보내고 싶어요", "amount", 30000),
])
async def test_an_answer_said_any_usual_way_is_read(
        transfer: CompiledService, first: str, message: str, slot: str, value: object) -> None:
    assert (await slots_after(transfer, first, message))[slot] == value


@pytest.mark.parametrize("message", ["모르겠어요", "아무한테나", "쟤한테", "someone", "나요",
                                     "글쎄", "그 사람"])
async def test_a_word_that_names_nobody_is_no_recipient(transfer: CompiledService,
                                                        message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize(("first", "message", "slot"), [
    (ASK_AMOUNT, "6만원은 안 돼요", "amount"),
    (ASK_AMOUNT, "4만원은 보내지 말아줘", "amount"),
    (ASK_TARGET, "삼촌한테는 말고", "target"),
    (ASK_TARGET, "지수 말고", "target"),
    (ASK_TARGET, "이모는 아니에요", "target"),
])
async def test_a_value_said_away_with_nothing_in_its_place_is_none(
        transfer: CompiledService, first: str, message: str, slot: str) -> None:
    assert (await slots_after(transfer, first, message))[slot] is None


@pytest.mark.parametrize("message", ["이모한테서 받은 돈", "삼촌에게서 연락 왔어",
                                     "큰아버지께서 주신 거"])
async def test_someone_money_comes_from_is_no_recipient(transfer: CompiledService,
                                                         message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize("message", [
    "농협으로", "우리은행 계좌로", "페이로 보낼게", "통장으로요", "현금으로", "my bank account",
])
async def test_a_way_or_a_place_to_send_is_no_recipient(transfer: CompiledService,
                                                        message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize("message", [
    "그때 만난 사람", "어제 말한 친구", "제일 아끼는 후배", "저번에 본 사람", "다른 사람",
    "돈 빌려준 친구", "이 사람",
])
async def test_a_person_described_but_not_named_is_no_recipient(transfer: CompiledService,
                                                                message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize("message", ["5명한테 보내줘", "2명", "열 명 중에 3명한테", "4 people"])
async def test_a_count_of_people_is_no_recipient(transfer: CompiledService, message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize("name", ["박서준", "이수민", "저스틴", "Jenny", "그레이스", "다은이"])
async def test_a_name_that_starts_like_a_describing_word_is_still_a_name(
        transfer: CompiledService, name: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, name))["target"] == name


@pytest.mark.parametrize(("message", "amount"), [
    ("칠만", 70000), ("이십오만", 250000), ("사만 팔천이요", 48000), ("삼천 오백원", 3500),
    ("구천원입니다", 9000), ("십만원이면 충분해요", 100000), ("팔만 원이에요", 80000),
])
async def test_an_amount_in_hangul_words_or_with_a_copula_is_read(
        transfer: CompiledService, message: str, amount: int) -> None:
    assert (await slots_after(transfer, ASK_AMOUNT, message))["amount"] == amount


@pytest.mark.parametrize("message", ["7", "25", "99", "3이요"])
async def test_a_bare_small_number_is_no_amount_in_won(transfer: CompiledService,
                                                       message: str) -> None:
    assert (await slots_after(transfer, ASK_AMOUNT, message))["amount"] is None


@pytest.mark.parametrize("message", ["세 명한테요", "열 명", "다들한테", "그분한테요", "셋이요",
                                     "모두에게", "everyone"])
async def test_a_count_or_everyone_is_no_recipient(transfer: CompiledService,
                                                   message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize(("first", "message", "slot"), [
    (ASK_AMOUNT, "언니가 3만원 보내달라고 했어", "amount"),
    (ASK_AMOUNT, "형이 나한테 10만원 준대", "amount"),
    (ASK_AMOUNT, "어제 5만원 보냈거든요", "amount"),
    (ASK_AMOUNT, "mom told me to send 30000 won", "amount"),
    (ASK_TARGET, "사촌이 고모한테 보내래서", "target"),
])
async def test_someone_elses_words_or_money_already_sent_give_no_value(
        transfer: CompiledService, first: str, message: str, slot: str) -> None:
    assert (await slots_after(transfer, first, message))[slot] is None


@pytest.mark.parametrize(("message", "amount"), [
    ("정정합니다 4만원", 40000), ("만원인데 아 2만원으로", 20000), ("3만원 보내 아니 잠깐", None),
    ("6만원… 아니다 그냥 둘게", None),
])
async def test_a_self_correction_keeps_only_what_comes_after_it(
        transfer: CompiledService, message: str, amount: int | None) -> None:
    assert (await slots_after(transfer, ASK_AMOUNT, message))["amount"] == amount


@pytest.mark.parametrize("message", ["하나은행 계좌", "venmo", "카뱅으로", "토스 아이디로"])
async def test_a_bank_or_an_app_is_no_recipient(transfer: CompiledService, message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize(("message", "name"), [
    ("김민정 씨", "김민정"), ("최유리 씨요", "최유리"), ("유나 한테", "유나"), ("지호헌테", "지호"),
    ("은비에겨", "은비"),
])
async def test_an_honorific_a_spaced_or_misspelt_particle_leaves_the_name(
        transfer: CompiledService, message: str, name: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] == name


@pytest.mark.parametrize("message", ["형이 나한테 5만원 보내준대", "이모가 삼촌한테 3만원 보내달래",
                                     "언니가 7만원 송금했대"])
async def test_a_first_message_in_someone_elses_words_gives_no_value(
        transfer: CompiledService, message: str) -> None:
    done = await Engine(transfer, store=MemoryStore()).reply("s", message)
    assert not any((done.state_snapshot.get("slots") or {}).values())


@pytest.mark.parametrize("message", ["직원들 모두한테", "반 친구들 전부한테요"])
async def test_everyone_in_a_group_is_no_recipient(transfer: CompiledService,
                                                   message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize("message", ["언니 남친한테", "삼촌 아들한테 보내줘", "민호 여자친구",
                                     "과장님 남편분", "형 직장 동료한테"])
async def test_someones_relation_is_no_recipient(transfer: CompiledService, message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None


@pytest.mark.parametrize(("message", "name"), [
    ("우리 동생한테", "동생"), ("제 아들한테요", "아들"), ("그대로 조카한테", "조카"),
    ("회사 다니는 사촌한테", "사촌"), ("우리 부장님", "부장님"),
])
async def test_my_own_relation_is_a_recipient(transfer: CompiledService, message: str,
                                              name: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] == name


@pytest.mark.parametrize(("message", "name"), [
    ("최유나 과장님한테 7만원 보내줘", "최유나 과장님"), ("오 부장한테 3만원 송금해줘", "오 부장"),
    ("정민호 교수님께 20만원 이체해줘", "정민호 교수님"), ("한지민 씨에게 만원 보내드려", "한지민"),
    ("서준영씨한테 4만원 보내줘", "서준영"), ("Daniel 팀장님한테 5만원 보내줘", "Daniel 팀장님"),
])
async def test_a_name_said_with_its_title_or_ssi_is_the_recipient(
        transfer: CompiledService, message: str, name: str) -> None:
    done = await Engine(transfer, store=MemoryStore()).reply("s", message)
    assert done.state_snapshot["slots"]["target"] == name


@pytest.mark.parametrize(("message", "title"), [
    ("친한 과장님한테 5만원 보내줘", "과장님"), ("저희 실장님께 3만원 보내줘", "실장님"),
    ("지금 기사님한테 만원 보내줘", "기사님"),
])
async def test_a_title_after_a_word_that_is_no_name_stands_alone(
        transfer: CompiledService, message: str, title: str) -> None:
    done = await Engine(transfer, store=MemoryStore()).reply("s", message)
    assert done.state_snapshot["slots"]["target"] == title


@pytest.mark.parametrize(("message", "target"), [
    ("아니 윤서연 팀장님께 보내줘", "윤서연 팀장님"), ("정 차장님한테로 바꿔줘", "정 차장님"),
    ("이하늘 씨한테 보내줘", "이하늘"), ("박지훈 대리님한테 물어보고 할게", "엄마"),
])
async def test_a_titled_name_at_the_confirmation_changes_the_recipient(
        transfer: CompiledService, message: str, target: str) -> None:
    assert (await slots_after(transfer, "엄마한테 1만원 보내줘", message))["target"] == target


@pytest.mark.parametrize(("message", "name"), [
    ("미나요", "미나"), ("유나요", "유나"), ("세나요.", "세나"), ("지니", "지니"),
    ("예나요~", "예나"),
])
async def test_a_name_that_ends_as_questions_do_is_the_name(
        transfer: CompiledService, message: str, name: str) -> None:
    """-나요 and -니 end questions ("되나요", "있니") and many names ("미나", "지니")."""
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] == name


@pytest.mark.parametrize("message", ["되나요", "있나요", "했나요", "괜찮나요", "보냈니",
                                     "미나요?"])
async def test_a_question_in_one_word_is_no_recipient(transfer: CompiledService,
                                                      message: str) -> None:
    assert (await slots_after(transfer, ASK_TARGET, message))["target"] is None
