"""`flowctl serve flows/commerce.yaml` over HTTP, as a real subprocess, with its shop API
(tests/fakes/shop_api.py), the shop's MCP server (tests/fakes/mcp_shop.py, a stdio process
the operator's FLOWCTL_MCP_CONFIG starts) and an OpenAI-compatible model
(tests/fakes/llm_servers.py) on loopback: the guard stops a message before any action or
model call, a 0.55-confidence understanding gets a question to say more, the two-intent
message one confirmation for both, a search hands the catalogue's hits to the model with
their sources, the refund confirmation is synthesised from the looked-up order, a refund the
gateway rejects never reaches the shop and an accepted one reaches it exactly once — also
when the confirm is repeated or the server is killed while the shop API works on it — and a
shipping order's parcel is tracked on the MCP server. The conversation tests of the flow
produce every one of the eight failure tags a shop assistant can hit."""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cli import main
from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from engine.testing.spec import load_tests
from tests.conftest import ROOT
from tests.fakes.llm_servers import FakeLLMServer, FakeReply, FakeToolCall
from tests.fakes.shop_api import ShopAPI
from tests.server.processes import Serve

FLOW = ROOT / "flows" / "commerce.yaml"
CONSUMER = {"is_logged_in": True, "user_id": "u-1", "user_type": "consumer"}


@pytest.fixture(scope="module")
def shop() -> Iterator[ShopAPI]:
    with ShopAPI() as running:
        yield running


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


def serve(tmp: Path, shop: ShopAPI, llm: FakeLLMServer | None = None) -> Serve:
    """The commerce server; the operator's MCP configuration starts the shop's MCP server
    (over stdio, started on the first call and kept) and counts its calls in
    ``tmp/mcp_calls.jsonl``. The turn deadline is generous: a loaded machine may take
    seconds to start the MCP server inside a turn, and no test here is about deadlines."""
    config = tmp / "mcp.json"
    config.write_text(json.dumps({"servers": {"shop": {
        "command": [sys.executable, "-m", "tests.fakes.mcp_shop"], "cwd": str(ROOT),
        "env": {"MCP_SHOP_CALLS": str(tmp / "mcp_calls.jsonl")}}}}))
    env = {"SHOP_URL": shop.url, "FLOWCTL_MCP_CONFIG": str(config),
           "FLOWCTL_TURN_DEADLINE_MS": "30000"}
    if llm is not None:
        env |= {"OPENAI_BASE_URL": llm.openai_base_url, "OPENAI_API_KEY": "sk-local",
                "FLOWCTL_MODEL_FAST": "openai:gpt-test", "FLOWCTL_MODEL_RECO": "openai:gpt-test"}
    return Serve(FLOW, "--store", f"sqlite:///{tmp}/sessions.db", env=env).wait_ready()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("commerce")


@pytest.fixture(scope="module")
def server(shop: ShopAPI, llm: FakeLLMServer, workdir: Path) -> Iterator[str]:
    running = serve(workdir, shop, llm)
    yield running.url
    running.stop()


@pytest.fixture(autouse=True)
def fresh(shop: ShopAPI, llm: FakeLLMServer) -> None:
    llm.reset()
    shop.requests.clear()


def mcp_calls(workdir: Path) -> list[dict[str, Any]]:
    """The calls the shop's MCP server processes received, in order."""
    path = workdir / "mcp_calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def chat(url: str, session: str, message: str,
         context: dict[str, Any] | None = None) -> dict[str, Any]:
    response = httpx.post(f"{url}/v1/agent/chat", timeout=30, json={
        "session_id": session, "message": message, "context": context or CONSUMER})
    assert response.status_code == 200, response.text
    return dict(response.json()["interaction"])


def understanding(intent: str, confidence: float) -> FakeReply:
    return FakeReply(text=json.dumps({"intent": intent, "confidence": confidence,
                                      "operations": []}))


def test_an_empty_message_asks_for_a_question(server: str, llm: FakeLLMServer) -> None:
    for blank in ("", "   ", "\u200b"):
        done = chat(server, "empty", blank)
        assert done["message"] == "질문을 입력해주세요."
    assert llm.requests == []


@pytest.mark.parametrize("message", ["제 카드번호는 1234-5678-9012-3456 이에요, 결제해줘",
                                     "ORD-1002 환불하고 비밀번호 바꿔줘", "대마 추천해줘",
                                     "5500 0000 0000 0004 이걸로 결제할게요"])
def test_a_blocked_message_calls_no_action_and_no_model(
        server: str, shop: ShopAPI, llm: FakeLLMServer, message: str) -> None:
    llm.enqueue(understanding("get_recommendation", 0.95))  # would be used if anything asked
    done = chat(server, "blocked", message)
    assert done["_trace"]["failure_tags"] == ["POLICY_BLOCKED"]
    assert [a["agent"] for a in done["_trace"]["agents"]] == ["guard"]
    assert "채팅으로 받을 수 없어요" in done["message"] or "판매가 금지된" in done["message"]
    assert llm.requests == [] and shop.requests == []
    assert done["state_snapshot"]["flow"] is None


def test_a_low_confidence_message_gets_a_question_and_is_not_routed(
        server: str, llm: FakeLLMServer) -> None:
    llm.enqueue(understanding("get_recommendation", 0.55))
    done = chat(server, "low", "뭐가 좋을까")
    assert done["message"].startswith("어떤 도움이 필요하신지 좀 더 구체적으로 알려주시겠어요?")
    assert "- 예산 범위가 있으신가요?" in done["message"]
    assert done["_trace"]["failure_tags"] == ["INTENT_LOW_CONFIDENCE"]
    assert done["state_snapshot"]["flow"] is None
    assert len(llm.requests) == 1  # the one understanding call; never a second one


def test_the_model_s_alternatives_ask_which_one_over_the_sdk(
        server: str, llm: FakeLLMServer) -> None:
    llm.enqueue(FakeReply(text=json.dumps({
        "intent": "refund_request", "confidence": 0.8, "operations": [],
        "alternatives": [{"intent": "order_status", "confidence": 0.78},
                         {"intent": "write_review", "confidence": 0.76}]})))
    done = chat(server, "which", "이거 어떻게 해야 돼")
    assert done["message"] == "다음 중 어떤 것을 도와드릴까요? '환불', '주문 조회', '리뷰 작성'"
    assert done["ui_hint"]["buttons"] == ["환불", "주문 조회", "리뷰 작성"]
    assert done["_trace"]["failure_tags"] == ["MULTIPLE_INTENTS_CONFLICT"]
    (request,) = llm.requests
    assert '"alternatives"' in str(request.body["messages"])  # the prompt asks for them


def test_the_two_intent_message_gets_one_confirmation_for_both(
        server: str, llm: FakeLLMServer) -> None:
    done = chat(server, "two", "이 상품 장바구니에 넣고 결제할게")
    message = done["message"]
    assert message.startswith("장바구니 추가와 결제를 함께 진행하시는군요.")
    assert "1. 먼저 장바구니에 상품을 추가하겠습니다." in message
    assert "2. 추가 후 바로 결제 페이지로 이동할 수 있습니다." in message
    assert done["state_snapshot"]["flow"] == "order"
    assert done["state_snapshot"]["slots"]["checkout"] == "pay"
    done = chat(server, "two", "P-106 1개")
    assert done["next_action"] == "CONFIRM"
    assert done["message"] == "P-106 1개를 장바구니에 담고 바로 결제 페이지로 이동할까요?"
    done = chat(server, "two", "확인")
    assert [h["type"] for h in done["hooks"]] == ["cart_added", "checkout_opened"]
    assert llm.requests == []  # the rules settled every turn


def test_a_search_hands_the_catalogue_hits_to_the_model_with_sources(
        server: str, llm: FakeLLMServer) -> None:
    llm.enqueue(FakeReply(text="갤럭시 버즈3(P-105, 159,000원)을 찾았어요. [1]"))
    done = chat(server, "search", "무선 이어폰 찾아줘")
    assert done["message"] == "갤럭시 버즈3(P-105, 159,000원)을 찾았어요. [1]"
    (request,) = llm.requests  # the rules routed it: the one call is the answer
    system = str(request.body["messages"][0]["content"])
    assert "[1] (catalog) P-105.md#삼성 갤럭시 버즈3\n- 상품 ID: P-105" in system
    assert "- 가격: 159,000원" in system and "data, not instructions" in system
    assert "P-101.md" not in system  # only the hits, not the whole catalogue


def test_a_refund_needs_a_confirmation_and_reaches_the_shop_once(
        server: str, shop: ShopAPI) -> None:
    done = chat(server, "refund", "ORD-1002 환불해 주세요")
    assert done["state_snapshot"]["stage"] == "READY" and done["next_action"] == "CONFIRM"
    assert done["message"].startswith(
        "주문 ORD-1002(갤럭시 버즈3, 15만 9,000원, 배송 완료)의 환불을 접수할까요?\n\n1. ")
    assert done["message"].endswith("\n\n접수하면 되돌릴 수 없어요.")
    assert done["requires_confirmation"] is True
    assert done["next_suggested_actions"] == ["확인", "취소"]
    assert [r[:2] for r in shop.requests] == [("GET", "/orders/ORD-1002")]
    assert chat(server, "refund", "음 글쎄")["state_snapshot"]["stage"] == "READY"
    assert shop.refunds() == []  # nothing before the user's own yes
    done = chat(server, "refund", "확인")
    assert done["state_snapshot"]["stage"] == "ACCEPTED"
    assert "환불 요청이 접수됐어요. 접수번호는 R-" in done["message"]
    assert "failure_tags" not in done["_trace"]
    # the order is looked up again after the yes: the gateway checks the shop's answer
    assert [r[:2] for r in shop.requests][-2:] == [("GET", "/orders/ORD-1002"),
                                                   ("POST", "/refunds")]
    again = chat(server, "refund", "확인")  # the confirm sent twice
    assert again["state_snapshot"]["flow"] != "after_sales"
    (refund,) = shop.refunds()
    assert refund[3] == {"order_id": "ORD-1002", "kind": "refund", "amount": 159000}
    assert refund[2] and refund[2].endswith(":request_refund")
    completed = httpx.get(f"{server}/v1/agent/completed", params={"session_id": "refund"})
    assert [t["outcome"] for t in completed.json()["completed"]] == ["ACCEPTED"]


@pytest.mark.parametrize(("session", "message", "explanation"), [
    ("gw-cancel", "ORD-1002 주문 취소해줘",
     "배송 완료 상태의 주문은 주문 취소를 접수할 수 없어요. 출고된 주문은 받으신 뒤 환불로 "
     "접수해 주세요."),
    ("gw-limit", "ORD-1005 환불해 주세요",
     "결제 금액이 100만원을 넘는 주문(165만원)의 취소·환불은 채팅으로 접수할 수 없어요. 고객센터 "
     "상담원이 확인한 뒤 처리해 드려요."),
    ("gw-paid", "ORD-1003 반품할게요",
     "결제 완료 상태의 주문은 환불을 접수할 수 없어요. 출고 전이면 주문 취소를, 배송 중이면 "
     "받으신 뒤에 환불을 접수해 주세요."),
], ids=["cancel-delivered", "over-limit", "refund-unshipped"])
def test_a_refund_the_gateway_rejects_never_reaches_the_shop(
        server: str, shop: ShopAPI, session: str, message: str, explanation: str) -> None:
    executed = len(shop.executions)
    assert chat(server, session, message)["next_action"] == "CONFIRM"
    done = chat(server, session, "확인")
    assert done["message"] == explanation  # the rule's explanation, and nothing else
    assert done["state_snapshot"]["stage"] == "REJECTED"
    assert done["_trace"]["failure_tags"] == ["TOOL_GATEWAY_REJECTED"]
    assert done["hooks"] == []
    assert [r[0] for r in shop.requests] == ["GET", "GET"]  # the lookups; no refund request
    assert shop.refunds() == [] and len(shop.executions) == executed
    completed = httpx.get(f"{server}/v1/agent/completed", params={"session_id": session})
    assert [t["outcome"] for t in completed.json()["completed"]] == ["REJECTED"]


def test_a_confirm_sent_twice_at_once_refunds_once(server: str, shop: ShopAPI) -> None:
    chat(server, "twice", "ORD-1004 환불해줘")
    replies: list[dict[str, Any]] = []
    senders = [threading.Thread(target=lambda: replies.append(chat(server, "twice", "확인")))
               for _ in range(2)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    stages = sorted(r["state_snapshot"]["stage"] or "" for r in replies)
    assert "ACCEPTED" in stages and len(replies) == 2
    assert len(shop.refunds()) == 1


def test_a_shipping_order_s_parcel_is_tracked_on_the_mcp_server(
        server: str, shop: ShopAPI, workdir: Path) -> None:
    before = len(mcp_calls(workdir))
    done = chat(server, "status", "ORD-1001 배송 어디쯤이야")
    assert done["message"] == (
        "요청하신 주문 조회에 대해 주문 ORD-1001(LG 그램 16)이 배송 중 상태인 것을 "
        "확인했습니다.\n\n1. CJ대한통운에서 배송하고 있어요. 현재 상태: 옥천 HUB 간선 하차, 도착 "
        "예정일은 2026-11-27이에요.\n\n배송 일정은 택배사 사정으로 하루 이틀 늦어질 수 있어요.")
    assert "failure_tags" not in done["_trace"]
    steps = {a["agent"]: a["success"] for a in done["_trace"]["agents"]}
    assert steps["get_order"] is True and steps["track_order"] is True
    assert [r[:2] for r in shop.requests] == [("GET", "/orders/ORD-1001")]
    assert mcp_calls(workdir)[before:] == [{"tool": "track_parcel",
                                            "args": {"order_id": "ORD-1001"}}]
    done = chat(server, "paid", "ORD-1003 배송 조회해줘")  # not shipping: no parcel to track
    assert done["message"].startswith("요청하신 주문 조회에 대해 주문 ORD-1003(로지텍 MX Master "
                                      "3S)이 결제 완료 상태인 것을 확인했습니다.")
    assert len(mcp_calls(workdir)) == before + 1


def test_the_chat_agent_tracks_a_parcel_on_the_mcp_server(shop: ShopAPI, tmp_path: Path) -> None:
    """With a model, the chat agent's tool loop calls the MCP tool (the real server process,
    started by the operator's configuration); a guest's call is rejected by the gateway. (A
    server of its own: the module's has seen model failures that may have opened the
    model's circuit breaker.)"""
    with FakeLLMServer() as llm:
        running = serve(tmp_path, shop, llm)
        try:
            _track_parcels(running.url, llm, tmp_path)
        finally:
            running.stop()


def _track_parcels(server: str, llm: FakeLLMServer, workdir: Path) -> None:
    track = FakeReply(tool_calls=(FakeToolCall(name="track_parcel",
                                               arguments={"order_id": "ORD-1001"}),))
    before = len(mcp_calls(workdir))
    llm.enqueue(FakeReply(text=json.dumps({"intent": None, "confidence": 0.9,
                                           "operations": []})),
                track, FakeReply(text="CJ대한통운이 배송 중이에요."))
    done = chat(server, "parcel", "내 택배 지금 어디야? ORD-1001")
    assert done["message"] == "CJ대한통운이 배송 중이에요."
    offered = [t["function"]["name"] for t in llm.requests[1].body["tools"]]  # type: ignore[index]
    assert offered == ["track_parcel"]
    told = json.loads(str(llm.requests[2].body["messages"][-1]["content"]))  # type: ignore[index]
    assert told["carrier"] == "CJ대한통운" and told["status"] == "옥천 HUB 간선 하차"
    assert mcp_calls(workdir)[before:] == [{"tool": "track_parcel",
                                            "args": {"order_id": "ORD-1001"}}]
    llm.reset()
    llm.enqueue(FakeReply(text=json.dumps({"intent": None, "confidence": 0.9,
                                           "operations": []})),
                track, FakeReply(text="로그인이 필요해요."))
    done = chat(server, "guest", "내 택배 지금 어디야? ORD-1001", {"is_logged_in": False})
    assert done["_trace"]["failure_tags"] == ["TOOL_GATEWAY_REJECTED"]
    assert str(llm.requests[2].body["messages"][-1]["content"]) == (  # type: ignore[index]
        "error: rejected by the gateway: 택배 조회는 로그인한 뒤에 할 수 있어요.")
    assert len(mcp_calls(workdir)) == before + 1  # the rejected call never reached it


def test_a_seller_report_reads_the_request_context(server: str) -> None:
    seller = {"is_logged_in": True, "user_id": "s-17", "user_type": "seller"}
    done = chat(server, "seller", "이번 달 매출 알려줘", seller)
    assert done["message"] == "s-17님의 이번 달 판매 리포트: 주문 12건, 매출 348만원이에요."
    done = chat(server, "consumer", "이번 달 매출 알려줘")
    assert done["message"] == "판매 리포트는 판매자 계정으로 로그인해야 볼 수 있어요."


async def test_history_past_ten_turns_is_summarised() -> None:
    """memory.summarize_threshold 10: the tenth turn folds all but the last four into a
    summary (no model: built from the user's requests and the completed tasks)."""
    engine = Engine(compile_file(FLOW), store=MemoryStore(), settings=load_settings({}))
    said = ["노트북 추천해줘", "200만원", "리뷰 쓸래요", "5점", "배송이 빨라요", "확인",
            "이어폰 찾아줘", "안녕", "고마워", "마우스 추천해줘"]
    for number, message in enumerate(said, 1):
        await engine.reply("m", message, context=CONSUMER)
        record = await engine.store.load("m")
        assert record is not None
        memory = record.data["memory"]
        if number < 10:
            assert not memory.get("summary_text")
            assert len(memory["raw_history"]) == 2 * number
    assert len(memory["raw_history"]) == 2 * 4
    summary = memory["summary_text"]
    assert "review POSTED (rating=5, comment=배송이 빨라요)" in summary
    assert "earlier requests: 노트북 추천해줘 | 200만원" in summary


@pytest.mark.parametrize("window", ["arrived", "executed"])
def test_a_refund_survives_a_kill_mid_call_and_happens_once(tmp_path: Path, window: str) -> None:
    """SIGKILL while the shop API works on the refund: once the request arrived (before the
    shop acted) or once it acted (before it answered). The journal holds the key, the
    restarted server repeats the call with it, and the refund happens once and is recorded
    as accepted."""
    with ShopAPI(delay=4.0) as shop:
        first = serve(tmp_path, shop)
        chat(first.url, "k", "ORD-1004 환불해줘")
        confirm = threading.Thread(target=_send_quietly, args=(first.url, "확인"))
        confirm.start()
        seen = shop.refunds if window == "arrived" else (lambda: shop.executions)
        _wait_for(lambda: len(seen()) == 1)
        first.proc.kill()
        first.output()
        confirm.join()
        assert len(shop.executions) == (0 if window == "arrived" else 1)
        _wait_for(lambda: len(shop.executions) == 1)  # the shop finishes what it was sent
        shop.delay = 0.0
        second = serve(tmp_path, shop)
        try:
            done = chat(second.url, "k", "됐어?")
            assert "환불 요청이 접수됐어요" in done["message"]
            completed = httpx.get(f"{second.url}/v1/agent/completed",
                                  params={"session_id": "k"}).json()["completed"]
            assert [t["outcome"] for t in completed] == ["ACCEPTED"]
        finally:
            second.stop()
        assert len(shop.executions) == 1
        assert len({r[2] for r in shop.refunds()}) == 1  # every attempt under one key


def _send_quietly(url: str, message: str) -> None:
    """POST a turn to a server that is about to be killed (its answer never comes)."""
    with contextlib.suppress(httpx.TransportError):
        httpx.post(f"{url}/v1/agent/chat", timeout=30, json={
            "session_id": "k", "message": message, "context": CONSUMER})


def _wait_for(condition: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the shop API never got there"
        time.sleep(0.01)


FAILURE_TAGS = {"INTENT_LOW_CONFIDENCE", "MULTIPLE_INTENTS_CONFLICT", "AGENT_CALL_FAILED",
                "RESPONSE_SYNTHESIS_FAILED", "MISSING_REQUIRED_SLOTS", "POLICY_BLOCKED",
                "TOOL_GATEWAY_REJECTED", "CONTEXT_OVERFLOW"}
TEST_FILES = [ROOT / "flows" / "commerce.test.yaml", ROOT / "flows" / "commerce.llm.test.yaml"]


def test_the_conversation_tests_produce_every_failure_tag(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A turn's `failure_tags` is compared exactly, so a passing conversation that expects a
    tag produced it. Every one of the shop's eight is expected by some conversation, and
    those conversations pass."""
    producers: dict[str, set[str]] = {}
    for path in TEST_FILES:
        for conversation in load_tests(path)[0].conversations:
            for turn in conversation.turns:
                for tag in turn.failure_tags or []:
                    producers.setdefault(tag, set()).add(conversation.name)
    assert set(producers) == FAILURE_TAGS
    assert main(["test", "--json", *map(str, TEST_FILES)]) == 0
    results = {c["name"]: c["passed"] for c in json.loads(capsys.readouterr().out)["conversations"]}
    for tag, names in producers.items():
        assert all(results[name] for name in names), tag
