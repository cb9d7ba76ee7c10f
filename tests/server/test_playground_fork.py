"""Rewind and fork in the playground (Debian's headless Chromium): an earlier turn continued
in a NEW session by sending its messages again, the original left as it was; a replay
stops before a turn that moved money or said yes to a confirmation, and says so."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect

from tests.server.conftest import BATCH, MakeServer
from tests.server.test_playground import browser, open_playground, page, say

__all__ = ["browser", "page"]  # the fixtures, shared with test_playground

FIRST = "총 2건이 요청됐어요. 먼저 엄마에게 1만원 보낼까요? (1/2)"
SECOND = "완료! 다음으로 용걸이에게 5만원 보낼까요? (2/2)"


def replied(page: Page, text: str) -> None:
    expect(page.locator("#messages .msg.assistant").last).to_have_text(text)
    expect(page.locator("#messages .msg.assistant.pending")).to_have_count(0)


def fork_at(page: Page, turn: int) -> None:
    page.locator("#timeline .turn").nth(turn - 1).locator(".fork").click()


def stored(url: str, session: str) -> dict:
    answer = httpx.get(f"{url}/v1/agent/debug/{session}")
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_fork_continues_an_earlier_turn_and_leaves_the_original(
        make_server: MakeServer, page: Page) -> None:
    server = make_server()
    open_playground(page, server.url)
    say(page, "엄마한테 보내줘")
    replied(page, "엄마에게 얼마를 보내드릴까요?")
    say(page, "3만원")
    replied(page, "엄마에게 3만원을 이체할까요?")
    say(page, "취소")
    expect(page.locator("#stage")).to_have_text("CANCELLED")
    original = page.locator("#session-id").inner_text()

    fork_at(page, 2)  # back to the confirmation, in a new session
    expect(page.locator("#session-id")).not_to_have_text(original)
    expect(page.locator("#notice")).to_have_text(
        "'엄마한테 보내줘'의 턴 2에서 갈라진 새 세션이에요 (원래 세션은 그대로예요).")
    expect(page.locator("#messages .msg")).to_have_text(
        ["엄마한테 보내줘", "엄마에게 얼마를 보내드릴까요?", "3만원",
         "엄마에게 3만원을 이체할까요?"])
    expect(page.locator("#stage")).to_have_text("READY")
    expect(page.locator("#buttons button")).to_have_text(["확인", "취소"])
    forked = page.locator("#session-id").inner_text()
    expect(page.locator("#sessions li .open")).to_have_text(["⑂ 엄마한테 보내줘",
                                                             "엄마한테 보내줘"])

    page.locator("#buttons button").get_by_text("확인").click()  # the fork goes its own way
    replied(page, "엄마에게 3만원 이체가 완료됐어요.")
    assert stored(server.url, forked)["state"]["stage"] == "EXECUTED"
    before = stored(server.url, original)
    assert before["state"]["stage"] == "CANCELLED"
    assert [t["outcome"] for t in before["completed"]] == ["CANCELLED"]
    assert len(before["memory"]["raw_history"]) == 6  # three turns, none added by the fork

    page.reload()  # the fork's note is kept with it
    expect(page.locator("#notice")).to_contain_text("턴 2에서 갈라진")
    page.locator("#sessions li .open").get_by_text("엄마한테 보내줘", exact=True).click()
    expect(page.locator("#session-id")).to_have_text(original)
    expect(page.locator("#notice")).to_be_hidden()
    expect(page.locator("#timeline .turn")).to_have_count(3)


def test_a_replay_stops_before_the_turn_that_moved_money(make_server: MakeServer,
                                                          page: Page) -> None:
    server = make_server()
    open_playground(page, server.url)
    say(page, BATCH)
    replied(page, FIRST)
    page.locator("#buttons button").get_by_text("확인").click()  # send_money ran
    replied(page, SECOND)
    say(page, "취소")
    expect(page.locator("#timeline .turn")).to_have_count(3)

    fork_at(page, 3)
    expect(page.locator("#notice")).to_contain_text(
        "턴 2은 되돌릴 수 없는 작업(send_money)을 실행했기 때문에 다시 보내지 않았어요.")
    expect(page.locator("#messages .msg")).to_have_text([BATCH, FIRST])  # turn 1 only
    expect(page.locator("#timeline .turn")).to_have_count(1)
    forked = page.locator("#session-id").inner_text()
    assert stored(server.url, forked)["completed"] == []  # nothing moved in the fork
    executed = [e for e in stored(server.url, forked)["state"].get("journal", {}).values()]
    assert executed == []


PLAN = """async (turns) => {
  const { forkPlan } = await import("/playground/fork.js");
  return [0, 1, 2].map((index) => forkPlan(turns, index, ["send_money"]).stop);
}"""


def turn(next_action: str, decision: str | None = None, agents: tuple[str, ...] = ()) -> dict:
    return {"user": "x", "done": {"message": "m", "next_action": next_action, "_trace": {
        "reading": {"decision": decision}, "agents": [{"agent": a} for a in agents]}}}


def test_a_replay_never_says_yes_to_a_confirmation_again(make_server: MakeServer,
                                                          page: Page) -> None:
    """A yes to a confirmation is not sent again even when no irreversible action ran in
    that turn (a flow whose yes only moves on), nor is a turn that got no answer."""
    server = make_server()
    open_playground(page, server.url)
    yes = [turn("CONFIRM"), turn("ASK", "confirm"), turn("DONE")]
    assert page.evaluate(PLAN, yes) == [None, {"turn": 1, "why": "confirm"},
                                        {"turn": 1, "why": "confirm"}]
    money = [turn("ASK"), turn("DONE", None, ("lookup_balance", "send_money")), turn("ASK")]
    moved = {"turn": 1, "why": "money", "action": "send_money"}
    assert page.evaluate(PLAN, money)[1:] == [moved, moved]
    unanswered = [turn("ASK"), {"user": "x", "done": None, "failed": True}, turn("ASK")]
    assert page.evaluate(PLAN, unanswered) == [None, {"turn": 1, "why": "unanswered"},
                                               {"turn": 1, "why": "unanswered"}]
    assert page.evaluate(PLAN, [turn("ASK", "confirm")] * 3) == [None, None, None]
