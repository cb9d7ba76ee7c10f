"""Models and memory for a newcomer: the shipped minimal flow goes live with a key, the
summary model may be a vendor model name (FLOWCTL_MEMORY_SUMMARY_MODEL=gpt-4o-mini), and the summary
instructions may come from a prompt file (memory.summary_prompt). The LLM is a real HTTP
server on loopback speaking the OpenAI and Anthropic wire formats."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.errors import FlowDefinitionError
from engine.runtime.calls.models import vendor_model
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT, TODAY
from tests.fakes.llm_servers import FakeLLMServer, FakeReply


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


ENGINES: list[Engine] = []


@pytest.fixture(autouse=True)
async def fresh(server: FakeLLMServer) -> Any:
    server.reset()
    yield
    while ENGINES:
        await ENGINES.pop().aclose()


def engine_for(flow: Path, env: dict[str, str]) -> Engine:
    engine = Engine(compile_file(flow), store=MemoryStore(), settings=load_settings(env),
                    clock=lambda: TODAY)
    ENGINES.append(engine)
    return engine


async def test_the_minimal_flow_answers_with_its_model_once_a_key_is_set(
        server: FakeLLMServer) -> None:
    offline = engine_for(ROOT / "flows" / "minimal.yaml", {})
    assert "API 키를 설정하면" in (await offline.reply("s", "안녕")).message
    live = engine_for(ROOT / "flows" / "minimal.yaml", server.env())
    server.enqueue(FakeReply(text="안녕하세요! 무엇을 도와드릴까요?"))
    done = await live.reply("s", "안녕")
    assert done.message == "안녕하세요! 무엇을 도와드릴까요?"
    assert [r.body["model"] for r in server.requests] == ["gpt-4.1-mini"]


PLAIN = """
service: plain
description: Small talk.
locale: en
default_flow: chat
MEMORY
flows:
  chat:
    initial: CHAT
    stages:
      CHAT: {say: echo}
messages:
  echo: You said {{ turn.message }}.
"""

FOLD_EARLY = {"FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "2", "FLOWCTL_MEMORY_KEEP_RECENT_TURNS": "1"}


def _plain(tmp_path: Path, memory: str = "", prompt: str | None = None) -> Path:
    if prompt is not None:
        (tmp_path / "prompts").mkdir()
        (tmp_path / "prompts" / "brief.j2").write_text(prompt, encoding="utf-8")
    (tmp_path / "plain.yaml").write_text(PLAIN.replace("MEMORY", memory), encoding="utf-8")
    return tmp_path / "plain.yaml"


async def _fold(engine: Engine, *, model: bool = True) -> dict[str, Any]:
    """Two turns make the fold due; a summary model writes it after the turn, and the next
    turn applies it (offline, the second turn folds at once)."""
    for message in ("hello", "my name is Kim", *(["ok"] if model else [])):
        await engine.folds.settled()
        await engine.reply("s", message)
    record = await engine.store.load("s")
    assert record is not None
    return dict(record.data["memory"])


@pytest.mark.parametrize(("name", "api", "model"), [
    ("gpt-4o-mini", "openai", "gpt-4o-mini"),
    ("claude-haiku-4-5", "anthropic", "claude-haiku-4-5"),
    ("openai:gpt-4.1-nano", "openai", "gpt-4.1-nano"),
])
async def test_memory_summary_model_may_be_a_vendor_model_name(
        tmp_path: Path, server: FakeLLMServer, name: str, api: str, model: str) -> None:
    engine = engine_for(_plain(tmp_path), {**server.env(), **FOLD_EARLY,
                                           "FLOWCTL_MEMORY_SUMMARY_MODEL": name})
    server.enqueue(FakeReply(text="The user is Kim."))
    memory = await _fold(engine)
    assert memory["summary_text"] == "The user is Kim."
    assert [(r.api, r.body["model"]) for r in server.requests][:1] == [(api, model)]


async def test_a_vendor_summary_model_without_a_key_folds_offline(tmp_path: Path) -> None:
    engine = engine_for(_plain(tmp_path),
                        {**FOLD_EARLY, "FLOWCTL_MEMORY_SUMMARY_MODEL": "gpt-4o-mini"})
    memory = await _fold(engine, model=False)
    assert memory["summary_text"] == "earlier requests: hello"
    assert engine.models.offline["gpt-4o-mini"].startswith("provider 'openai' needs")


def test_vendor_model_names() -> None:
    assert [(s.provider, s.model) for s in map(vendor_model, [
        "gpt-4o-mini", "claude-sonnet-4-5", "anthropic:claude-3-5-haiku-latest", "llama3:8b"])
    ] == [("openai", "gpt-4o-mini"), ("anthropic", "claude-sonnet-4-5"),
          ("anthropic", "claude-3-5-haiku-latest"), ("openai", "llama3:8b")]


async def test_the_summary_prompt_replaces_the_built_in_instructions(
        tmp_path: Path, server: FakeLLMServer) -> None:
    flow = _plain(tmp_path, "memory: {summary_prompt: brief}",
                  "Summarise for {{ service }} ({{ description }}) in {{ locale }}; one line.\n")
    engine = engine_for(flow, {**server.env(), **FOLD_EARLY,
                               "FLOWCTL_MEMORY_SUMMARY_MODEL": "gpt-4o-mini"})
    server.enqueue(FakeReply(text="Kim said hello."))
    assert (await _fold(engine))["summary_text"] == "Kim said hello."
    request = server.requests[0]  # the fold due again after it was applied may follow
    system = request.body["messages"][0]  # type: ignore[index]
    assert system == {"role": "system",
                      "content": "Summarise for plain (Small talk.) in en; one line."}


@pytest.mark.parametrize(("prompt", "code", "where"), [
    (None, "FL026", "prompt `brief` not found"),
    ("Summarise {{ slots }}.", "FL031", "`slots` is not defined in a prompt"),
])
def test_a_summary_prompt_is_checked_at_compile_time(tmp_path: Path, prompt: str | None,
                                                     code: str, where: str) -> None:
    flow = _plain(tmp_path, "memory: {summary_prompt: brief}", prompt)
    with pytest.raises(FlowDefinitionError) as err:
        compile_file(flow)
    assert [(f.code, f.message) for f in err.value.findings] == [(code, where)]


def test_chat_folds_the_summary_in_time_for_the_next_turn(
        tmp_path: Path, server: FakeLLMServer) -> None:
    """`flowctl chat` runs its event loop only inside a turn: the summary the second turn
    left to write is awaited before the third line is read, so the third turn applies it
    (a server does the same, its loop running between requests)."""
    from io import StringIO

    from rich.console import Console

    from engine.transports.terminal import Piped, talk

    engine = engine_for(_plain(tmp_path), {**server.env(), **FOLD_EARLY,
                                           "FLOWCTL_MEMORY_SUMMARY_MODEL": "gpt-4o-mini"})
    server.enqueue(FakeReply(text="The user is Kim."))
    console = Console(file=StringIO())
    talk(engine, "s", Piped(StringIO("hello\nmy name is Kim\nok\n"), console), console,
         verbose=False)
    record = asyncio.run(engine.store.load("s"))
    assert record is not None
    assert record.data["memory"]["summary_text"] == "The user is Kim."


def test_raw_turns_never_exceed_max_raw_turns_the_older_go_into_the_summary(
        tmp_path: Path, server: FakeLLMServer) -> None:
    """A cap that holds whatever else happens: while the summary model is still writing the
    summary that came due, the turns over the cap are summarised offline at once — nothing
    is dropped unsaid, and the raw history does not grow past it."""
    engine = engine_for(_plain(tmp_path), {
        **server.env(), "FLOWCTL_MEMORY_SUMMARY_MODEL": "gpt-4o-mini",
        "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "2", "FLOWCTL_MEMORY_KEEP_RECENT_TURNS": "1",
        "FLOWCTL_MEMORY_MAX_RAW_TURNS": "2"})
    server.enqueue(FakeReply(text="too late", delay_sec=5.0))

    async def three() -> dict[str, Any]:
        for message in ("hello", "my name is Kim", "ok"):
            await engine.reply("s", message)  # the summary due after the second is not back
        record = await engine.store.load("s")
        await engine.folds.aclose()
        assert record is not None
        return dict(record.data["memory"])

    memory = asyncio.run(three())
    assert [h["content"] for h in memory["raw_history"] if h["role"] == "user"] == [
        "my name is Kim", "ok"]
    assert memory["summary_text"] == "earlier requests: hello"


def test_the_cap_is_never_below_the_folding_threshold(tmp_path: Path) -> None:
    """A threshold set higher than the cap keeps its turns raw: the cap only holds while a
    summary is due and not written yet."""
    engine = engine_for(_plain(tmp_path), {"FLOWCTL_MEMORY_MAX_RAW_TURNS": "1",
                                           "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD": "3"})

    async def two() -> dict[str, Any]:
        await engine.reply("s", "hello")
        await engine.reply("s", "again")
        record = await engine.store.load("s")
        assert record is not None
        return dict(record.data["memory"])

    memory = asyncio.run(two())
    assert [h["content"] for h in memory["raw_history"] if h["role"] == "user"] == [
        "hello", "again"]
    assert memory["summary_text"] == ""


AGENT_TURNS = """
service: talker
default_flow: chat
models:
  m: {provider: scripted, fixture: replies.yaml}
flows:
  chat:
    initial: CHAT
    stages:
      CHAT:
        steps:
          - {agent: talk, prompt: talk, model: m, fallback: offline, last_n_turns: TURNS}
messages:
  offline: "..."
"""


@pytest.mark.parametrize(("turns", "sent"), [
    ("1", ["second", "answer", "third"]),
    ("0", ["third"]),
    ("null", ["first", "answer", "second", "answer", "third"]),
])
def test_an_agent_step_sends_its_last_n_turns(tmp_path: Path, turns: str,
                                              sent: list[str]) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "talk.j2").write_text("Talk.", encoding="utf-8")
    (tmp_path / "replies.yaml").write_text('- {match: ".", repeat: true, reply: "answer"}\n',
                                           encoding="utf-8")
    (tmp_path / "talker.yaml").write_text(AGENT_TURNS.replace("TURNS", turns),
                                          encoding="utf-8")
    engine = engine_for(tmp_path / "talker.yaml", {})

    async def talk() -> list[str]:
        for message in ("first", "second", "third"):
            await engine.reply("s", message)
        live = engine.models.get("m")
        assert live is not None
        return [m.content for m in live.provider.requests[-1].messages]  # type: ignore[attr-defined]

    assert asyncio.run(talk()) == sent


@pytest.mark.parametrize("model", [True, False])
async def test_the_summary_is_kept_as_data_too_whoever_writes_its_text(
        tmp_path: Path, server: FakeLLMServer, model: bool) -> None:
    """`memory.summary_struct`: the earlier requests and completed tasks, verbatim, the same
    whether the summary model wrote `summary_text` or the offline summary did."""
    env = {**FOLD_EARLY, **({**server.env(), "FLOWCTL_MEMORY_SUMMARY_MODEL": "gpt-4o-mini"}
                            if model else {})}
    engine = engine_for(_plain(tmp_path), env)
    server.enqueue(FakeReply(text="The user is Kim."))
    memory = await _fold(engine, model=model)
    assert memory["summary_struct"] == {"completed": [], "requests": ["hello"]}
    assert memory["summary_text"] == ("The user is Kim." if model else "earlier requests: hello")
