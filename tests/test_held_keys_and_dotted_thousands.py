"""From two blind sets of 2026-11-29 (the transfer typed fast on a phone, slips and all; the
card help desk by voice), each fixed as a class:

- a key held a moment too long after a word ("확인ㄴ", "보내줘ㅓ", "취소ㅗ", "그만해ㅐ"): the
  stray letter repeats the syllable's last letter and is dropped; two consonants are a word
  of their own ("확인ㄴㄴ" ends in a no, and decides nothing);
- thousands set apart by dots before won ("50.000원" is 50,000: won has no decimals);
- the request said again at its confirmation, typed without spaces ("이모한테4만원 보내줘");
- the no of a correction is no negation of the value after it ("no its u7", "no that's
  u12": the new id).

Every sentence here is new: none is in an eval set, a flow's tests, a blind set or another
test."""

from __future__ import annotations

import pytest

from engine.nlu.money import find_money
from engine.runtime.values.admission import clean_text
from tests.test_plain_amounts import conversation


@pytest.mark.parametrize(("typed", "read"), [
    ("확인ㄴ", "확인"), ("보내줘ㅓ", "보내줘"), ("그만해ㅐ", "그만해"), ("예ㅖ", "예"),
    ("네 보내주세요ㅛ", "네 보내주세요"), ("괜찮아요ㅛ.", "괜찮아요."),
])
def test_a_key_held_too_long_is_dropped(typed: str, read: str) -> None:
    assert clean_text(typed) == read


@pytest.mark.parametrize("typed", ["확인ㄴㄴ", "좋아ㅋㅋ", "응ㅇㅇ", "네ㅎ", "ㅇㅇ"])
def test_a_letter_that_is_no_held_key_is_kept(typed: str) -> None:
    assert clean_text(typed) == typed


@pytest.mark.parametrize(("reply", "stage"), [("확인ㄴ", "EXECUTED"), ("보내주세요ㅛ", "EXECUTED"),
                                              ("취소해ㅐ", "CANCELLED"), ("확인ㄴㄴ", "READY")])
async def test_a_decision_with_a_held_key_decides(reply: str, stage: str) -> None:
    said = await conversation("이모한테 4만원 보내줘", reply)
    assert said[-1][1]["stage"] == stage


@pytest.mark.parametrize(("said", "amount"), [("50.000원", 50000), ("1.200.000원", 1200000),
                                              ("7.500 won", 7500)])
def test_thousands_set_apart_by_dots_before_won(said: str, amount: int) -> None:
    assert [m.value for m in find_money(said)] == [amount]


def test_a_dot_before_ten_thousands_is_still_a_fraction() -> None:
    assert [m.value for m in find_money("2.5만원")] == [25000]


async def test_the_request_said_again_without_spaces_is_a_yes() -> None:
    said = await conversation("이모한테 4만원 보내줘", "이모한테4만원 보내줘")
    assert said[-1][0]["decision"] == "confirm" and said[-1][1]["stage"] == "EXECUTED"


@pytest.mark.parametrize(("correction", "user_id"), [("no its u7", "u7"),
                                                      ("um no that's u12", "u12"),
                                                      ("no u7", "u5")])
async def test_the_no_of_a_correction_does_not_negate_the_new_value(correction: str,
                                                                    user_id: str) -> None:
    said = await conversation("please verify me", "u5", correction, flow="cards.yaml")
    assert said[-1][1]["slots"]["user_id"] == user_id
