"""SIGTERM stops ``flowctl serve`` gracefully: it stops accepting, the turns in flight finish
and every SSE stream gets its DONE, then what it opened is closed and it exits 0."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import aconnect_sse

from tests.server.conftest import ROOT
from tests.server.processes import Serve

SLOW_SECONDS = 2.0
REPLY = "천천히 답했어요."

SLOW_FLOW = """\
service: slow
description: a chat whose model takes its time (the shutdown test)
locale: ko
default_flow: chat
models:
  slow: {provider: scripted, model: slow, fixture: replies.yaml}
flows:
  chat:
    initial: CHAT
    stages:
      CHAT:
        steps:
          - {agent: chat, prompt: chat, model: slow, fallback: chat_offline}
messages:
  chat_offline: (offline)
"""
REPLIES = f"- {{reply: '{REPLY}', delay_ms: {int(SLOW_SECONDS * 1000)}, repeat: true}}\n"


def slow_flow(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")
    (tmp_path / "replies.yaml").write_text(REPLIES, encoding="utf-8")
    flow = tmp_path / "slow.yaml"
    flow.write_text(SLOW_FLOW, encoding="utf-8")
    return flow


async def listen(client: httpx.AsyncClient, session_id: str, started: asyncio.Event,
                 counter: list[int]) -> list[tuple[str, Any]]:
    events = []
    async with aconnect_sse(client, "GET", "/v1/agent/chat/stream",
                            params={"session_id": session_id, "message": "안녕"}) as source:
        assert source.response.status_code == 200
        async for event in source.aiter_sse():
            events.append((event.event, json.loads(event.data)))
            if len(events) == 1:
                counter[0] += 1
                if counter[0] == 5:
                    started.set()
    return events


async def test_sigterm_mid_turn_lets_five_streams_reach_their_done(tmp_path: Path) -> None:
    server = Serve(slow_flow(tmp_path), "--store", f"sqlite:///{tmp_path}/s.db",
                   cwd=tmp_path).wait_ready()
    try:
        started, counter = asyncio.Event(), [0]
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            streams = [asyncio.create_task(listen(client, f"s{i}", started, counter))
                       for i in range(5)]
            await asyncio.wait_for(started.wait(), 10)  # every turn is running now
            sent = time.monotonic()
            server.terminate()
            results = await asyncio.wait_for(asyncio.gather(*streams), 30)
            waited = time.monotonic() - sent
            await asyncio.sleep(0.5)
            try:  # the server no longer accepts new connections
                refused = (await client.get("/healthz")).status_code != 200
            except httpx.TransportError:
                refused = True
        output = await asyncio.to_thread(server.output)
    finally:
        server.stop()
    for events in results:
        names = [name for name, _ in events]
        assert names[0] == "AGENT_START" and names[-1] == "DONE", names
        done = events[-1][1]
        assert done["message"] == REPLY and "error" not in done["_trace"], done
    assert waited < SLOW_SECONDS + 5
    assert refused
    assert server.proc.returncode == 0, output
    assert "Shutting down" in output and "Finished server process" in output
    assert "Traceback" not in output and "ERROR" not in output, output
