"""From two blind transfer sets of 2026-11-29 (several transfers at once and interruptions;
tricks with hidden characters and hostile text), each fixed as a class:

- a yes with an invisible character inside a word ("ye\\u200bs", "확\\u200d인") is read
  through for its values but is never the user's own clear yes: nothing is sent;
- a change said in a sentence of its own after others ("…퇴근이 늦었어. 그러니까 결론은,
  아빠로 바꿔줘.") is the change, asked again;
- transfers written as a list with no particles ("외삼촌 4만원, 고모부 2만원", one a line, or
  numbered), people joined with their honorifics ("김지훈 씨랑 이수진 님한테 각각"), a
  relation with its kin word cut whole ("… 그리고 막내 고모한테 …");
- at a batch's confirmation, which task a change or a cancel is about ("이번 건은 2만원으로",
  "아빠 건은 …", "이건 취소할게", "역시 취소"), and one's own yes beside someone else's ("나도
  좋아 보내줘").

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from engine.runtime.values.admission import hides_in_words
from tests.test_changes_at_confirmation import SINGLE, confirming
from tests.test_plain_amounts import conversation
from tests.test_yes_forms_and_unsaid_cancels import decided_as


@pytest.mark.parametrize("reply", ["o\u200bk", "보\u2060내\u2060줘", "네\u200c네", "y\u00ades"])
async def test_a_yes_with_a_character_hidden_inside_sends_nothing(reply: str) -> None:
    reading, stage, _ = await confirming(SINGLE, reply)
    assert reading["decision"] is None and stage == "READY"


async def test_a_hidden_character_at_the_edge_is_still_the_yes() -> None:
    await decided_as(SINGLE, "\ufeff네 보내주세요\u200b", "confirm")


def test_hidden_inside_a_word_is_told_apart_from_an_emoji() -> None:
    assert hides_in_words("확\u200d인") and not hides_in_words("네 👨\u200d👩\u200d👧")


async def test_a_change_in_a_sentence_of_its_own_after_a_story_is_the_change() -> None:
    *_, (_, state, said) = await conversation(
        "할머니한테 6만원 보내줘", "오늘 아침에 버스를 놓쳐서 지각했어. 그래서 정신이 없네. "
        "그러니까 결론은, 금액을 4만원으로 바꿔줘.")
    assert state["stage"] == "READY" and state["slots"]["amount"] == 40000 and "4만원" in said


@pytest.mark.parametrize(("message", "first", "tasks"), [
    ("외삼촌 4만원, 고모부 2만원 보내줘", "외삼촌", 2),
    ("송금 세 건이요\n이수진 3만원\n김지훈 2만원\n박서연 1만원", "이수진", 3),
    ("1) 고모 2만원 2) 이모부 3만원 이렇게 이체해줘", "고모", 2),
    ("김지훈 씨랑 이수진 님한테 각각 만원씩 보내줘", "김지훈", 2),
])
async def test_a_list_of_transfers_is_one_task_each(message: str, first: str,
                                                   tasks: int) -> None:
    (_, state, said), = await conversation(message)
    assert state["stage"] == "READY" and state["slots"]["target"] == first
    assert f"총 {tasks}건" in said


async def test_a_relations_kin_word_stays_with_it_in_a_batch() -> None:
    *_, (_, state, said) = await conversation("큰삼촌한테 2만원 그리고 막내 고모한테 3만원 보내줘",
                                               "네")
    assert state["slots"]["target"] == "막내 고모" and "막내 고모" in said


@pytest.mark.parametrize(("reply", "amount"), [("이번 건은 2만원으로 해줘", 20000),
                                               ("할머니 건은 칠만원으로 바꿔줘", 70000)])
async def test_a_change_said_of_this_task_is_read(reply: str, amount: int) -> None:
    *_, (_, state, _) = await conversation(*SINGLE, reply)
    assert state["stage"] == "READY" and state["slots"]["amount"] == amount


@pytest.mark.parametrize(("reply", "decision"), [("이건 취소할게", "cancel"),
                                                 ("역시 그냥 취소해줘", "cancel"),
                                                 ("저도 좋아요 보내주세요", "confirm")])
async def test_which_task_and_whose_yes_beside_a_decision(reply: str, decision: str) -> None:
    await decided_as(SINGLE, reply, decision)

