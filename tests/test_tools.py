"""Tools declared in the flow file (HTTP) and the gateway every request passes.

The agent tool loop runs on the real openai SDK against a local wire-compatible fake; the
tools are served by a loopback API that counts its requests; the `call` path runs the
shipped transfer flow against the loopback bank of the money-safety tests. Tool failures
(junk, timeouts, HTTP errors, wrong shapes, too many rounds) reach the model as text, or a
step as its `error` outcome, never as a traceback.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledRule, CompiledService
from engine.compiler.front import analyse_file
from engine.compiler.templates import compile_expression, compile_template
from engine.config import load_settings
from engine.errors import FlowDefinitionError
from engine.runtime.calls.gateway import rejection
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done
from engine.store import MemoryStore
from tests.conftest import ROOT, TODAY
from tests.fakes.bank import TOOL_ACTION, Bank
from tests.fakes.llm_servers import FakeLLMServer, FakeReply, FakeToolCall
from tests.fakes.tool_server import ToolServer

AGENT_FLOW = """
service: orders
default_flow: main
models:
  m: {provider: openai, model: test, max_retry: 0, timeout_sec: 5}
tools:
  order_status:
    description: Look up the status of an order by its id.
    parameters:
      type: object
      properties: {order_id: {type: string, pattern: '^[A-Z]+[0-9]*$'}}
      required: [order_id]
    result:
      type: object
      properties: {status: {type: string}}
      required: [status]
    http: {method: GET, url: "{{ env.SHOP_URL }}/orders/{{ args.order_id }}"}
    timeout_sec: 0.5
    rules:
      - {when: "args.order_id == 'A666'", reject: "order {{ args.order_id }} is under review"}
flows:
  main:
    initial: TALK
    stages:
      TALK:
        steps:
          - {agent: clerk, prompt: talk, model: m, tools: [order_status], max_rounds: 3,
             fallback: sorry}
messages:
  sorry: "잠시 후 다시 시도해 주세요."
"""


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
def shop() -> Iterator[ToolServer]:
    with ToolServer() as api:
        yield api


def write_flow(directory: Path, text: str, name: str = "flow.yaml") -> Path:
    (directory / "prompts").mkdir(exist_ok=True)
    (directory / "prompts" / "talk.j2").write_text("Use the tools to answer.")
    (directory / name).write_text(text, encoding="utf-8")
    return directory / name


async def ask(engine: Engine, message: str, sid: str = "s") -> Done:
    done = await engine.reply(sid, message)
    return done


async def agent_turn(tmp_path: Path, llm: FakeLLMServer, shop: ToolServer,
                     *replies: FakeReply) -> tuple[Done, Engine]:
    llm.reset()
    llm.enqueue(*replies)
    service = compile_file(write_flow(tmp_path, AGENT_FLOW))
    engine = Engine(service, store=MemoryStore(), clock=lambda: TODAY,
                    settings=load_settings({**llm.env(), "SHOP_URL": shop.url}))
    try:
        return await ask(engine, "where is my order?"), engine
    finally:
        await engine.aclose()


def calls(order_id: str) -> FakeReply:
    return FakeReply(tool_calls=(FakeToolCall(name="order_status",
                                              arguments={"order_id": order_id}),))


def tool_message(llm: FakeLLMServer, index: int = 1) -> str:
    return str(llm.requests[index].body["messages"][-1]["content"])  # type: ignore[index]


async def test_the_model_calls_a_declared_http_tool(tmp_path: Path, llm: FakeLLMServer,
                                                    shop: ToolServer) -> None:
    done, _ = await agent_turn(tmp_path, llm, shop, calls("A100"),
                               FakeReply(text="It has shipped."))
    assert done.message == "It has shipped."
    assert shop.hits["/orders/A100"] == 1
    assert json.loads(tool_message(llm)) == {"order_id": "A100", "status": "shipped"}
    offered = llm.requests[0].body["tools"][0]["function"]  # type: ignore[index]
    assert offered["name"] == "order_status"
    assert offered["parameters"]["required"] == ["order_id"]
    assert "failure_tags" not in done.trace


@pytest.mark.parametrize(("order_id", "told", "hit"), [
    ("a-1", "error: rejected by the gateway: invalid arguments for order_status: order_id: "
            "'a-1' does not match", False),
    ("A666", "error: rejected by the gateway: order A666 is under review", False),
    ("JUNK", "error: tool order_status failed: order_status answered with something that is "
             "not JSON", True),
    ("SLOW", "error: tool order_status failed: order_status timed out after 0.5 s", True),
    ("BROKEN", "error: tool order_status failed: order_status answered HTTP 500", True),
    ("NOPE", "error: tool order_status failed: order_status answered HTTP 404", True),
    ("WRONG", "error: tool order_status failed: order_status answered with an unexpected "
              "result ('status' is a required property)", True),
])
async def test_a_failing_tool_is_told_to_the_model(tmp_path: Path, llm: FakeLLMServer,
                                                   shop: ToolServer, order_id: str, told: str,
                                                   hit: bool) -> None:
    done, _ = await agent_turn(tmp_path, llm, shop, calls(order_id),
                               FakeReply(text="Sorry, I could not check it."))
    assert done.message == "Sorry, I could not check it."  # the turn goes on
    assert tool_message(llm).startswith(told), tool_message(llm)
    assert (sum(shop.hits.values()) > 0) is hit
    rejected = "rejected" in told
    assert ("TOOL_GATEWAY_REJECTED" in done.trace.get("failure_tags", [])) is rejected
    entry = next(a for a in done.trace["agents"] if a["agent"] == "order_status")
    assert entry["success"] is False


async def test_a_model_that_keeps_calling_tools_gets_the_fallback(
        tmp_path: Path, llm: FakeLLMServer, shop: ToolServer) -> None:
    done, _ = await agent_turn(tmp_path, llm, shop, calls("A1"), calls("A2"), calls("A3"),
                               FakeReply(text="never asked"))
    assert done.message == "잠시 후 다시 시도해 주세요."
    assert len(llm.requests) == 3  # max_rounds: 3 model calls, no fourth
    assert shop.hits["/orders/A1"] == shop.hits["/orders/A2"] == shop.hits["/orders/A3"] == 1
    assert "AGENT_CALL_FAILED" in done.trace["failure_tags"]


async def test_bad_json_arguments_from_the_model_never_reach_the_tool(
        tmp_path: Path, llm: FakeLLMServer, shop: ToolServer) -> None:
    bad = FakeReply(tool_calls=(FakeToolCall(name="order_status", arguments="{not json"),))
    done, _ = await agent_turn(tmp_path, llm, shop, bad, FakeReply(text="ok"))
    assert done.message == "잠시 후 다시 시도해 주세요."  # an unusable reply: the fallback
    assert sum(shop.hits.values()) == 0
    assert "AGENT_CALL_FAILED" in done.trace["failure_tags"]


# -- the gateway on its own -----------------------------------------------------------------

RULE = CompiledRule(compile_expression("args.amount > 500000 and context.get('tier') != 'gold'"),
                    compile_template("{{ args.amount }} is over the limit"))
SCHEMA = {"type": "object", "properties": {"amount": {"type": "integer", "minimum": 1}},
          "required": ["amount"], "additionalProperties": False}


@pytest.mark.parametrize(("args", "view", "expected"), [
    ({"amount": 1000}, {"context": {}}, None),
    ({"amount": 600000}, {"context": {"tier": "gold"}}, None),
    ({"amount": 600000}, {"context": {}}, "600000 is over the limit"),
    ({"amount": 0}, {"context": {}}, "invalid arguments for refund: amount: 0 is less than the "
                                     "minimum of 1"),
    ({}, {"context": {}}, "invalid arguments for refund: 'amount' is a required property"),
    ({"amount": 5, "to": "x"}, {"context": {}}, "invalid arguments for refund: Additional "
                                                "properties are not allowed ('to' was "
                                                "unexpected)"),
    ({"amount": 600000}, {}, "refund: a gateway rule could not be checked (UndefinedError)"),
])
def test_the_gateway_checks_the_schema_then_the_rules(args: dict[str, Any],
                                                      view: dict[str, Any],
                                                      expected: str | None) -> None:
    assert rejection("refund", SCHEMA, (RULE,), args, view) == expected


# -- tools behind actions: the money path ---------------------------------------------------

BANK_TOOL = """    tool: bank_api
    label: 이체 실행 중
    irreversible: true
    timeout_sec: 5
    args: {to: slots.target, amount: slots.amount}
"""
TOOLS_SECTION = """
tools:
  bank_api:
    description: Send money.
    irreversible: true
    parameters:
      type: object
      properties: {to: {type: string, minLength: 1}, amount: {type: integer, minimum: 1}}
      required: [to, amount]
    result: {type: object, required: [transaction_id]}
    http: {url: "{{ env.BANK_URL }}/transfers"}
    rules:
      - when: "args.amount > 500000"
        reject: "{{ args.amount }}원은 한 번에 보낼 수 없어요 (한도 50만원)."
"""


@pytest.fixture
def bank() -> Iterator[Bank]:
    running = Bank().start()
    yield running
    running.stop()


def bank_tool_flow(directory: Path) -> CompiledService:
    text = (ROOT / "flows" / "transfer.yaml").read_text(encoding="utf-8")
    assert TOOL_ACTION in text
    shutil.copytree(ROOT / "prompts", directory / "prompts", dirs_exist_ok=True)
    (directory / "flows").mkdir(exist_ok=True)
    path = directory / "flows" / "bank.yaml"
    path.write_text(text.replace(TOOL_ACTION, BANK_TOOL) + TOOLS_SECTION, encoding="utf-8")
    return compile_file(path)


async def test_an_irreversible_tool_action_runs_once_with_its_key(tmp_path: Path,
                                                                  bank: Bank) -> None:
    engine = Engine(bank_tool_flow(tmp_path), store=MemoryStore(), clock=lambda: TODAY,
                    settings=load_settings({"BANK_URL": bank.url}))
    assert (await ask(engine, "엄마한테 1만원 보내줘")).state_snapshot["stage"] == "READY"
    assert bank.executions == []  # nothing before the user's yes
    done = await ask(engine, "확인")
    assert done.state_snapshot["stage"] == "EXECUTED", done.message
    assert len(bank.executions) == 1
    key, body = bank.requests[0]
    assert key and body == {"to": "엄마", "amount": 10000}


async def test_a_rejected_irreversible_action_never_runs(tmp_path: Path, bank: Bank) -> None:
    engine = Engine(bank_tool_flow(tmp_path), store=MemoryStore(), clock=lambda: TODAY,
                    settings=load_settings({"BANK_URL": bank.url}))
    await ask(engine, "엄마한테 60만원 보내줘")
    done = await ask(engine, "확인")
    assert bank.requests == [] and bank.executions == []
    assert done.trace["failure_tags"] == ["TOOL_GATEWAY_REJECTED"]
    record = await engine.store.load("s")
    assert record is not None and not record.data.get("journal")  # nothing left pending
    step = next(a for a in done.trace["agents"] if a["agent"] == "send_money")
    assert step["success"] is False


# -- what the compiler refuses --------------------------------------------------------------

HTTP_TOOL = "    http: {url: 'http://127.0.0.1:1/x'}\n"


@pytest.mark.parametrize(("tools", "uses", "code", "words"), [
    ("  t:\n    parameters: {type: strin}\n" + HTTP_TOOL, "[t]", "FL086", "invalid JSON Schema"),
    ("  t:\n    parameters: {type: array}\n" + HTTP_TOOL, "[t]", "FL086", "object schema"),
    ("  t:\n    result: {required: 3}\n" + HTTP_TOOL, "[t]", "FL086", "invalid JSON Schema"),
    ("  t:\n" + HTTP_TOOL, "[tt]", "FL021", "unknown tool `tt`"),
    ("  t:\n" + HTTP_TOOL, "[shop.track_parcel]", "FL087", "not declared"),
    ("  calculator:\n" + HTTP_TOOL, "[calculator]", "FL089", "built-in"),
    ("  t:\n    irreversible: true\n" + HTTP_TOOL, "[t]", "FL046", "irreversible tool"),
    ("  t:\n    rules: [{when: 'argz.x > 1', reject: no}]\n" + HTTP_TOOL, "[t]", "FL031",
     "`argz` is not defined"),
    ("  t:\n    http: {url: '{{ slots.x }}'}\n", "[t]", "FL031", "`slots` is not defined"),
])
def test_tool_mistakes_are_located_findings(tmp_path: Path, tools: str, uses: str, code: str,
                                            words: str) -> None:
    head, rest = AGENT_FLOW.split("tools:\n", 1)
    tail = rest.split("flows:", 1)[1].replace("tools: [order_status]", f"tools: {uses}")
    text = f"{head}tools:\n{tools}flows:{tail}"
    with pytest.raises(FlowDefinitionError) as err:
        compile_file(write_flow(tmp_path, text))
    found = [(f.code, f.message) for f in err.value.findings]
    assert any(c == code and words in m for c, m in found), found


def test_both_http_and_mcp_is_refused(tmp_path: Path) -> None:
    text = AGENT_FLOW.replace("    timeout_sec: 0.5\n",
                              "    timeout_sec: 0.5\n    mcp: {server: shop, tool: x}\n")
    with pytest.raises(FlowDefinitionError) as err:
        compile_file(write_flow(tmp_path, text))
    assert any("exactly one of `http` or `mcp`" in f.message for f in err.value.findings)


def test_an_unused_tool_is_a_lint_warning(tmp_path: Path) -> None:
    text = AGENT_FLOW.replace("tools: [order_status], ", "")
    _, findings = analyse_file(write_flow(tmp_path, text))
    assert [(f.code, f.message) for f in findings if f.code == "FL088"] == [
        ("FL088", "tool `order_status` is never used")]


async def test_an_http_action_s_own_rules_reject_before_it_runs(tmp_path: Path,
                                                                bank: Bank) -> None:
    from tests.fakes.bank import HTTP_ACTION

    text = (ROOT / "flows" / "transfer.yaml").read_text(encoding="utf-8")
    rules = ("    rules:\n      - {when: \"args.to == '용걸이'\", "
             "reject: \"{{ args.to }}에게는 보낼 수 없어요\"}\n")
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts", dirs_exist_ok=True)
    (tmp_path / "flows").mkdir()
    path = tmp_path / "flows" / "bank.yaml"
    path.write_text(text.replace(TOOL_ACTION, HTTP_ACTION + rules), encoding="utf-8")
    engine = Engine(compile_file(path), store=MemoryStore(), clock=lambda: TODAY,
                    settings=load_settings({"BANK_URL": bank.url}))
    await ask(engine, "용걸이한테 1만원 보내줘")
    done = await ask(engine, "확인")
    assert bank.requests == []
    assert done.state_snapshot["stage"] == "FAILED"
    assert done.trace["failure_tags"] == ["TOOL_GATEWAY_REJECTED"]
    await ask(engine, "엄마한테 1만원 보내줘", sid="t")
    assert (await ask(engine, "확인", sid="t")).state_snapshot["stage"] == "EXECUTED"
    assert len(bank.executions) == 1
