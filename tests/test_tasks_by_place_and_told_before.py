"""From the last blind sets of 2026-11-29 (several transfers in one message; the online shop's
cancels, refunds and exchanges), each fixed as a class:

- **a task of a batch named by its place decides that task only**: "두 번째는 보내줘" at the
  first transfer's confirmation sent the first (and "두 번째는 취소" cancelled it); now a
  decision or a change said of another task is none of the one asked about (asked again),
  and one said of the task asked about is read ("첫 번째는 5만원으로 바꿔줘");
- the task's own recipient with 건 ("아빠 건은 취소") decides it;
- a sentence telling what was sent before, then the request ("어제 엄마한테 1만원 보냈거든.
  오늘은 누나한테 3만원 보내줘"): only the request's values;
- a time word with its topic particle before a name is no part of it ("오늘은 누나한테": 누나);
- why, said after a request, is none of it ("ORD-1003 구매 취소요 회사에서 지급해준대서요":
  the request's values stand).

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from tests.test_plain_amounts import conversation

BATCH = "이모한테 4만원, 삼촌한테 6만원 보내줘"


@pytest.mark.parametrize("reply", ["두 번째 건은 보내 주세요", "둘째는 취소할게요",
                                   "second one yes", "2번째는 7만원으로 해줘"])
async def test_a_decision_or_change_of_another_task_is_none_of_this_one(reply: str) -> None:
    said = await conversation(BATCH, reply)
    state = said[-1][1]
    assert state["stage"] == "READY" and state["slots"]["target"] == "이모"
    assert state["slots"]["amount"] == 40000 and said[-1][0]["decision"] is None


@pytest.mark.parametrize(("reply", "target", "amount"), [
    ("첫 번째 건은 보내 주세요", "삼촌", 60000), ("첫째는 취소", "삼촌", 60000),
    ("첫 번째는 3만원으로 바꿔줘", "이모", 30000),
])
async def test_the_task_asked_about_named_by_its_place_is_read(reply: str, target: str,
                                                               amount: int) -> None:
    said = await conversation(BATCH, reply)
    assert (said[-1][1]["slots"]["target"], said[-1][1]["slots"]["amount"]) == (target, amount)


async def test_the_tasks_own_recipient_with_geon_decides_it() -> None:
    said = await conversation(BATCH, "네", "삼촌 건은 취소할게요")
    assert said[-1][0]["decision"] == "cancel" and said[-1][1]["stage"] == "CANCELLED"


@pytest.mark.parametrize(("message", "target", "amount"), [
    ("지난달에 할머니한테 20만원 드렸거든요. 이번 달은 할아버지한테 20만원 보내 주세요",
     "할아버지", 200000),
    ("그저께 민수한테 3만원 보냈어. 오늘은 지수한테 4만원 보내줘", "지수", 40000),
])
async def test_what_was_sent_before_is_told_not_asked_for(message: str, target: str,
                                                          amount: int) -> None:
    slots = (await conversation(message))[-1][1]["slots"]
    assert (slots["target"], slots["amount"]) == (target, amount)


@pytest.mark.parametrize("message", ["내일은 누나한테 2만원 보내줘", "일단 누나한테 2만원 보내줘"])
async def test_a_time_word_before_a_name_is_no_part_of_it(message: str) -> None:
    assert (await conversation(message))[-1][1]["slots"]["target"] == "누나"


async def test_why_said_after_a_request_is_none_of_it() -> None:
    said = await conversation("엄마한테 5만원 보내 주세요 아빠가 보내라고 했거든요")
    assert said[-1][1]["slots"]["amount"] == 50000 and said[-1][1]["stage"] == "READY"


@pytest.mark.parametrize(("reply", "decision", "amount"), [
    ("첫 번째는 3만원으로 바꿔줘", None, 30000), ("두 번째는 보내줘", None, 40000),
    ("second one yes", None, 40000),
])
async def test_the_examples_of_docs_dsl(reply: str, decision: str | None, amount: int) -> None:
    """docs/dsl.md, batches: a task named by its place, at the first task's confirmation."""
    said = await conversation(BATCH, reply)
    assert said[-1][0]["decision"] == decision and said[-1][1]["slots"]["amount"] == amount


async def test_the_recipient_example_of_docs_dsl() -> None:
    said = await conversation("엄마랑 아빠한테 각각 2만원씩 보내줘", "네", "아빠 건은 취소")
    assert said[-1][1]["stage"] == "CANCELLED"


async def test_a_place_past_the_choices_offered_chooses_nothing() -> None:
    """"Which one do you mean: 'replace a card', 'card status'?" answered "4" (there are two):
    the question again, no error (the table of places is the batches' own)."""
    said = await conversation("did my new card ship", "4", flow="cards.yaml")
    assert said[0][2].startswith("Which one") and said[-1][2].startswith("Which one")
    assert said[-1][1]["flow"] is None
