"""LLM calls per turn, and the engine's time-to-first-token overhead.

1. Calls and tokens per turn: the transfer conversations of bench/turns.py plus
   paraphrases the keyword rules miss, with a scripted LLM that answers every understanding
   and chat call. Beside it, the calls a classic agent-per-job pipeline makes for the same
   turns (an intent agent when no flow is in progress, a slot-filler agent unless READY
   decides by code, an interaction agent for FILLING/INIT and general chat), counted by
   that rule, not run.
2. Time to first token: a local OpenAI-compatible server streams a reply at fixed
   intervals; the first LLM_TOKEN of a turn (engine, SQLite store) is compared with the
   first token the OpenAI SDK itself yields for the same reply (median of N runs), for
   - an agent step (a chat flow whose agent makes the turn's call),
   - a chat turn of flows/transfer.yaml (the one call understands and answers; the
     provider's own first token of the *message* is the fair floor, and its first token
     at all is printed too: the routing fields come before the message),
   - a routing turn of flows/transfer.yaml (no token: DONE, compared with the moment the
     SDK has the routing fields, after which the engine drops the stream).

Run from the repository root: python bench/llm.py [--runs 40]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

from bench.conversations import CONVERSATIONS  # noqa: E402
from engine.compiler import compile_file  # noqa: E402
from engine.config import load_settings  # noqa: E402
from engine.providers.base import ChatMessage, ChatRequest, ModelConfig, TextDelta  # noqa: E402
from engine.providers.registry import build_provider  # noqa: E402
from engine.providers.scripted import ScriptedProvider  # noqa: E402
from engine.runtime.calls.models import ModelPool  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402
from engine.runtime.understanding.onecall import OneCallReader  # noqa: E402
from engine.runtime.values.events import Done, LlmToken  # noqa: E402
from engine.store import MemoryStore, SqliteStore  # noqa: E402
from tests.fakes.llm_servers import FakeLLMServer, FakeReply  # noqa: E402

TODAY = dt.datetime(2026, 11, 22, 9, 0).astimezone()
PARAPHRASES = [["어머니 계좌에 오만 원 넣어드려", "확인"],
               ["동생 계좌로 2만 원만 넣어줄래", "확인"]]
def _transfer(target: str, amount: int) -> dict[str, Any]:
    return {"intent": "transfer", "confidence": 0.95, "operations": [
        {"op": "set", "slot": "target", "value": target},
        {"op": "set", "slot": "amount", "value": amount}]}


REPLIES = [
    {"match": "넣어드려", "repeat": True, "json": _transfer("어머니", 50000)},
    {"match": "넣어줄래", "repeat": True, "json": _transfer("동생", 20000)},
    {"match": "^안녕", "json": {"intent": None, "confidence": 0.1, "operations": [],
                               "message": "안녕하세요! 무엇을 도와드릴까요?"}},
]


def seed_calls(stage_before: str | None, stage_after: str, flow: str) -> int:
    """Calls the seeds' class-based pipeline makes for one turn (its documented rules)."""
    in_progress = stage_before in ("FILLING", "READY")
    calls = 0 if in_progress else 1  # IntentAgent
    if flow != "transfer":
        return calls + 1  # DefaultFlowHandler -> InteractionAgent
    if stage_before != "READY":
        calls += 1  # SlotFillerAgent (READY decides confirm/cancel in code)
    if stage_after in ("FILLING", "INIT"):
        calls += 1  # InteractionAgent writes the question
    return calls


async def count_calls() -> dict[str, Any]:
    service = compile_file(ROOT / "flows" / "transfer.yaml")
    turns = calls = seed = tokens_in = tokens_out = zero_call_confirms = confirms = most = 0
    for c, conversation in enumerate([*CONVERSATIONS, *PARAPHRASES]):
        scripted = ScriptedProvider([dict(r) for r in REPLIES])
        pool = ModelPool(service, {}, providers={"fast": scripted})
        engine = Engine(service, store=MemoryStore(), settings=load_settings({}), models=pool,
                        clock=lambda: TODAY)
        before: str | None = None
        for text in conversation:
            asked = len(scripted.requests)
            events = [e async for e in engine.turn(f"c{c}", text)]
            done = events[-1]
            assert isinstance(done, Done)
            made = len(scripted.requests) - asked
            turns, calls, most = turns + 1, calls + made, max(most, made)
            snap = done.state_snapshot
            seed += seed_calls(before, snap["stage"], snap["flow"])
            for agent in done.trace["agents"]:
                tokens_in += agent.get("tokens_in", 0)
                tokens_out += agent.get("tokens_out", 0)
            if before == "READY" and text in ("확인", "취소"):
                confirms += 1
                zero_call_confirms += made == 0
            before = snap["stage"]
    return {"turns": turns, "calls": calls, "most": most, "seed_calls": seed,
            "tokens_in": tokens_in, "tokens_out": tokens_out, "confirms": confirms,
            "zero_call_confirms": zero_call_confirms}


CHAT_FLOW = """
service: ttft
default_flow: chat
models:
  m: {provider: openai, model: bench, max_retry: 0, timeout_sec: 10}
flows:
  chat:
    initial: CHAT
    stages:
      CHAT:
        steps: [{agent: chat, prompt: chat, model: m, fallback: offline}]
messages:
  offline: offline
"""


def _one_call_reply(message: str, interval: float, **slots: Any) -> FakeReply:
    ops = [{"op": "set", "slot": k, "value": v} for k, v in slots.items()]
    text = json.dumps({"intent": "transfer" if slots else None, "confidence": 0.95,
                       "operations": ops, "message": message}, ensure_ascii=False)
    return FakeReply(text=text, chunks=tuple(text[i:i + 4] for i in range(0, len(text), 4)),
                     token_interval_sec=interval)


async def _sdk_marks(provider: Any, config: ModelConfig, request: ChatRequest) -> tuple[
        float, float]:
    """(first delta, first character of the message) as the SDK yields them, in seconds."""
    start = time.perf_counter()
    reader, first, message = OneCallReader(), 0.0, 0.0
    async for event in provider.stream(request, config):
        if isinstance(event, TextDelta):
            first = first or time.perf_counter() - start
            reader.feed(event.text)
            if not message and (reader.head is not None or reader.kind == "plain"):
                message = time.perf_counter() - start
    return first, message


async def _engine_first(engine: Engine, sid: str, text: str) -> tuple[float, float]:
    """(first LLM_TOKEN, DONE) of one turn, in seconds."""
    start, first = time.perf_counter(), 0.0
    async for event in engine.turn(sid, text):
        if isinstance(event, LlmToken) and not first:
            first = time.perf_counter() - start
    return first, time.perf_counter() - start


async def time_to_first_token(runs: int, interval: float) -> dict[str, float]:
    """Medians in ms: agent step, chat turn and routing turn, engine vs the SDK alone."""
    chat = _one_call_reply("안녕하세요 오늘은 무엇을 도와드릴까요 " * 4, interval)
    route = _one_call_reply("네 보내드릴게요 " * 8, interval, target="어머니", amount=50000)
    agent = FakeReply(text="안녕하세요 오늘은 무엇을 도와드릴까요 " * 4,
                      token_interval_sec=interval)
    marks: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer() as server:
        (Path(tmp) / "prompts").mkdir()
        (Path(tmp) / "prompts" / "chat.j2").write_text("You are a helpful assistant.")
        (Path(tmp) / "chat.yaml").write_text(CHAT_FLOW)
        env = {**server.env(), "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "1000"}
        engines = [Engine(compile_file(path), store=SqliteStore(Path(tmp) / f"{i}.db"),
                          settings=load_settings(env), clock=lambda: TODAY)
                   for i, path in enumerate([Path(tmp) / "chat.yaml",
                                             ROOT / "flows" / "transfer.yaml"])]
        provider = build_provider("openai", server.env())
        config = ModelConfig(provider="openai", model="bench", max_retry=0, timeout_sec=10)
        request = ChatRequest(system="You are a helpful assistant.",
                              messages=(ChatMessage(role="user", content="안녕"),))
        cases = [("agent", agent, engines[0], "안녕"), ("chat", chat, engines[1], "안녕하세요"),
                 ("route", route, engines[1], "어머니 계좌에 오만 원 넣어드려")]
        for i in range(runs + 3):
            for name, reply, engine, text in cases:
                # both streams are drained (or dropped) before the next starts
                server.enqueue(reply)
                first, message = await _sdk_marks(provider, config, request)
                server.enqueue(reply)
                token, done = await _engine_first(engine, f"{name}{i}", text)
                if i >= 3:  # warm-up
                    for key, value in ((f"{name}_sdk_first", first),
                                       (f"{name}_sdk_message", message),
                                       (f"{name}_engine_token", token),
                                       (f"{name}_engine_done", done)):
                        marks.setdefault(key, []).append(value)
        for engine in engines:
            await engine.aclose()
        await provider.aclose()
    return {key: statistics.median(values) * 1000 for key, values in marks.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    counts = asyncio.run(count_calls())
    t = counts["turns"]
    print(f"LLM calls over {t} turns: flowctl {counts['calls']} ({counts['calls'] / t:.2f}/turn), "
          f"seed pipeline {counts['seed_calls']} ({counts['seed_calls'] / t:.2f}/turn); "
          f"at most {counts['most']} on one turn")
    print(f"tokens/turn: in {counts['tokens_in'] / t:.0f}, out {counts['tokens_out'] / t:.0f}; "
          f"confirm/cancel turns with zero calls: {counts['zero_call_confirms']}/"
          f"{counts['confirms']}")
    t = asyncio.run(time_to_first_token(args.runs, interval=0.02))
    print(f"time to first token, median of {args.runs} (the fake sends a chunk every 20 ms):")
    print(f"  agent step: SDK {t['agent_sdk_first']:.2f} ms, engine {t['agent_engine_token']:.2f}"
          f" ms, overhead {t['agent_engine_token'] - t['agent_sdk_first']:+.2f} ms")
    print(f"  chat turn:  SDK first token {t['chat_sdk_first']:.2f} ms, first message token "
          f"{t['chat_sdk_message']:.2f} ms; engine {t['chat_engine_token']:.2f} ms, overhead "
          f"{t['chat_engine_token'] - t['chat_sdk_message']:+.2f} ms over the message's")
    print(f"  routing turn: SDK has the routing fields at {t['route_sdk_message']:.2f} ms; "
          f"engine DONE at {t['route_engine_done']:.2f} ms, overhead "
          f"{t['route_engine_done'] - t['route_sdk_message']:+.2f} ms")


if __name__ == "__main__":
    main()
