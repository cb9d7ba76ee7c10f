"""MCP tools through the official SDK against a real MCP server process (tests/fakes/mcp_shop).

Over stdio (the operator's config starts the server) and over streamable HTTP (a server
process this test starts on loopback); in an agent's tool loop (the openai SDK against the
local fake) and as a `call` action. The servers exist only in the operator's configuration
(FLOWCTL_MCP_CONFIG); a server that is dead, missing from it, slow or failing becomes a clear
error, never a traceback.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.calls.mcp import McpConfigError, load_mcp_config
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done
from engine.store import MemoryStore
from tests.conftest import ROOT, TODAY
from tests.fakes.llm_servers import FakeLLMServer, FakeReply, FakeToolCall
from tests.server.processes import Serve

FLOW = """
service: parcels
default_flow: main
models:
  m: {provider: openai, model: test, max_retry: 0, timeout_sec: 10}
tools:
  track_parcel:
    mcp: {server: shop, tool: track_parcel}
    timeout_sec: 20
    rules:
      - {when: "args.order_id == 'A666'", reject: "order {{ args.order_id }} is locked"}
  stock:
    mcp: {server: shop, tool: product_stock}
    result: {type: object, required: [stock]}
    timeout_sec: 20
  slow:
    mcp: {server: shop, tool: slow}
    timeout_sec: 1
actions:
  check_stock: {tool: stock, args: {product_id: "'P1'"}}
intents:
  stock: {keywords: [stock]}
routes: {stock: stock}
flows:
  main:
    initial: TALK
    stages:
      TALK:
        steps:
          - {agent: clerk, prompt: talk, model: m, tools: [track_parcel, slow], fallback: sorry}
  stock:
    initial: CHECK
    stages:
      CHECK:
        steps: [{call: check_stock, ok: found, error: failed}]
      FOUND: {terminal: true, say: in_stock}
      FAILED: {terminal: true, say: no_stock_info}
    transitions:
      - {trigger: found, source: CHECK, dest: FOUND}
      - {trigger: failed, source: CHECK, dest: FAILED}
messages:
  sorry: "잠시 후 다시 시도해 주세요."
  in_stock: "재고 {{ result.stock }}개"
  no_stock_info: "재고를 확인하지 못했어요: {{ result.error }}"
"""


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def http_shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The shop MCP server over streamable HTTP on loopback: (its URL, its calls file)."""
    calls = tmp_path_factory.mktemp("mcp") / "calls.jsonl"
    port = _free_port()
    env = {"PATH": os.environ.get("PATH", ""), "MCP_SHOP_CALLS": str(calls)}
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.mcp_shop", "--http", str(port)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", calls
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def stdio_entry(calls: Path) -> dict[str, Any]:
    return {"command": [sys.executable, "-m", "tests.fakes.mcp_shop"], "cwd": str(ROOT),
            "env": {"MCP_SHOP_CALLS": str(calls)}}


def engine_with(tmp_path: Path, servers: dict[str, Any], llm: FakeLLMServer) -> Engine:
    (tmp_path / "prompts").mkdir(exist_ok=True)
    (tmp_path / "prompts" / "talk.j2").write_text("Use the tools.")
    (tmp_path / "flow.yaml").write_text(FLOW, encoding="utf-8")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"servers": servers}))
    # a generous turn deadline: a loaded machine may take seconds to start a stdio server
    settings = load_settings({**llm.env(), "FLOWCTL_MCP_CONFIG": str(config),
                              "FLOWCTL_TURN_DEADLINE_MS": "30000"})
    return Engine(compile_file(tmp_path / "flow.yaml"), store=MemoryStore(), clock=lambda: TODAY,
                  settings=settings)


def counted(calls: Path) -> list[dict[str, Any]]:
    if not calls.exists():
        return []
    return [json.loads(line) for line in calls.read_text().splitlines()]


async def agent_turn(engine: Engine, llm: FakeLLMServer, *replies: FakeReply) -> Done:
    llm.reset()
    llm.enqueue(*replies)
    try:
        return await engine.reply("s", "where is my parcel?")
    finally:
        await engine.aclose()


def track(order_id: str, tool: str = "track_parcel") -> FakeReply:
    args = {"order_id": order_id} if tool == "track_parcel" else {"seconds": 5}
    return FakeReply(tool_calls=(FakeToolCall(name=tool, arguments=args),))


def told(llm: FakeLLMServer) -> str:
    return str(llm.requests[1].body["messages"][-1]["content"])  # type: ignore[index]


def test_a_served_flow_starts_its_stdio_server_before_the_first_turn(
        tmp_path: Path, llm: FakeLLMServer) -> None:
    """``flowctl serve`` starts the operator's stdio MCP server with the service (the first
    turn does not wait for it), its turns use that one process, and stopping the server
    stops it."""
    starts, calls = tmp_path / "starts", tmp_path / "calls.jsonl"
    engine_with(tmp_path, {"shop": {**stdio_entry(calls), "env": {
        "MCP_SHOP_CALLS": str(calls), "MCP_SHOP_STARTS": str(starts)}}}, llm)
    env = {**llm.env(), "FLOWCTL_MCP_CONFIG": str(tmp_path / "mcp.json"),
           "FLOWCTL_TURN_DEADLINE_MS": "30000"}
    server = Serve(tmp_path / "flow.yaml", "--store", "memory://", env=env,
                   cwd=tmp_path).wait_ready()
    try:
        deadline = time.monotonic() + 60
        while not (starts.exists() and starts.read_text().strip()):
            assert time.monotonic() < deadline, "the MCP server was not started"
            time.sleep(0.1)
        llm.reset()
        llm.enqueue(track("A100"), FakeReply(text="배송중이에요."))
        done = httpx.post(f"{server.url}/v1/agent/chat", timeout=60, json={
            "session_id": "s", "message": "where is my parcel?"}).json()["interaction"]
        assert done["message"] == "배송중이에요."
        assert counted(calls) == [{"tool": "track_parcel", "args": {"order_id": "A100"}}]
    finally:
        server.stop()
    (pid,) = starts.read_text().split()
    for _ in range(50):
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the MCP server outlived flowctl serve")


async def test_an_agent_calls_a_stdio_mcp_tool(tmp_path: Path, llm: FakeLLMServer) -> None:
    calls = tmp_path / "calls.jsonl"
    engine = engine_with(tmp_path, {"shop": stdio_entry(calls)}, llm)
    done = await agent_turn(engine, llm, track("A100"), FakeReply(text="배송중이에요."))
    assert done.message == "배송중이에요."
    assert json.loads(told(llm))["status"] == "배송중"
    assert counted(calls) == [{"tool": "track_parcel", "args": {"order_id": "A100"}}]
    offered = {t["function"]["name"]: t["function"] for t in llm.requests[0].body["tools"]}  # type: ignore[union-attr]
    # the schema and description come from the server's tool list
    assert offered["track_parcel"]["parameters"]["required"] == ["order_id"]
    assert "parcel" in offered["track_parcel"]["description"]


async def test_an_agent_calls_a_streamable_http_mcp_tool(
        tmp_path: Path, llm: FakeLLMServer, http_shop: tuple[str, Path]) -> None:
    url, calls = http_shop
    before = len(counted(calls))
    engine = engine_with(tmp_path, {"shop": {"url": url}}, llm)
    done = await agent_turn(engine, llm, track("A200"), FakeReply(text="배송완료"))
    assert done.message == "배송완료"
    assert json.loads(told(llm))["carrier"] == "한진택배"
    assert counted(calls)[before:] == [{"tool": "track_parcel", "args": {"order_id": "A200"}}]


async def test_a_call_step_runs_an_mcp_tool(tmp_path: Path, llm: FakeLLMServer,
                                           http_shop: tuple[str, Path]) -> None:
    engine = engine_with(tmp_path, {"shop": {"url": http_shop[0]}}, llm)
    done = await engine.reply("s", "stock?")
    await engine.aclose()
    assert done.message == "재고 12개"


@pytest.mark.parametrize(("reply", "expected", "ran"), [
    (track("ZZ"), "error: tool track_parcel failed: Error executing tool track_parcel: "
                  "no order ZZ", True),
    (track("A666"), "error: rejected by the gateway: order A666 is locked", False),
    (FakeReply(tool_calls=(FakeToolCall(name="track_parcel", arguments={"id": 1}),)),
     "error: rejected by the gateway: invalid arguments for track_parcel: 'order_id' is a "
     "required property", False),
    (track("", tool="slow"), "error: tool slow failed: MCP server 'shop' did not answer "
                             "within 1 s", True),
])
async def test_mcp_tool_failures_are_told_to_the_model(
        tmp_path: Path, llm: FakeLLMServer, http_shop: tuple[str, Path], reply: FakeReply,
        expected: str, ran: bool) -> None:
    url, calls = http_shop
    before = len(counted(calls))
    engine = engine_with(tmp_path, {"shop": {"url": url}}, llm)
    done = await agent_turn(engine, llm, reply, FakeReply(text="미안해요"))
    assert done.message == "미안해요"
    assert told(llm) == expected or told(llm).startswith(expected), told(llm)
    assert (len(counted(calls)) > before) is ran


async def test_a_dead_server_is_a_clear_error(tmp_path: Path, llm: FakeLLMServer) -> None:
    dead = {"command": [sys.executable, "-c", "pass"]}
    engine = engine_with(tmp_path, {"shop": dead}, llm)
    done = await engine.reply("s", "stock?")
    assert done.message.startswith("재고를 확인하지 못했어요: MCP server 'shop' is unavailable")
    # in a tool loop the tools it cannot list are left out, and the trace says why
    done = await agent_turn(engine, llm, FakeReply(text="도구 없이 답해요"))
    assert done.message == "도구 없이 답해요"
    assert "tools" not in llm.requests[0].body
    missing = [a for a in done.trace["agents"] if a["agent"] in ("track_parcel", "slow")]
    assert [a["success"] for a in missing] == [False, False]


async def test_a_server_the_operator_did_not_configure(tmp_path: Path,
                                                      llm: FakeLLMServer) -> None:
    engine = engine_with(tmp_path, {}, llm)
    done = await engine.reply("s", "stock?")
    await engine.aclose()
    assert done.message == ("재고를 확인하지 못했어요: MCP server 'shop' is not configured: the "
                            "operator lists servers in the file FLOWCTL_MCP_CONFIG names")


@pytest.mark.parametrize(("content", "words"), [
    ("{", "cannot be read as JSON"),
    ('{"shop": {}}', 'expected {"servers"'),
    ('{"servers": {"shop": {}}}', "exactly one of `command`"),
    ('{"servers": {"shop": {"command": "python x.py"}}}', "list of strings"),
    ('{"servers": {"shop": {"url": "file:///etc/passwd"}}}', "http(s) URL"),
    ('{"servers": {"shop": {"url": "http://127.0.0.1:1/mcp", "env": {"A": 1}}}}', "`env`"),
])
def test_a_bad_operator_config_names_the_problem(tmp_path: Path, content: str,
                                                words: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(content)
    with pytest.raises(McpConfigError) as err:
        load_mcp_config({"FLOWCTL_MCP_CONFIG": str(path)})
    assert words in str(err.value) and "FLOWCTL_MCP_CONFIG" in str(err.value)


def test_the_flow_file_cannot_name_a_command(tmp_path: Path) -> None:
    text = FLOW.replace("mcp: {server: shop, tool: track_parcel}",
                        "mcp: {server: shop, tool: track_parcel, command: [sh]}")
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "talk.j2").write_text("x")
    (tmp_path / "flow.yaml").write_text(text)
    from engine.errors import FlowDefinitionError

    with pytest.raises(FlowDefinitionError) as err:
        compile_file(tmp_path / "flow.yaml")
    assert [f.code for f in err.value.findings] == ["FL010"]


SCRIPTED = FLOW.replace("m: {provider: openai, model: test, max_retry: 0, timeout_sec: 10}",
                        "m: {provider: scripted, fixture: replies.yaml}")
REPLIES = """
- tool_calls: [{name: track_parcel, arguments: {order_id: A100}}]
- reply: "A100은 배송중이에요."
- tool_calls: [{name: track_parcel, arguments: {order_id: A666}}]
- reply: "그 주문은 조회할 수 없어요."
"""
CONVERSATIONS = """
conversations:
  - name: a stubbed MCP tool answers the scripted model, behind the gateway
    stubs:
      track_parcel: {result: {status: 배송중}}
    turns:
      - {user: "내 택배 어디야?", say: "A100은 배송중이에요."}
      - {user: "A666은?", say: "그 주문은 조회할 수 없어요.",
         failure_tags: [TOOL_GATEWAY_REJECTED]}
"""


def test_flowctl_test_runs_a_stubbed_mcp_tool_with_no_server(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "talk.j2").write_text("Use the tools.")
    (tmp_path / "flow.yaml").write_text(SCRIPTED, encoding="utf-8")
    (tmp_path / "replies.yaml").write_text(REPLIES, encoding="utf-8")
    (tmp_path / "flow.test.yaml").write_text(CONVERSATIONS, encoding="utf-8")
    env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}  # no keys
    ran = subprocess.run([sys.executable, "-m", "cli", "test", str(tmp_path / "flow.test.yaml")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 passed, 0 failed" in ran.stdout
