"""LLM calls per turn, and the engine's time-to-first-token overhead.

1. Calls and tokens per turn: the transfer conversations of bench/turns.py (the DESIGN §5
   behaviours) plus paraphrases the keyword rules miss, with a scripted LLM that answers
   every understanding and chat call. Beside it, the calls the seeds' pipeline makes for the
   same turns (IntentAgent when no flow is in progress, SlotFillerAgent unless READY
   decides by code, InteractionAgent for FILLING/INIT and general chat — seed 000 §12,
   seed 001), counted by that rule, not run.
2. Time to first token: a local OpenAI-compatible server streams a reply at fixed
   intervals; the first LLM_TOKEN of a turn (engine, SQLite store) is compared with the
   first token the OpenAI SDK itself yields for the same request (median of N runs), on
   an agent step (a flow whose stage is one agent), a chat turn of flows/transfer.yaml
   ("안녕하세요": understanding, then the chat agent's words) and a routing turn (a paraphrase
   only the model reads; the flow's template answers: time to DONE against the SDK's own
   non-streamed call). Every fake call waits 50 ms before its first byte.

Run from the repository root: python bench/llm.py [--runs 40]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
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
from engine.runtime.engine import Engine  # noqa: E402
from engine.runtime.events import Done, LlmToken  # noqa: E402
from engine.runtime.models import ModelPool  # noqa: E402
from engine.store import MemoryStore, SqliteStore  # noqa: E402
from tests.fakes.llm_servers import FakeLLMServer, FakeReply  # noqa: E402

TODAY = dt.datetime(2026, 11, 22, 9, 0).astimezone()
PARAPHRASES = [["어머니께 오만 원 부쳐줘", "확인"], ["동생 계좌로 2만 원만 넣어줄래", "확인"]]
def _transfer(target: str, amount: int) -> dict[str, Any]:
    return {"intent": "transfer", "confidence": 0.95, "operations": [
        {"op": "set", "slot": "target", "value": target},
        {"op": "set", "slot": "amount", "value": amount}]}


REPLIES = [
    {"match": "부쳐", "repeat": True, "json": _transfer("어머니", 50000)},
    {"match": "넣어줄래", "repeat": True, "json": _transfer("동생", 20000)},
    {"match": "^안녕", "json": {"intent": None, "confidence": 0.1, "operations": []}},
    {"match": "^안녕", "reply": "안녕하세요! 무엇을 도와드릴까요?"},
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
    turns = calls = seed = tokens_in = tokens_out = zero_call_confirms = confirms = 0
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
            turns, calls = turns + 1, calls + made
            snap = done.state_snapshot
            seed += seed_calls(before, snap["stage"], snap["flow"])
            for agent in done.trace["agents"]:
                tokens_in += agent.get("tokens_in", 0)
                tokens_out += agent.get("tokens_out", 0)
            if before == "READY" and text in ("확인", "취소"):
                confirms += 1
                zero_call_confirms += made == 0
            before = snap["stage"]
    return {"turns": turns, "calls": calls, "seed_calls": seed, "tokens_in": tokens_in,
            "tokens_out": tokens_out, "confirms": confirms,
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


async def time_to_first_token(runs: int, interval: float) -> dict[str, float]:
    reply = FakeReply(text="안녕하세요 오늘은 무엇을 도와드릴까요 " * 4,
                      token_interval_sec=interval)
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer(default=reply) as server:
        (Path(tmp) / "prompts").mkdir()
        (Path(tmp) / "prompts" / "chat.j2").write_text("You are a helpful assistant.")
        (Path(tmp) / "chat.yaml").write_text(CHAT_FLOW)
        service = compile_file(Path(tmp) / "chat.yaml")
        engine = Engine(service, store=SqliteStore(Path(tmp) / "s.db"),
                        settings=load_settings(server.env()), clock=lambda: TODAY)
        provider = build_provider("openai", server.env())
        config = ModelConfig(provider="openai", model="bench", max_retry=0, timeout_sec=10)
        request = ChatRequest(system="You are a helpful assistant.",
                              messages=(ChatMessage(role="user", content="안녕"),))
        sdk, eng = [], []
        for i in range(runs + 3):
            # both streams are drained to the end, so neither run competes with a leftover
            start = time.perf_counter()
            async for event in provider.stream(request, config):
                if isinstance(event, TextDelta) and len(sdk) <= i:
                    sdk.append(time.perf_counter() - start)
            start = time.perf_counter()
            async for event in engine.turn(f"t{i}", "안녕"):
                if isinstance(event, LlmToken) and len(eng) <= i:
                    eng.append(time.perf_counter() - start)
        await engine.aclose()
        await provider.aclose()  # type: ignore[attr-defined]
    sdk, eng = sdk[3:], eng[3:]  # warm-up
    return {"sdk_ms": statistics.median(sdk) * 1000, "engine_ms": statistics.median(eng) * 1000}


THINK = 0.05  # the fake model's time before its first byte, on every call


def understanding_reply(obj: dict[str, Any]) -> FakeReply:
    import json

    return FakeReply(text=json.dumps(obj, ensure_ascii=False), delay_sec=THINK)


async def transfer_turns(runs: int, interval: float) -> dict[str, float]:
    """flows/transfer.yaml on the fake server: a chat turn ("안녕하세요": the model's own
    words, streamed) and a routing turn (a paraphrase only the model reads; its flow's
    template answers), each beside the SDK's own call for the same answer."""
    chat = FakeReply(text="안녕하세요 오늘은 무엇을 도와드릴까요 " * 4, delay_sec=THINK,
                     token_interval_sec=interval)
    routing = understanding_reply(_transfer("어머니", 50000))
    request = ChatRequest(system="You are a helpful assistant.",
                          messages=(ChatMessage(role="user", content="안녕"),))
    config = ModelConfig(provider="openai", model="bench", max_retry=0, timeout_sec=10)
    out: dict[str, list[float]] = {"chat_sdk": [], "chat_engine": [], "route_sdk": [],
                                   "route_engine": []}
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer() as server:
        service = compile_file(ROOT / "flows" / "transfer.yaml")
        engine = Engine(service, store=SqliteStore(Path(tmp) / "s.db"),
                        settings=load_settings(server.env()), clock=lambda: TODAY)
        provider = build_provider("openai", server.env())
        for i in range(runs + 3):
            server.reset()
            server.enqueue(chat)
            start = time.perf_counter()
            async for event in provider.stream(request, config):
                if isinstance(event, TextDelta) and len(out["chat_sdk"]) <= i:
                    out["chat_sdk"].append(time.perf_counter() - start)
            server.reset()  # the turn's calls in order: understanding, then the chat agent
            server.enqueue(understanding_reply(
                {"intent": None, "confidence": 0.1, "operations": []}), chat)
            start = time.perf_counter()
            async for event in engine.turn(f"chat{i}", "안녕하세요"):
                if isinstance(event, LlmToken) and len(out["chat_engine"]) <= i:
                    out["chat_engine"].append(time.perf_counter() - start)
            server.reset()
            server.enqueue(routing)
            start = time.perf_counter()
            await provider.complete(request, config)
            out["route_sdk"].append(time.perf_counter() - start)
            server.reset()
            server.enqueue(routing)
            start = time.perf_counter()
            async for event in engine.turn(f"route{i}", "어머니께 오만 원 부쳐줘"):
                if isinstance(event, Done):
                    out["route_engine"].append(time.perf_counter() - start)
                    assert event.state_snapshot["flow"] == "transfer", event.message
        await engine.aclose()
        await provider.aclose()  # type: ignore[attr-defined]
    return {k: statistics.median(v[3:]) * 1000 for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    counts = asyncio.run(count_calls())
    t = counts["turns"]
    print(f"LLM calls over {t} turns: flowctl {counts['calls']} ({counts['calls'] / t:.2f}/turn), "
          f"seed pipeline {counts['seed_calls']} ({counts['seed_calls'] / t:.2f}/turn)")
    print(f"tokens/turn: in {counts['tokens_in'] / t:.0f}, out {counts['tokens_out'] / t:.0f}; "
          f"confirm/cancel turns with zero calls: {counts['zero_call_confirms']}/"
          f"{counts['confirms']}")
    ttft = asyncio.run(time_to_first_token(args.runs, interval=0.02))
    print(f"agent step, time to first token (median of {args.runs}): SDK "
          f"{ttft['sdk_ms']:.2f} ms, engine turn {ttft['engine_ms']:.2f} ms, overhead "
          f"{ttft['engine_ms'] - ttft['sdk_ms']:.2f} ms")
    both = asyncio.run(transfer_turns(args.runs, interval=0.02))
    print(f"chat turn (transfer flow, '안녕하세요'), time to first token: SDK "
          f"{both['chat_sdk']:.2f} ms, engine turn {both['chat_engine']:.2f} ms, overhead "
          f"{both['chat_engine'] - both['chat_sdk']:.2f} ms")
    print(f"routing turn (a paraphrase the model reads), time to the answer: SDK call "
          f"{both['route_sdk']:.2f} ms, engine DONE {both['route_engine']:.2f} ms, overhead "
          f"{both['route_engine'] - both['route_sdk']:.2f} ms")


if __name__ == "__main__":
    main()
