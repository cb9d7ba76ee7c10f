"""The understanding path against a real model behind an OpenAI-compatible server.

Runs the eval sets (``flows/*.eval.yaml``, or the files named) with the service's
understanding model pointed at ``--base-url`` (llama-cpp-python's server, llama.cpp's,
vLLM, Ollama), and reports per file what the model did with the turns the rules left
unsettled:

- model calls, and calls per turn (at most one is the design);
- schema-valid replies: the reply parses and satisfies the JSON Schema the call carried;
- intents outside the enum (an intent the service does not have);
- ungrounded values dropped (a value the user never said, tagged ``UNGROUNDED_VALUE``);
- cases read right (the eval's own scoring), timeouts;
- time to the first byte of a reply and the whole call (median, max), and the turn.

Model weights are never part of flowctl: start the server yourself (docs/providers.md,
"Local models"). ``--fake`` runs the same measurement against flowctl's local wire-
compatible fake server instead (a smoke run: it answers every call with an empty
reading), so the script itself is tested without a model.

Run from the repository root:
  python bench/local_model.py --base-url http://127.0.0.1:8080/v1 --model qwen2.5-0.5b \
      --form json_object_schema --timeout 60 --deadline-ms 60000
  python bench/local_model.py --fake --limit 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

import jsonschema  # noqa: E402

from engine.compiler import compile_file  # noqa: E402
from engine.config import load_settings  # noqa: E402
from engine.providers.base import (  # noqa: E402
    ChatRequest,
    Completion,
    Finished,
    ModelConfig,
    Provider,
    StreamEvent,
    TextDelta,
)
from engine.providers.forms import FORMS  # noqa: E402
from engine.providers.jsonout import extract_json  # noqa: E402
from engine.providers.registry import build_provider  # noqa: E402
from engine.runtime.calls.models import ModelPool  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402
from engine.store import MemoryStore  # noqa: E402
from engine.testing.evaluate import check_names, compare, find_eval_files, load_eval  # noqa: E402


@dataclass(slots=True)
class Call:
    """One request to the model: its reply's text, when its first byte came, how long."""

    schema: Mapping[str, Any] | None
    first_byte_ms: float | None = None
    total_ms: float = 0.0
    text: str | None = None
    error: str | None = None

    def schema_valid(self) -> bool:
        if self.text is None:
            return False
        try:
            reply = extract_json(self.text)
            if self.schema is not None:
                jsonschema.validate(reply, self.schema)
        except (ValueError, jsonschema.ValidationError):
            return False
        return True

    def intent_outside(self, intents: set[str]) -> bool:
        try:
            intent = extract_json(self.text or "").get("intent")
        except ValueError:
            return False
        return intent is not None and intent not in intents


@dataclass(slots=True)
class Recording:
    """A provider that records every call it passes on."""

    inner: Provider
    calls: list[Call] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def supports_streaming(self) -> bool:
        return self.inner.supports_streaming

    @property
    def supports_tools(self) -> bool:
        return self.inner.supports_tools

    async def complete(self, request: ChatRequest, model: ModelConfig) -> Completion:
        call = Call(request.schema)
        self.calls.append(call)
        started = time.perf_counter()
        try:
            completion = await self.inner.complete(request, model)
        except Exception as err:
            call.error = f"{type(err).__name__}: {err}"
            raise
        finally:
            call.total_ms = (time.perf_counter() - started) * 1000
        call.text, call.first_byte_ms = completion.text, call.total_ms
        return completion

    async def stream(self, request: ChatRequest, model: ModelConfig
                     ) -> AsyncIterator[StreamEvent]:
        call = Call(request.schema)
        self.calls.append(call)
        started = time.perf_counter()
        try:
            async for event in self.inner.stream(request, model):
                if isinstance(event, TextDelta) and call.first_byte_ms is None:
                    call.first_byte_ms = (time.perf_counter() - started) * 1000
                if isinstance(event, Finished):  # a reply the turn read to its end
                    call.text = event.completion.text
                yield event
        except Exception as err:
            call.error = f"{type(err).__name__}: {err}"
            raise
        finally:
            call.total_ms = (time.perf_counter() - started) * 1000

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()


@dataclass(slots=True)
class FileResult:
    path: str
    cases: int = 0
    right: int = 0
    model_turns: int = 0
    ungrounded: int = 0
    timeouts: int = 0
    turn_ms: list[float] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    outside: int = 0


async def run_file(path: Path, env: Mapping[str, str], limit: int | None) -> FileResult:
    spec, source, flow_path = load_eval(path)
    service = compile_file(flow_path)
    check_names(spec, source, service)
    name = service.understanding_model
    if name is None:
        raise SystemExit(f"{path}: its flow has no understanding model to point at a server")
    settings = load_settings({**env, **spec.env})
    pool = ModelPool(service, settings.env)
    live = pool.get(name)
    if live is None:
        raise SystemExit(f"{path}: model {name} runs offline: {pool.offline.get(name)}")
    recording = Recording(live.provider)
    pool = ModelPool(service, settings.env, providers={name: recording})  # type: ignore[dict-item]
    engine = Engine(service, store=MemoryStore(), settings=settings, models=pool)
    intents = set(service.intent_names)
    result = FileResult(str(path))
    try:
        for i, case in enumerate(spec.cases[:limit]):
            session = f"bench-{i}"
            context = case.context if case.context is not None else spec.context
            for earlier in case.after:
                await engine.reply(session, earlier, context=context)
            before = len(recording.calls)
            started = time.perf_counter()
            done = await engine.reply(session, case.message, context=context)
            result.turn_ms.append((time.perf_counter() - started) * 1000)
            reading = done.trace.get("reading")
            problems = compare(case.expect, reading)[0] if reading else ("no reading",)
            result.cases += 1
            result.right += not problems
            made = recording.calls[before:]
            result.model_turns += bool(made)
            result.ungrounded += "UNGROUNDED_VALUE" in done.trace.get("failure_tags", [])
            result.timeouts += any("timeout" in str(a.get("error")) for a in done.trace["agents"])
            result.outside += sum(c.intent_outside(intents) for c in made)
    finally:
        result.calls = recording.calls
        await engine.aclose()
    return result


def _ms(values: Sequence[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.0f} / {max(values):.0f}"


def report(results: Sequence[FileResult], label: str) -> None:
    print(f"model: {label}")
    print("schema-valid counts the replies read to their end (the turn drops the rest of a")
    print("reply once its routing fields took the turn elsewhere)")
    print("| eval file | cases | right | model turns | calls | calls/turn | schema-valid | "
          "outside enum | ungrounded dropped | timeouts | first byte ms (median / max) | "
          "call ms | turn ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        valid = sum(c.schema_valid() for c in r.calls)
        answered = [c for c in r.calls if c.text is not None]
        per_turn = f"{len(r.calls) / r.model_turns:.2f}" if r.model_turns else "-"
        print(f"| {r.path} | {r.cases} | {r.right} | {r.model_turns} | {len(r.calls)} | "
              f"{per_turn} | {valid}/{len(answered)} | {r.outside} | {r.ungrounded} | "
              f"{r.timeouts} | {_ms([c.first_byte_ms for c in r.calls if c.first_byte_ms])} | "
              f"{_ms([c.total_ms for c in answered])} | {_ms(r.turn_ms)} |")


def fake_reply() -> str:
    return json.dumps({"intent": None, "confidence": 0.1, "alternatives": [], "operations": [],
                       "tasks": [], "message": "안녕하세요"})


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="eval files (default: flows/*.eval.yaml)")
    parser.add_argument("--base-url", help="the server's OpenAI-compatible base URL (…/v1)")
    parser.add_argument("--model", default="local", help="the model name the server knows")
    parser.add_argument("--form", choices=FORMS, help="OPENAI_JSON_FORM for the server")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per call")
    parser.add_argument("--deadline-ms", type=int, default=60000, help="the turn deadline")
    parser.add_argument("--limit", type=int, help="cases per file")
    parser.add_argument("--fake", action="store_true",
                        help="flowctl's fake server instead of a model (a smoke run)")
    args = parser.parse_args()
    if not args.fake and not args.base_url:
        parser.error("name the server with --base-url, or pass --fake")
    files = find_eval_files(args.files or ["flows"])
    fake = None
    if args.fake:
        from tests.fakes.llm_servers import FakeLLMServer, FakeReply

        fake = FakeLLMServer(default=FakeReply(text=fake_reply(), token_interval_sec=0.001))
        fake.start()
        base_url = fake.openai_base_url
    else:
        base_url = args.base_url
    results = []
    try:
        for path in files:
            service = compile_file(load_eval(path)[2])
            name = service.understanding_model
            if name is None:
                print(f"{path}: skipped, its flow has no understanding model")
                continue
            env = {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "not-needed",
                   f"FLOWCTL_MODEL_{name.upper()}": f"openai:{args.model},"
                                                    f"timeout={args.timeout}",
                   "FLOWCTL_TURN_DEADLINE_MS": str(args.deadline_ms)}
            if args.form:
                env["OPENAI_JSON_FORM"] = args.form
            build_provider("openai", env)  # fails early, naming what is missing
            results.append(await run_file(path, env, args.limit))
    finally:
        if fake is not None:
            fake.stop()
    report(results, "the fake server (empty readings)" if args.fake
           else f"{args.model} at {base_url}" + (f", form {args.form}" if args.form else ""))


if __name__ == "__main__":
    asyncio.run(main())
