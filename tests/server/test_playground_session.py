"""The playground beyond one turn, in Debian's headless Chromium: the session survives a
reload, the session list switches and forgets, the stage graph lights the current stage
(also of an earlier turn picked in the timeline), trace, hooks and completed tasks show, an
English flow gets an English page with its own "try saying" examples, and /docs renders
Swagger UI from the server alone."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from playwright.sync_api import Page, expect

from engine.authoring.scaffold import scaffold
from engine.compiler import compile_file
from engine.config import Settings, load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.fakes.llm_servers import FakeLLMServer, FakeReply
from tests.server.conftest import ALL_DONE, BATCH, MakeServer
from tests.server.test_playground import browser, open_playground, page, say

__all__ = ["browser", "page"]  # the fixtures, shared with test_playground

FIRST = "총 2건이 요청됐어요. 먼저 엄마에게 1만원 보낼까요? (1/2)"
SECOND = "완료! 다음으로 용걸이에게 5만원 보낼까요? (2/2)"


def lit(page: Page, stage: str) -> None:
    current = page.locator("#graph .stage.current")
    expect(current).to_have_count(1)
    expect(current).to_have_attribute("data-stage", stage)
    expect(current).to_have_attribute("aria-current", "step")


def test_the_session_survives_a_reload_and_goes_on(make_server: MakeServer, page: Page) -> None:
    server = make_server()
    asked: list[str] = []  # a flow without background stages has no runs to ask for
    page.on("request", lambda r: asked.append(r.url) if "/v1/runs" in r.url else None)
    open_playground(page, server.url)
    say(page, BATCH)
    expect(page.locator("#messages .msg.assistant").last).to_have_text(FIRST)
    session = page.locator("#session-id").inner_text()

    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#session-id")).to_have_text(session)
    expect(page.locator("#messages .msg")).to_have_text([BATCH, FIRST])
    expect(page.locator("#stage")).to_have_text("READY")
    expect(page.locator("#buttons button")).to_have_text(["확인", "취소"])
    expect(page.locator("#timeline .turn")).to_have_count(1)
    lit(page, "READY")

    page.locator("#buttons button").get_by_text("확인").click()  # the server kept the session
    expect(page.locator("#messages .msg.assistant").last).to_have_text(SECOND)
    expect(page.locator("#timeline .turn")).to_have_count(2)
    assert asked == []


def test_the_session_list_switches_and_forgets(make_server: MakeServer, page: Page) -> None:
    server = make_server()
    open_playground(page, server.url)
    say(page, "엄마한테 보내줘")
    expect(page.locator("#stage")).to_have_text("FILLING")
    first = page.locator("#session-id").inner_text()
    page.locator("#new-session").click()
    expect(page.locator("#session-id")).not_to_have_text(first)
    say(page, "안녕")
    expect(page.locator("#stage")).to_have_text("CHAT")
    second = page.locator("#session-id").inner_text()

    sessions = page.locator("#sessions li")
    expect(sessions.locator(".open")).to_have_text(["안녕", "엄마한테 보내줘"])
    expect(sessions.first).to_have_attribute("aria-current", "true")
    sessions.nth(1).locator(".open").click()
    expect(page.locator("#session-id")).to_have_text(first)
    expect(page.locator("#messages .msg.user")).to_have_text(["엄마한테 보내줘"])
    expect(page.locator("#stage")).to_have_text("FILLING")

    expect(sessions.locator(".open")).to_have_text(["엄마한테 보내줘", "안녕"])  # last used first
    sessions.nth(1).locator(".forget").click()  # the other one: gone here and on the server
    expect(sessions).to_have_count(1)
    assert httpx.get(f"{server.url}/v1/agent/debug/{second}").status_code == 404
    assert httpx.get(f"{server.url}/v1/agent/debug/{first}").status_code == 200
    sessions.first.locator(".forget").click()  # the current one: a fresh session starts
    expect(page.locator("#session-id")).not_to_have_text(first)
    expect(page.locator("#messages .msg")).to_have_count(0)
    expect(sessions.locator(".open")).to_have_text(["(새 대화)"])
    assert httpx.get(f"{server.url}/v1/agent/debug/{first}").status_code == 404
    assert page.evaluate("Object.keys(localStorage).filter(k => k.includes('turns:'))") == []


def test_the_graph_lights_the_stage_and_the_panels_follow_the_turn(
        make_server: MakeServer, page: Page) -> None:
    server = make_server()
    open_playground(page, server.url)
    expect(page.locator("#graph")).to_have_attribute("data-flow", "chat")  # the default flow
    say(page, BATCH)
    expect(page.locator("#graph")).to_have_attribute("data-flow", "transfer")
    lit(page, "READY")
    leaving = page.locator("#graph path.edge.leaving")
    assert {p.get_attribute("data-dest") for p in leaving.all()} >= {"CONFIRMED", "CANCELLED"}
    expect(page.locator("#graph .edge-label")).to_contain_text(["confirm"])

    for reply in (SECOND, ALL_DONE):
        page.locator("#buttons button").get_by_text("확인").click()
        expect(page.locator("#messages .msg.assistant").last).to_have_text(reply)
    lit(page, "EXECUTED")
    expect(page.locator("#graph .stage.visited")).to_have_count(2)  # READY, EXECUTED
    expect(page.locator("#hooks li")).to_have_count(1)
    expect(page.locator("#hooks")).to_contain_text("transfer_completed")
    expect(page.locator("#completed li")).to_have_count(2)
    expect(page.locator("#completed li b")).to_have_text(["EXECUTED", "EXECUTED"])
    expect(page.locator("#trace tbody td:first-child")).to_have_text(["understand",
                                                                      "send_money"])
    expect(page.locator("#trace-summary")).to_contain_text("턴 3")

    page.locator("#timeline .turn-head").first.click()  # back to the first turn
    lit(page, "READY")
    expect(page.locator("#stage")).to_have_text("READY")
    expect(page.locator("#task-queue li")).to_have_count(1)
    expect(page.locator("#hooks")).to_have_text("없음")
    expect(page.locator("#trace tbody td:first-child")).to_have_text(["intent", "understand",
                                                                        "lookup_balance"])
    page.locator("#graph-flows button").get_by_text("chat").click()
    expect(page.locator("#graph")).to_have_attribute("data-flow", "chat")
    expect(page.locator("#graph .stage.current")).to_have_count(0)


def english_service(tmp_path: Path) -> Engine:
    flow = next(p for p in scaffold("shop", "intent", tmp_path) if p.suffix == ".yaml"
                and not p.name.endswith(".test.yaml"))
    return Engine(compile_file(flow), store=MemoryStore(), settings=Settings(dev_mode=True))


def test_an_english_flow_gets_an_english_page_and_its_examples(
        make_server: MakeServer, page: Page, tmp_path: Path) -> None:
    server = make_server(engine=english_service(tmp_path))
    page.goto(server.url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#send")).to_have_text("Send")
    expect(page.locator("#new-session")).to_have_text("New session")
    expect(page.locator("#description")).to_have_text(
        "Answers questions about opening hours and prices; chats about the rest.")
    examples = page.locator("#examples button")
    expect(examples).to_have_text(["When are you open?", "How much does it cost?"])
    expect(page.locator("#input")).to_have_attribute(
        "placeholder", "Type a message (e.g. When are you open?)")
    examples.last.click()
    expect(page.locator("#messages .msg.user")).to_have_text(["How much does it cost?"])
    expect(page.locator("#messages .msg.assistant")).to_have_text(["Prices start at $10."])
    expect(page.locator("#task-queue")).to_have_text("empty")
    lit(page, "ANSWER")
    page.locator("#input").fill("x" * 4001)  # refused whole, as the server would
    page.locator("#input").press("Enter")
    expect(page.locator("#messages .msg.error")).to_have_text(
        "That message is too long; please keep it under 4000 characters.")


def test_docs_render_from_the_server_alone(make_server: MakeServer, page: Page) -> None:
    """Swagger UI and ReDoc come from the server; what ReDoc would fetch elsewhere (its logo)
    the page's Content-Security-Policy stops before it leaves."""
    server = make_server()
    origin = urlsplit(server.url).netloc
    left: list[str] = []

    def foreign(url: str) -> bool:  # blob: and data: URLs stay in the page
        parts = urlsplit(url)
        return parts.scheme in ("http", "https", "ws", "wss") and parts.netloc != origin

    page.on("requestfinished", lambda r: left.append(r.url) if foreign(r.url) else None)
    page.on("requestfailed", lambda r: left.append(f"{r.url} ({r.failure})")
            if foreign(r.url) and r.failure != "csp" else None)
    page.goto(f"{server.url}/docs")
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    expect(page.locator(".opblock-summary-path", has_text="/v1/agent/chat/stream")).to_have_count(2)
    page.goto(f"{server.url}/redoc")
    expect(page.get_by_text("/v1/agent/service").first).to_be_attached()
    page.wait_for_load_state("networkidle")
    assert left == []


CHAT_FLOW = """\
service: helper
description: Chats with a model.
locale: en
default_flow: chat
models:
  fast: {provider: openai, model: gpt-4.1-mini, max_retry: 2, backoff_sec: 0.01}
flows:
  chat:
    initial: CHAT
    stages:
      CHAT:
        steps:
          - {agent: chat, prompt: chat, model: fast, fallback: chat_offline}
messages:
  chat_offline: (offline)
"""


def test_the_trace_shows_the_model_its_tokens_retries_and_first_token(
        make_server: MakeServer, page: Page, tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "chat.j2").write_text("Be brief.", encoding="utf-8")
    flow = tmp_path / "helper.yaml"
    flow.write_text(CHAT_FLOW, encoding="utf-8")
    with FakeLLMServer() as model:
        model.enqueue(FakeReply.server_error(),  # one retry, then tokens 20 ms apart
                      FakeReply(text="Hello there, friend", token_interval_sec=0.02,
                                input_tokens=42, output_tokens=3))
        engine = Engine(compile_file(flow), store=MemoryStore(),
                        settings=load_settings({**model.env(), "FLOWCTL_DEV_MODE": "true"}))
        server = make_server(engine=engine)
        page.goto(server.url)
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        say(page, "hi")
        expect(page.locator("#messages .msg.assistant")).to_have_text(["Hello there, friend"])
    rows = page.locator("#trace tbody tr")
    expect(rows.locator("td:first-child")).to_have_text(["intent", "chat"])
    expect(rows.last.locator("td")).to_have_text(
        ["chat", "openai:gpt-4.1-mini", re.compile(r"^\d+\.\d$"), "42→3", "1", ""])
    expect(page.locator("#trace-summary")).to_contain_text(re.compile(r"first token \+\d+\.\d ms"))
    expect(page.locator("#timeline .LLM_TOKEN .what")).to_have_text("×3")
    expect(page.locator("#timeline .LLM_TOKEN")).to_have_attribute("title", "Hello there, friend")
    expect(page.locator("#timeline .name")).to_have_text(
        ["AGENT_START", "AGENT_DONE",  # intent
         "AGENT_START", "LLM_TOKEN", "LLM_DONE", "AGENT_DONE", "DONE"])


def test_a_session_title_keeps_no_long_digit_run(make_server: MakeServer, page: Page) -> None:
    """The list is titled by the first message and lives in the browser's storage: an account
    or card number in that message is never kept there."""
    server = make_server()
    open_playground(page, server.url)
    say(page, "계좌 110-2345-678901 로 2만원")
    sessions = page.locator("#sessions li .open")
    expect(sessions).to_have_text(["계좌 ••• 로 2만원"])
    titles = page.evaluate("JSON.stringify(Object.keys(localStorage)"
                           ".filter(k => k.endsWith(':sessions')).map(k => localStorage[k]))")
    assert "678901" not in titles and "2345" not in titles and "•••" in titles
