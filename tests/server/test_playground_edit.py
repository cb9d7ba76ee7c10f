"""Edit a slot and continue: ``POST /v1/agent/playground/edit`` forks the session with the
change held for the user's yes (the original never written), refused to strangers and for
sessions with nothing to change; in the browser, ✎ on a slot then 확인 asks the
confirmation again with the new value."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from engine.compiler.compiled import CompiledService
from engine.config import Settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from engine.transports.http import playground_api
from engine.transports.http.playground_edit import EDIT
from tests.server.conftest import MakeServer, Running, chat
from tests.server.test_auth import KEY_A, KEY_B, bearer
from tests.server.test_playground import browser, open_playground, page, say

__all__ = ["browser", "page"]  # the fixtures, shared with test_playground

MakeEditable = Callable[..., Running]
ASKED = "엄마에게 1만원을 이체할까요?"
ASK_AGAIN = "엄마에게 3만원을 이체할까요?"


@pytest.fixture
def editable(make_server: MakeServer, transfer: CompiledService,
             monkeypatch: pytest.MonkeyPatch) -> MakeEditable:
    """A server whose playground API is given its engine (the edit route needs the store)."""
    def make(settings: Settings | None = None) -> Running:
        settings = settings or Settings(dev_mode=True)
        engine = Engine(transfer, store=MemoryStore(), settings=settings)
        install = playground_api.install
        monkeypatch.setattr(playground_api, "install", lambda app, service, **_: install(
            app, service, engine=engine))
        return make_server(engine=engine, settings=settings)
    return make


async def edit(client: httpx.AsyncClient, session: str, slot: str, value: Any,
               **kw: Any) -> httpx.Response:
    return await client.post(EDIT, json={"session_id": session, "slot": slot, "value": value},
                             **kw)


async def test_the_change_waits_for_a_yes_in_a_fork_and_the_original_stays(
        editable: MakeEditable) -> None:
    server = editable()
    async with server.client() as client:
        started = await chat(client, "s1", "엄마한테 만원 보내줘")
        assert started["state_snapshot"]["stage"] == "READY"
        answer = await edit(client, "s1", "amount", 30000)
        assert answer.status_code == 201, answer.text
        fork = answer.json()
        assert (fork["flow"], fork["stage"], fork["value"], fork["buttons"]) == (
            "transfer", "READY", 30000, ["확인", "취소"])
        assert fork["session_id"] != "s1"
        asked = await chat(client, fork["session_id"], "확인")  # the yes applies the change
        assert (asked["message"], asked["next_action"]) == (ASK_AGAIN, "CONFIRM")
        done = await chat(client, fork["session_id"], "확인")
        assert done["message"] == "엄마에게 3만원 이체가 완료됐어요."
        original = await chat(client, "s1", "확인")  # never touched: its own 1만원
        assert original["message"] == "엄마에게 1만원 이체가 완료됐어요."


async def test_a_no_keeps_the_old_value(editable: MakeEditable) -> None:
    server = editable()
    async with server.client() as client:
        await chat(client, "s1", "엄마한테 만원 보내줘")
        fork = (await edit(client, "s1", "target", "아빠")).json()
        kept = await chat(client, fork["session_id"], "아니")
        assert kept["state_snapshot"]["slots"]["target"] == "엄마"


@pytest.mark.parametrize(("messages", "slot", "value", "status", "code"), [
    ([], "amount", 30000, 404, "not_found"),  # no such session
    (["안녕"], "amount", 30000, 409, "no_task"),  # chat: nothing in progress
    (["엄마한테 만원 보내줘", "취소"], "amount", 30000, 409, "no_task"),  # the task ended
    (["엄마한테 만원 보내줘"], "pin", "1234", 422, "unknown_slot"),
    (["엄마한테 만원 보내줘"], "amount", -5, 422, "invalid_value"),
    (["엄마한테 만원 보내줘"], "amount", 10000, 422, "unchanged"),
])
async def test_what_cannot_be_edited_is_refused(editable: MakeEditable, messages: list[str],
                                                slot: str, value: Any, status: int,
                                                code: str) -> None:
    server = editable()
    async with server.client() as client:
        for message in messages:
            await chat(client, "s1", message)
        answer = await edit(client, "s1", slot, value)
        assert (answer.status_code, answer.json()["error"]) == (status, code)


async def test_a_task_with_an_action_in_its_journal_is_not_forked(
        editable: MakeEditable) -> None:
    server = editable()
    async with server.client() as client:
        await chat(client, "s1", "엄마한테 만원, 용걸이한테 5만원 보내줘")
        await chat(client, "s1", "확인")  # the first transfer ran; the second one is asked
        record = await server.store.load("s1")
        assert record is not None
        data = {**record.data, "journal": {"send_money": {"status": "pending"}}}
        await server.store.commit("s1", data, expected_version=record.version)
        answer = await edit(client, "s1", "amount", 70000)
        assert (answer.status_code, answer.json()["error"]) == (409, "busy")


async def test_the_edit_needs_a_key_and_is_the_callers_own(editable: MakeEditable) -> None:
    server = editable(Settings(dev_mode=True, api_keys=(KEY_A, KEY_B)))
    async with server.client() as client:
        started = await client.post("/v1/agent/chat", headers=bearer(KEY_A),
                                    json={"session_id": "s1", "message": "엄마한테 만원 보내줘"})
        assert started.status_code == 200
        assert (await edit(client, "s1", "amount", 30000)).status_code == 401
        stranger = await edit(client, "s1", "amount", 30000, headers=bearer(KEY_B))
        assert (stranger.status_code, stranger.json()["error"]) == (404, "not_found")
        owner = await edit(client, "s1", "amount", 30000, headers=bearer(KEY_A))
        assert owner.status_code == 201
        fork = owner.json()["session_id"]
        theirs = await client.post("/v1/agent/chat", headers=bearer(KEY_B),
                                   json={"session_id": fork, "message": "확인"})
        # the same id with another key names another session: not the fork
        assert theirs.json()["interaction"]["state_snapshot"]["flow"] != "transfer"
        mine = await client.post("/v1/agent/chat", headers=bearer(KEY_A),
                                 json={"session_id": fork, "message": "확인"})
        assert mine.json()["interaction"]["message"] == ASK_AGAIN


async def test_without_dev_mode_there_is_no_edit_route(editable: MakeEditable) -> None:
    server = editable(Settings(dev_mode=False))
    async with server.client() as client:
        await chat(client, "s1", "엄마한테 만원 보내줘")
        assert (await edit(client, "s1", "amount", 30000)).status_code == 404


def test_a_slot_changed_in_the_page_is_confirmed_again(editable: MakeEditable,
                                                       page: Page) -> None:
    server = editable()
    open_playground(page, server.url)
    say(page, "엄마한테 만원 보내줘")
    expect(page.locator("#messages .msg.assistant").last).to_have_text(ASKED)
    original = page.locator("#session-id").inner_text()
    amount = page.locator("#slots tr", has=page.locator("th", has_text="amount"))
    amount.locator(".edit").click()
    page.locator("#slots input[name=slot-amount]").fill("30000")
    page.locator("#slots input[name=slot-amount]").press("Enter")

    expect(page.locator("#session-id")).not_to_have_text(original)
    expect(page.locator("#notice")).to_contain_text("amount → 30000")
    # what led here, as the original showed it
    expect(page.locator("#messages .msg.user")).to_have_text(["엄마한테 만원 보내줘"])
    expect(page.locator("#buttons button")).to_have_text(["확인", "취소"])
    page.locator("#buttons button").get_by_text("확인").click()
    expect(page.locator("#messages .msg.assistant").last).to_have_text(ASK_AGAIN)
    expect(page.locator("#stage")).to_have_text("READY")
    expect(page.locator("#slots tr", has=page.locator("th", has_text="amount")).locator("td").first
           ).to_have_text("30000")

    page.locator("#sessions li .open").get_by_text("엄마한테 만원 보내줘", exact=True).click()
    expect(page.locator("#session-id")).to_have_text(original)
    state = httpx.get(f"{server.url}/v1/agent/debug/{original}").json()["state"]
    assert (state["stage"], state["slots"]["amount"]) == ("READY", 10000)

    amount = page.locator("#slots tr", has=page.locator("th", has_text="amount"))
    amount.locator(".edit").click()  # a value the slot refuses: said, nothing forked
    page.locator("#slots input[name=slot-amount]").fill("-5")
    page.locator("#slots input[name=slot-amount]").press("Enter")
    expect(page.locator("#edit-error")).to_have_text("입력하신 값을 사용할 수 없어요.")
    expect(page.locator("#session-id")).to_have_text(original)
