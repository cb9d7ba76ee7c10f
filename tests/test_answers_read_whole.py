"""Classes of everyday answers the rules read whole.

- A leading cancel followed only by why ("never mind, it turned up in my bag", "됐어요
  나중에 직접 할게요") cancels the task; followed by a question, a value or a contrast
  ("취소 말고 5만원으로 해줘") it does not.
- A filled name said away and another put in its place ("아빠 말고 삼촌이요", "not dad but
  grandma") replaces it, whatever is being asked.
- A sentence ("아 졸리다 진짜", "I just got home") is no bare name; mid-flow it is small talk,
  and saying one does not know is a failed try at the question.
- 그냥 ("just") is a filler a decision may carry ("아니 그냥 취소해" cancels).
- A slot looked for only when asked (``extract.asked_only``: a PIN, so that any number is
  not taken for one) is read when the message names it right before its value ("pin:
  4321" while the customer id is asked).

The messages are new members of each class: none of them is in an eval set or a flow.
"""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.nlu import default_words, yes_no
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done
from engine.store import MemoryStore
from tests.conftest import ROOT

CARDS, TRANSFER = ROOT / "flows" / "cards.yaml", ROOT / "flows" / "transfer.yaml"
REPLACING = ["I need a replacement card", "u42", "1234"]


async def done_after(flow: str, before: list[str], message: str) -> Done:
    """The DONE of ``message`` in a fresh session of ``flow`` after the ``before`` turns."""
    engine = Engine(compile_file(flow), store=MemoryStore())
    for said in before:
        await engine.reply("s", said)
    return await engine.reply("s", message)


async def reply_after(flow: str, before: list[str], message: str) -> dict[str, object]:
    done = await done_after(flow, before, message)
    return {"stage": done.state_snapshot["stage"], "slots": done.state_snapshot["slots"],
            "decision": done.trace["reading"]["decision"]}


@pytest.mark.parametrize("flow, before, message", [
    (CARDS, REPLACING, "forget about it, I found my card"),
    (CARDS, REPLACING, "never mind, it turned up in my bag"),
    (CARDS, REPLACING, "cancel, I'll do it later"),
    (TRANSFER, ["엄마한테 송금해줘"], "취소할게요, 생각해보니 필요 없네요"),
    (TRANSFER, ["엄마한테 송금해줘"], "됐어요 나중에 직접 할게요"),
])
async def test_a_leading_cancel_with_only_its_reason_cancels(
        flow: str, before: list[str], message: str) -> None:
    read = await reply_after(str(flow), before, message)
    assert (read["stage"], read["decision"]) == ("CANCELLED", "cancel")


@pytest.mark.parametrize("flow, before, message, stage", [
    (CARDS, REPLACING, "never mind, what's the fee?", "FILLING"),  # a question
    (CARDS, REPLACING, "cancel that, make it express", "FILLING"),  # a value: a change
    (CARDS, REPLACING, "forget it but it is damaged", "FILLING"),  # a contrast
    (TRANSFER, ["엄마한테 송금해줘"], "취소 말고 5만원으로 해줘", "READY"),
    (TRANSFER, ["엄마한테 송금해줘"], "그만할래 수수료가 얼마야?", "FILLING"),
])
async def test_a_leading_cancel_with_a_question_a_value_or_a_contrast_does_not_cancel(
        flow: str, before: list[str], message: str, stage: str) -> None:
    read = await reply_after(str(flow), before, message)
    assert read["stage"] == stage and read["decision"] != "cancel"


@pytest.mark.parametrize("message", ["verify u42 pin 1234", "u42, pin: 4321",
                                     "id u42 and the pin would be 1111"])
async def test_an_asked_only_slot_named_before_its_value_is_read(message: str) -> None:
    read = await reply_after(str(CARDS), ["I want to verify my identity"], message)
    assert read["stage"] == "VERIFIED"


@pytest.mark.parametrize("message", ["u42 from branch 1234", "u42, 4321"])
async def test_an_asked_only_slot_is_not_read_from_an_unnamed_number(message: str) -> None:
    read = await reply_after(str(CARDS), ["I want to verify my identity"], message)
    assert read["stage"] == "FILLING"  # the PIN is asked next, not taken from the digits


@pytest.mark.parametrize("message, decision", [
    ("그냥 취소", "cancel"), ("걍 취소요", "cancel"), ("아니 그냥 취소해", "cancel"),
    ("그냥 진행해 주세요", "confirm"), ("그냥 안 할래", "cancel"),
    ("취소 안 할래", None), ("그냥요", None), ("그냥 취소해도 돼?", None),
])
def test_just_is_a_filler_a_decision_may_carry(message: str, decision: str | None) -> None:
    """그냥 ("just") changes no decision, as "just" does in English; a negated cancel, a
    filler alone and a question stay no decision."""
    assert yes_no(message, default_words("ko")) == decision


@pytest.mark.parametrize("message", ["아 졸리다 진짜", "방금 커피 마셨어요", "I just got home"])
async def test_a_sentence_is_no_bare_value_and_mid_flow_it_is_small_talk(message: str) -> None:
    done = await done_after(str(TRANSFER), ["송금해줘"], message)
    assert done.state_snapshot["slots"]["target"] is None
    assert done.trace["stack"][0] == {"op": "push", "flow": "transfer", "reason": "digression"}


@pytest.mark.parametrize("message", ["음 모르겠어요", "기억이 안 나네", "no idea honestly"])
async def test_not_knowing_is_a_failed_try_not_small_talk(message: str) -> None:
    done = await done_after(str(TRANSFER), ["송금해줘"], message)
    assert done.state_snapshot["slots"]["target"] is None
    assert not done.trace.get("stack") and done.state_snapshot["filling_turns"] >= 1


@pytest.mark.parametrize("name", ["김지해", "민수요", "다해", "용걸이"])
async def test_a_short_name_is_still_a_bare_value(name: str) -> None:
    done = await done_after(str(TRANSFER), ["송금해줘"], name)
    assert done.state_snapshot["slots"]["target"] == name.removesuffix("요")


@pytest.mark.parametrize("before, message, target", [
    (["아빠한테 송금해줘"], "아빠 말고 삼촌이요", "삼촌"),  # asked the amount, the name changes
    (["아빠한테 2만원 보내줘"], "아빠 아니고 이모한테", "이모"),  # at the confirmation
    (["send money to dad"], "not dad but grandma", "grandma"),
    (["아빠한테 송금해줘"], "엄마 말고 형", "아빠"),  # 엄마 was never the recipient: no change
])
async def test_a_name_said_away_is_replaced_by_the_next(before: list[str], message: str,
                                                        target: str) -> None:
    read = await reply_after(str(TRANSFER), before, message)
    assert read["slots"]["target"] == target  # type: ignore[index]


@pytest.mark.parametrize("message, decision", [
    ("됐습니다 안 할게요", "cancel"), ("관둘래 안 해", "cancel"),
    ("필요 없어요 안 할래요", "cancel"),
    ("중단 안 해요", None), ("취소는 안 할래", None), ("됐어 취소 안 해", None),
])
def test_a_negation_after_a_cancel_sentence_is_a_second_cancel_after_a_noun_it_negates(
        message: str, decision: str | None) -> None:
    """"됐어요 안 할래요" says no twice; "취소 안 할래" says "I won't cancel"."""
    assert yes_no(message, default_words("ko")) == decision


@pytest.mark.parametrize("message, flow", [
    ("에어팟 찾아줘", "search"), ("그냥 이어폰 검색해 주세요", "search"),
])
async def test_a_value_the_task_has_with_another_flows_request_starts_that_flow(
        message: str, flow: str) -> None:
    """At the recommendation's questions (category earphone known), a message naming the
    same category and asking for a search is the search, not an answer that changes nothing."""
    engine = Engine(compile_file(ROOT / "flows" / "commerce.yaml"), store=MemoryStore())
    await engine.reply("s", "이어폰 추천해주세요", context={"is_logged_in": True})
    done = await engine.reply("s", message, context={"is_logged_in": True})
    assert done.trace["reading"]["intent"] == "search_product"
    assert {"op": "start", "flow": flow, "reason": "keyword '검색'"} in done.trace["stack"] \
        or {"op": "start", "flow": flow, "reason": "keyword '찾아'"} in done.trace["stack"]
    assert done.state_snapshot["flow"] == "recommend"  # the search answered; back to it
