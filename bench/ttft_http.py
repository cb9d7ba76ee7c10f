"""Time to the first token as a client sees it: HTTP in, SSE out, against the SDK alone.

A local fake provider (tests/fakes/llm_servers.py, OpenAI- and Anthropic-compatible, in a
process of its own so that it shares no interpreter with the client) streams one reply at a
fixed interval between pieces. For each SDK, paired run by run:

- ``sdk``: the official SDK asks the fake directly (``openai.AsyncOpenAI`` /
  ``anthropic.AsyncAnthropic`` with ``stream=True``); the time from the call to its first
  text delta;
- ``flowctl``: a ``flowctl serve`` process (a chat flow whose agent step makes the call
  through that SDK, SQLite store) asked over HTTP on ``/v1/agent/chat/stream``; the time from
  sending the request to the first ``LLM_TOKEN`` frame read off the socket.

The difference is what the engine adds to a user's wait: HTTP, the turn's work before the
call, building the request, relaying the stream. Prints medians and ranges in ms.

Run from the repository root: python bench/ttft_http.py [--runs 40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

import httpx  # noqa: E402

from tests.fakes.llm_servers import FakeLLMServer, FakeReply  # noqa: E402
from tests.server.processes import Serve  # noqa: E402

FLOW = """
service: ttft
default_flow: chat
models:
  m: {{provider: {provider}, model: bench, max_retry: 0, timeout_sec: 10}}
flows:
  chat:
    initial: CHAT
    stages:
      CHAT:
        steps: [{{agent: chat, prompt: chat, model: m, fallback: offline}}]
messages:
  offline: offline
"""
REPLY = FakeReply(text="안녕하세요 오늘은 무엇을 도와드릴까요 " * 4, token_interval_sec=0.005)
SYSTEM = "You are a helpful assistant."


class Fake:
    """The fake provider in a child process (``--fake``): its address, until ``stop``."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--fake"], text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        self.openai_base_url = f"{self.url}/v1"
        self.anthropic_base_url = self.url

    def env(self) -> dict[str, str]:
        return {"OPENAI_API_KEY": "sk-fake", "OPENAI_BASE_URL": self.openai_base_url,
                "ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": self.anthropic_base_url}

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def serve_fake() -> None:
    """The child: serve REPLY to every request until stdin closes."""
    with FakeLLMServer(default=REPLY) as fake:
        print(fake.url, flush=True)
        sys.stdin.read()


async def sdk_first(provider: str, fake: Fake, sdk: object) -> float:
    start = time.perf_counter()
    if provider == "openai":
        stream = await sdk.chat.completions.create(  # type: ignore[attr-defined]
            model="bench", stream=True, max_tokens=256,
            messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": "안녕"}])
        first = 0.0
        async for chunk in stream:
            if not first and chunk.choices and chunk.choices[0].delta.content:
                first = time.perf_counter() - start
        return first
    first = 0.0
    async with sdk.messages.stream(  # type: ignore[attr-defined]
            model="bench", max_tokens=256, system=SYSTEM,
            messages=[{"role": "user", "content": "안녕"}]) as stream:
        async for text in stream.text_stream:
            if not first and text:
                first = time.perf_counter() - start
    return first


async def flowctl_first(client: httpx.AsyncClient, url: str, session: str) -> float:
    start, first, event = time.perf_counter(), 0.0, ""
    async with client.stream("POST", f"{url}/v1/agent/chat/stream",
                             json={"session_id": session, "message": "안녕"}) as response:
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event == "LLM_TOKEN" and not first:
                first = time.perf_counter() - start
    return first


def sdk_client(provider: str, fake: Fake) -> object:
    if provider == "openai":
        import openai
        return openai.AsyncOpenAI(api_key="sk-fake", base_url=fake.openai_base_url)
    import anthropic
    return anthropic.AsyncAnthropic(api_key="sk-ant-fake", base_url=fake.anthropic_base_url)


async def measure(runs: int, fake: Fake, urls: dict[str, str]) -> dict[str, list[float]]:
    marks: dict[str, list[float]] = {}
    sdks = {p: sdk_client(p, fake) for p in urls}
    async with httpx.AsyncClient(timeout=30) as client:
        for i in range(runs + 3):
            for provider, url in urls.items():
                sdk = await sdk_first(provider, fake, sdks[provider])
                served = await flowctl_first(client, url, f"{provider}-{i}")
                if i >= 3:  # warm-up: connections, the first turn's lazy work
                    marks.setdefault(f"{provider} sdk", []).append(sdk * 1000)
                    marks.setdefault(f"{provider} flowctl", []).append(served * 1000)
                    marks.setdefault(f"{provider} added", []).append((served - sdk) * 1000)
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--fake", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fake:
        return serve_fake()
    fake = Fake()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "prompts").mkdir()
        (Path(tmp) / "prompts" / "chat.j2").write_text(SYSTEM)
        servers = {}
        try:
            for provider in ("openai", "anthropic"):
                flow = Path(tmp) / f"{provider}.yaml"
                flow.write_text(FLOW.format(provider=provider))
                env = {**os.environ, **fake.env(), "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "1000"}
                servers[provider] = Serve(flow, "--store", f"sqlite:///{tmp}/{provider}.db",
                                          env=env, cwd=Path(tmp)).wait_ready(60)
            marks = asyncio.run(measure(args.runs, fake, {p: s.url for p, s in servers.items()}))
        finally:
            for server in servers.values():
                server.stop()
            fake.stop()
    print(f"{'ms, ' + str(args.runs) + ' runs':<22}{'median':>9}{'min':>9}{'max':>9}")
    for name, values in marks.items():
        print(f"{name:<22}{statistics.median(values):>9.2f}{min(values):>9.2f}"
              f"{max(values):>9.2f}")


if __name__ == "__main__":
    main()
