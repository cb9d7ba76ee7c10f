"""A stdio MCP server is started once and kept: later calls reuse its process; a call that
gets no answer (the process died, it was too slow) stops it and the next call starts it
afresh; closing the engine stops it. The real server process (tests/fakes/mcp_shop) through
the official SDK."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from engine.runtime.calls import mcp
from engine.runtime.calls.mcp import McpFailure, McpHub, McpServer, McpToolError
from tests.conftest import ROOT

SHOP = McpServer(name="shop", command=(sys.executable, "-m", "tests.fakes.mcp_shop"),
                 cwd=str(ROOT))
WAIT = 30.0  # a loaded machine may take seconds to start a Python server


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def ended(pid: int, within: float = 5.0) -> bool:
    """Whether process ``pid`` is gone within ``within`` seconds."""
    for _ in range(int(within * 10)):
        if not alive(pid):
            return True
        await asyncio.sleep(0.1)
    return not alive(pid)


async def pid_of(hub: McpHub) -> int:
    return int((await hub.call("shop", "pid", {}, timeout=WAIT))["pid"])


async def test_later_calls_reuse_the_started_process_and_closing_stops_it() -> None:
    hub = McpHub({"shop": SHOP})
    try:
        first = await pid_of(hub)
        assert (await hub.tool("shop", "track_parcel", timeout=WAIT)).name == "track_parcel"
        stock = await hub.call("shop", "product_stock", {"product_id": "P1"}, timeout=WAIT)
        assert stock["stock"] == 12
        assert await pid_of(hub) == first
    finally:
        await hub.aclose()
    assert not alive(first)
    assert await pid_of(hub) != first  # a closed hub starts the server again when asked
    await hub.aclose()


async def test_calls_at_once_share_one_start() -> None:
    hub = McpHub({"shop": SHOP})
    try:
        pids = await asyncio.gather(*(pid_of(hub) for _ in range(4)))
    finally:
        await hub.aclose()
    assert len(set(pids)) == 1


async def test_a_tool_error_keeps_the_process() -> None:
    hub = McpHub({"shop": SHOP})
    try:
        first = await pid_of(hub)
        with pytest.raises(McpToolError, match="the shop database is down"):
            await hub.call("shop", "broken", {}, timeout=WAIT)
        assert await pid_of(hub) == first
    finally:
        await hub.aclose()


async def killed_while_idle(hub: McpHub, pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    await asyncio.sleep(0.2)
    await hub.call("shop", "product_stock", {"product_id": "P1"}, timeout=WAIT)


async def died_mid_call(hub: McpHub, pid: int) -> None:
    await hub.call("shop", "crash", {}, timeout=WAIT)


async def did_not_answer_in_time(hub: McpHub, pid: int) -> None:
    await hub.call("shop", "slow", {"seconds": 30}, timeout=1)


@pytest.mark.parametrize("failure", [killed_while_idle, died_mid_call, did_not_answer_in_time])
async def test_a_call_without_an_answer_costs_that_call_and_the_next_starts_afresh(
        failure: object) -> None:
    hub = McpHub({"shop": SHOP})
    try:
        first = await pid_of(hub)
        with pytest.raises(McpFailure, match="MCP server 'shop'"):
            await failure(hub, first)  # type: ignore[operator]
        second = await pid_of(hub)
        assert second != first
        assert await ended(first)  # the stopped process is ended in the background
    finally:
        await hub.aclose()


async def test_a_call_that_gives_up_during_the_start_leaves_it_going(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    hub = McpHub({"shop": replace(SHOP, env={"MCP_SHOP_STARTS": str(starts)})})
    try:
        with pytest.raises(McpFailure, match="did not answer within 0.2 s"):
            await hub.call("shop", "pid", {}, timeout=0.2)  # a Python server takes longer
        started = await pid_of(hub)
        assert await pid_of(hub) == started
    finally:
        await hub.aclose()
    assert starts.read_text().split() == [str(started)]


async def test_a_server_that_never_finishes_starting_is_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp, "START_WITHIN", 1.0)
    pid_file = tmp_path / "pid"
    mute = McpServer(name="mute", command=(  # never answers the handshake
        sys.executable, "-c", "import os, sys, time; open(sys.argv[1], 'w').write(str("
        "os.getpid())); time.sleep(60)", str(pid_file)))
    hub = McpHub({"mute": mute})
    began = time.monotonic()
    try:
        with pytest.raises(McpFailure, match="MCP server 'mute'"):
            await hub.call("mute", "anything", {}, timeout=WAIT)
        assert time.monotonic() - began < WAIT / 2  # START_WITHIN ended it, not the call
        assert await ended(int(pid_file.read_text()))
    finally:
        await hub.aclose()
