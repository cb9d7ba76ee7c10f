"""The playground in a real headless Chromium (Debian's, driven by Playwright; no download).

CI installs chromium (.ci/run), so a missing browser is a failure with a clear message,
never a skip.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from engine.config import Settings
from engine.runtime.engine import Engine
from engine.runtime.values.events import AgentDone, AgentStart, Event, LlmDone, LlmToken
from tests.server.conftest import ALL_DONE, BATCH, MakeServer

# Draws "가", "나" and a code point no font has (U+10FFFD) in the font of a reply bubble; with
# no CJK font all three are the same missing-glyph box.
GLYPHS = """(selector) => {
  const font = getComputedStyle(document.querySelector(selector)).font;
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 64;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  const draw = (text) => {
    ctx.clearRect(0, 0, 64, 64);
    ctx.font = font;
    ctx.fillText(text, 4, 48);
    return Array.from(ctx.getImageData(0, 0, 64, 64).data);
  };
  const [ga, na, none] = [draw("가"), draw("나"), draw("\\u{10FFFD}")];
  const same = (a, b) => a.every((value, i) => value === b[i]);
  return { font, inked: ga.filter((value, i) => i % 4 === 3 && value > 0).length,
           gaIsNa: same(ga, na), gaIsMissing: same(ga, none) };
}"""

KEY = "playground-key-0123456789abcdef"

CHROMIUM = Path(os.environ.get("FLOWCTL_CHROMIUM", "/usr/bin/chromium"))
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOT = os.environ.get("FLOWCTL_PLAYGROUND_SCREENSHOT")  # a path: save one (development)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (`apt-get install "
                    "chromium`, as .ci/run does) or point FLOWCTL_CHROMIUM at a Chromium binary",
                    pytrace=False)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def open_playground(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#service")).to_have_text("transfer")


def say(page: Page, text: str) -> None:
    """Types ``text`` and sends it once the turn before has ended: the page keeps a message
    typed during a turn in the box (unsent), and the next ``fill`` would replace it."""
    expect(page.locator("#send")).to_be_enabled()
    page.locator("#input").fill(text)
    page.locator("#input").press("Enter")


def test_the_batch_transfer_conversation_in_a_browser(make_server: MakeServer,
                                                      page: Page) -> None:
    server = make_server()
    open_playground(page, server.url)
    last_reply = page.locator("#messages .msg.assistant").last
    buttons = page.locator("#buttons button")

    say(page, BATCH)
    expect(last_reply).to_have_text("총 2건이 요청됐어요. 먼저 엄마에게 1만원 보낼까요? (1/2)")
    expect(buttons).to_have_text(["확인", "취소"])
    expect(page.locator("#stage")).to_have_text("READY")
    expect(page.locator("#slots")).to_contain_text("엄마")
    expect(page.locator("#task-queue li")).to_have_count(1)
    expect(page.locator("#task-queue")).to_contain_text("용걸이")
    expect(page.locator("#timeline .name").last).to_have_text("DONE")

    buttons.get_by_text("확인").click()
    expect(last_reply).to_have_text("완료! 다음으로 용걸이에게 5만원 보낼까요? (2/2)")
    expect(page.locator("#timeline .TASK_PROGRESS")).to_have_count(1)
    expect(page.locator("#batch")).to_have_text("2 / 2")

    buttons.get_by_text("확인").click()
    expect(last_reply).to_have_text(ALL_DONE)
    expect(page.locator("#stage")).to_have_text("EXECUTED")
    expect(page.locator("#next-action")).to_have_text("DONE")
    expect(buttons).to_have_count(0)
    expect(page.locator("#task-queue")).to_have_text("비어 있음")
    names = page.locator("#timeline .name").all_inner_texts()
    assert names[0] == "AGENT_START" and names[-1] == "DONE" and "TASK_PROGRESS" in names
    turns = page.locator("#timeline .turn")
    expect(turns).to_have_count(3)  # every turn stays in the timeline, each ending in DONE
    for turn in turns.all():
        expect(turn.locator(".name").last).to_have_text("DONE")
        times = [float(t.strip("+ ms")) for t in turn.locator(".at").all_inner_texts()]
        assert times == sorted(times)
    if SCREENSHOT:
        page.screenshot(path=SCREENSHOT, full_page=True)

    session = page.locator("#session-id").inner_text()
    page.locator("#new-session").click()
    expect(page.locator("#session-id")).not_to_have_text(session)
    expect(page.locator("#messages .msg")).to_have_count(0)
    expect(page.locator("#stage")).to_have_text("–")


def test_korean_is_drawn_with_real_glyphs(make_server: MakeServer, page: Page) -> None:
    """CI installs a CJK font (.ci/run: fonts-noto-cjk); without one Korean is empty boxes."""
    server = make_server()
    open_playground(page, server.url)
    say(page, "엄마한테 보내줘")
    expect(page.locator("#messages .msg.assistant").last).to_have_text(
        "엄마에게 얼마를 보내드릴까요?")
    glyphs = page.evaluate(GLYPHS, "#messages .msg.assistant .text")
    assert glyphs["inked"] > 20, glyphs
    assert not glyphs["gaIsNa"] and not glyphs["gaIsMissing"], (
        f"Korean renders as missing-glyph boxes in {glyphs['font']!r}: install a CJK font "
        "(`apt-get install fonts-noto-cjk`, as .ci/run does)")


def test_slot_errors_and_a_blank_message_show(make_server: MakeServer, page: Page) -> None:
    server = make_server()
    open_playground(page, server.url)
    say(page, "엄마한테 보내줘")
    expect(page.locator("#stage")).to_have_text("FILLING")
    expect(page.locator("#slots tr.missing")).to_contain_text("amount")
    say(page, "마이너스 천원")
    expect(page.locator("#slot-errors")).to_contain_text("amount: 이체 금액은 1원 이상이어야 해요.")
    say(page, "   ")  # refused, and the amount still asked: the last answer again
    expect(page.locator("#messages .msg.assistant").last).to_have_text(
        "질문을 입력해주세요. 이체 금액은 1원 이상이어야 해요. 다시 말씀해 주세요.")


class TokenEngine(Engine):
    """Streams a reply token by token (as an LLM agent would) before the real turn."""

    REPLY = "토큰이 하나씩 도착해요"

    async def turn(self, session_id: str, message: str, *, owner: str | None = None,
                   stream: str | None = None) -> AsyncIterator[Event]:
        yield AgentStart("chat", "답변 작성 중")
        for token in self.REPLY.split(" "):
            await asyncio.sleep(0.05)
            yield LlmToken(token + " ")
        yield LlmDone({"action": "ASK", "message": self.REPLY})
        yield AgentDone("chat", "답변 작성 중", True)
        async for event in super().turn(session_id, message, owner=owner, stream=stream):
            yield event


WATCH_STREAMING = """() => {
  window.seen = [];
  new MutationObserver(() => {
    const text = document.querySelector("#messages .msg.assistant.pending .text");
    if (text && text.textContent !== window.seen.at(-1)) window.seen.push(text.textContent);
  }).observe(document.getElementById("messages"),
             {subtree: true, childList: true, characterData: true});
}"""


def test_tokens_are_appended_as_they_arrive(make_server: MakeServer, page: Page) -> None:
    server = make_server(engine_class=TokenEngine)
    open_playground(page, server.url)
    page.evaluate(WATCH_STREAMING)
    say(page, "안녕")
    expect(page.locator("#messages .msg.assistant").last).to_have_text(
        "무엇을 도와드릴까요? 이체는 '엄마한테 1만원 보내줘'처럼 말씀해 주세요.")
    # The bubble grew token by token before DONE replaced it with the final message.
    assert page.evaluate("window.seen") == ["", "토큰이 ", "토큰이 하나씩 ",
                                            "토큰이 하나씩 도착해요 "]
    expect(page.locator("#timeline .LLM_TOKEN .what")).to_have_text("×3")


def test_a_server_with_keys_asks_for_one_and_the_cookie_carries_the_stream(
        make_server: MakeServer, page: Page) -> None:
    server = make_server(settings=Settings(dev_mode=True, api_keys=(KEY,)))
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.goto(server.url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#login")).to_be_visible()
    expect(page.locator("#send")).to_be_disabled()

    page.locator("#api-key").fill("wrong-key-0123456789abcdef")
    page.locator("#api-key").press("Enter")
    expect(page.locator("#login-error")).to_have_text("키가 올바르지 않아요.")

    page.locator("#api-key").fill(KEY)
    page.locator("#api-key").press("Enter")
    expect(page.locator("#login")).to_be_hidden()
    expect(page.locator("#session-id")).to_have_text(re.compile(r"^[A-Za-z0-9_-]{32}$"))
    say(page, BATCH)  # one EventSource: authenticated by the cookie alone
    expect(page.locator("#messages .msg.assistant").last).to_have_text(
        "총 2건이 요청됐어요. 먼저 엄마에게 1만원 보낼까요? (1/2)")
    assert page.evaluate("document.cookie") == ""  # HttpOnly: no script can read it
    assert not [line for line in console if "Content Security Policy" in line], console

    # a lost cookie: the next message fails and the page asks for the key again
    page.context.clear_cookies()
    page.locator("#buttons button").get_by_text("확인").click()
    expect(page.locator("#login")).to_be_visible()
    expect(page.locator("#login-error")).to_have_text("로그인이 필요해요.")


def test_a_server_error_and_a_lost_connection_read_differently(make_server: MakeServer,
                                                                page: Page) -> None:
    """A turn the server failed (an HTTP error) says so; a server out of reach is a lost
    connection. Neither is silent, neither resends the message."""
    server = make_server()
    open_playground(page, server.url)
    page.route("**/v1/agent/chat/stream*", lambda route: route.fulfill(status=500, body="x"))
    say(page, "엄마한테 1만원 보내줘")
    failed = page.locator("#messages .msg.failed .status").last
    expect(failed).to_contain_text("서버 오류")
    # the turn's entry in the event log says it got no answer, not an empty list
    expect(page.locator("#timeline .turn.failed .events").last).to_have_text("답을 받지 못했어요")
    page.route("**/healthz", lambda route: route.abort())
    page.route("**/v1/agent/chat/stream*", lambda route: route.abort())
    say(page, "엄마한테 1만원 보내줘")
    expect(page.locator("#messages .msg.failed .status").last).to_have_text(
        "연결이 끊겼어요. 다시 시도해 주세요.")


@pytest.mark.parametrize(("width", "height"), [(1400, 900), (1024, 768), (390, 844)])
def test_the_newest_message_is_wholly_visible_above_the_buttons(
        make_server: MakeServer, page: Page, width: int, height: int) -> None:
    """A confirmation's question is never hidden under its own buttons, whatever the width."""
    page.set_viewport_size({"width": width, "height": height})
    server = make_server()
    open_playground(page, server.url)
    for text in ("안녕하세요", "오늘 날씨 어때?", "뭐 할 수 있어?", BATCH):  # enough to scroll
        say(page, text)
        expect(page.locator("#messages .msg.assistant.pending")).to_have_count(0)
    expect(page.locator("#buttons button")).to_have_count(2)
    page.wait_for_timeout(100)  # the scroll runs on the next frame
    box = page.locator("#messages").bounding_box()
    last = page.locator("#messages .msg").last.bounding_box()
    assert box is not None and last is not None
    assert last["y"] >= box["y"] - 1 and last["y"] + last["height"] <= box["y"] + box["height"] + 1


def test_the_panels_do_not_jump_to_the_event_log_after_a_turn(make_server: MakeServer,
                                                               page: Page) -> None:
    page.set_viewport_size({"width": 1400, "height": 700})
    server = make_server()
    open_playground(page, server.url)
    for text in ("안녕하세요", BATCH):
        say(page, text)
        expect(page.locator("#messages .msg.assistant.pending")).to_have_count(0)
    assert page.evaluate("document.querySelector('aside').scrollTop") == 0
    expect(page.locator("#timeline .turn")).to_have_count(2)  # the log grew, in its own box


@pytest.mark.parametrize("width", [1400, 1024])
def test_the_stage_graph_fits_its_panel(make_server: MakeServer, page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    server = make_server()
    open_playground(page, server.url)
    say(page, BATCH)  # the transfer flow's graph, its widest
    expect(page.locator("#graph .stage.current")).to_have_count(1)
    panel = page.locator("#graph").bounding_box()
    drawn = page.locator("#graph svg").first.bounding_box()
    assert panel is not None and drawn is not None
    right = panel["x"] + panel["width"]
    assert drawn["x"] >= panel["x"] - 1 and drawn["x"] + drawn["width"] <= right + 1
