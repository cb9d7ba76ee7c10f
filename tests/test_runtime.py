"""Runtime: the events of a turn, DONE always last, failures that save nothing, the store."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.runtime import turn_run as turn_module
from engine.runtime.calls import actions
from engine.runtime.engine import Engine
from engine.runtime.understanding.understand import Understanding
from engine.runtime.values.events import Done, wire
from engine.store import MemoryStore, SqliteStore
from engine.store.base import JSON
from tests.conftest import TODAY


async def test_first_turn_events_in_seed_order(engine: Engine) -> None:
    events = [e async for e in engine.turn("s", "엄마한테 1만원 보내줘")]
    assert [wire(e) for e in events[:-1]] == [
        ("AGENT_START", {"agent": "intent", "label": "의도 파악 중"}),
        ("AGENT_DONE", {"agent": "intent", "label": "의도 파악 중", "success": True,
                        "result": "transfer"}),
        ("AGENT_START", {"agent": "understand", "label": "정보 추출 중"}),
        ("AGENT_DONE", {"agent": "understand", "label": "정보 추출 중", "success": True,
                        "stage": "CHECKING"}),
        # the transfer calls its balance flow before it asks to confirm
        ("AGENT_START", {"agent": "lookup_balance", "label": "잔액 조회 중"}),
        ("AGENT_DONE", {"agent": "lookup_balance", "label": "잔액 조회 중", "success": True,
                        "result": {"balance": 10_000_000, "currency": "KRW"}}),
    ]
    done = events[-1]
    assert isinstance(done, Done)
    name, payload = wire(done)
    assert name == "DONE"
    assert set(payload) == {"message", "next_action", "ui_hint", "state_snapshot", "hooks",
                            "_trace", "requires_confirmation", "next_suggested_actions"}
    assert payload["next_action"] == "CONFIRM"
    assert payload["ui_hint"] == {"buttons": ["확인", "취소"]}
    snap = payload["state_snapshot"]
    assert snap["stage"] == "READY"
    assert snap["slots"] == {"target": "엄마", "amount": 10000, "when": None}
    assert snap["missing_required"] == [] and snap["filling_turns"] == 0
    assert snap["meta"]["slot_errors"] == {} and snap["task_queue"] == []
    trace = payload["_trace"]
    assert len(trace["turn_id"]) == 8 and trace["total_elapsed_ms"] > 0
    assert [a["agent"] for a in trace["agents"]] == ["intent", "understand", "lookup_balance"]
    assert [(op["op"], op["flow"]) for op in trace["stack"]] == [
        ("start", "transfer"), ("push", "transfer"), ("start", "balance"), ("pop", "transfer")]
    assert snap["stack"] == []


async def test_mid_flow_turn_skips_intent(engine: Engine) -> None:
    first = [wire(e) for e in [e async for e in engine.turn("s", "엄마한테 보내줘")]]
    assert ("AGENT_START", {"agent": "intent", "label": "의도 파악 중"}) in first  # the control
    assert first[-1][1]["state_snapshot"]["stage"] == "FILLING"
    # "3만원" names no intent: routed afresh it would go to the default `chat` flow
    events = [wire(e) for e in [e async for e in engine.turn("s", "3만원")]]
    started = [p["agent"] for n, p in events if n in ("AGENT_START", "AGENT_DONE")]
    assert "intent" not in started and started == ["understand", "understand",
                                                    "lookup_balance", "lookup_balance"]
    done = events[-1][1]
    assert [a["agent"] for a in done["_trace"]["agents"]] == ["understand", "lookup_balance"]
    snap = done["state_snapshot"]
    assert (snap["flow"], snap["stage"]) == ("transfer", "READY")
    assert snap["slots"] == {"target": "엄마", "amount": 30000, "when": None}  # target kept
    assert snap["filling_turns"] == 1  # a new task would have started counting from 0
    assert done["message"] == "엄마에게 3만원을 이체할까요?"


async def test_confirm_turn_runs_the_action_with_progress(engine: Engine) -> None:
    await engine.reply("s", "엄마한테 만원, 용걸이한테 5만원 보내줘")
    events = [wire(e) for e in [e async for e in engine.turn("s", "확인")]]
    # task 1 runs; task 2 comes up and its balance is checked before its confirmation
    assert [n for n, _ in events] == ["AGENT_START", "AGENT_DONE", "TASK_PROGRESS",
                                      "AGENT_START", "AGENT_DONE", "AGENT_START",
                                      "AGENT_DONE", "DONE"]
    assert events[2][1] == {"index": 1, "total": 2,
                            "slots": {"target": "엄마", "amount": 10000, "when": None}}
    assert events[4][1]["result"]["transaction_id"].startswith("tx-")


async def test_empty_message_changes_nothing(engine: Engine) -> None:
    done = await engine.reply("s", "   ")
    assert done.message == "질문을 입력해주세요."
    assert await engine.store.load("s") is None


async def test_oversized_message_is_refused(transfer: CompiledService) -> None:
    engine = Engine(transfer, store=MemoryStore(),
                    settings=load_settings({"FLOWCTL_MAX_MESSAGE_CHARS": "10"}))
    done = await engine.reply("s", "엄마한테 1만원 보내줘 " * 3)
    assert "10자" in done.message and await engine.store.load("s") is None


async def test_a_failure_inside_a_turn_ends_in_done_and_saves_nothing(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    await engine.reply("s", "엄마한테 보내줘")
    before = await engine.store.load("s")

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("extractor bug")

    monkeypatch.setattr(turn_module, "understand", broken)
    events = [e async for e in engine.turn("s", "3만원")]
    done = events[-1]
    assert isinstance(done, Done)
    assert done.message == "죄송해요, 처리 중 문제가 생겼어요. 잠시 후 다시 시도해 주세요."
    assert done.state_snapshot["stage"] == "FILLING"
    assert done.trace["error"] == "turn_failed"
    assert await engine.store.load("s") == before
    assert await engine.store.completed("s") == []


async def test_a_failure_around_an_irreversible_call_never_rolls_the_task_back(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal keeps the confirmed task pending; the next turn finishes it first."""
    await engine.reply("s", "엄마한테 1만원 보내줘")
    real = actions.TOOLS["sandbox_bank"]

    async def broken(args: Any, key: str) -> dict[str, Any]:
        raise RuntimeError("bank SDK bug")

    monkeypatch.setitem(actions.TOOLS, "sandbox_bank", broken)
    done = await engine.reply("s", "확인")
    assert done.trace["error"] == "turn_failed"
    assert done.state_snapshot["stage"] == "CONFIRMED"  # never back to READY
    record = await engine.store.load("s")
    assert record is not None
    assert [e["status"] for e in record.data["journal"].values()] == ["pending"]
    assert await engine.store.completed("s") == []

    monkeypatch.setitem(actions.TOOLS, "sandbox_bank", real)
    done = await engine.reply("s", "취소")  # the task is resolved before the message counts
    assert done.state_snapshot["stage"] == "EXECUTED"
    assert "완료" in done.message
    assert [c["outcome"] for c in await engine.store.completed("s")] == ["EXECUTED"]


async def test_no_understanding_can_confirm_outside_ready(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Even a (hypothetical) LLM saying `confirm` at FILLING cannot execute: the machine has
    no confirm transition there."""
    await engine.reply("s", "엄마한테 보내줘")
    monkeypatch.setattr(turn_module, "understand",
                        lambda *a, **k: Understanding(decision="confirm"))
    done = await engine.reply("s", "just do it")
    assert done.state_snapshot["stage"] == "FILLING"
    assert await engine.store.completed("s") == []


async def test_memory_survives_the_reset_after_a_task(engine: Engine) -> None:
    await engine.reply("s", "엄마한테 1만원 보내줘")
    await engine.reply("s", "확인")
    record = await engine.store.load("s")
    assert record is not None
    assert record.data["slots"] == {}
    history = record.data["memory"]["raw_history"]
    said = [h["content"] for h in history if h["role"] == "user"]
    assert said == ["엄마한테 1만원 보내줘", "확인"]
    assert record.data["done"][0]["slots"] == {"target": "엄마", "amount": 10000, "when": None}


async def test_turns_of_one_session_are_serialised(engine: Engine) -> None:
    messages = ["엄마한테 보내줘", "3만원", "확인"]
    await asyncio.gather(*(engine.reply("s", m) for m in messages))
    record = await engine.store.load("s")
    # three turns, plus the action journal's write before the transfer
    assert record is not None and record.version == 4
    assert len(record.data["memory"]["raw_history"]) == 6


async def test_sqlite_sessions_survive_a_restart(transfer: CompiledService, tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    first = Engine(transfer, store=SqliteStore(path), clock=lambda: TODAY)
    await first.reply("s", "엄마한테 1만원 보내줘")
    await first.store.close()
    second = Engine(transfer, store=SqliteStore(path), clock=lambda: TODAY)
    done = await second.reply("s", "확인")
    assert done.state_snapshot["stage"] == "EXECUTED"
    assert [c["outcome"] for c in await second.store.completed("s")] == ["EXECUTED"]


class ConflictingStore(MemoryStore):
    """Another writer commits the session while our turn runs."""

    async def commit(self, session_id: str, data: JSON, *, expected_version: int,
                     completed: Any = (), final: bool = True) -> int:
        await MemoryStore.commit(self, session_id, {"stage": "OTHER"},
                                 expected_version=expected_version)
        return await MemoryStore.commit(self, session_id, data,
                                        expected_version=expected_version, completed=completed)


async def test_a_stale_commit_is_refused_not_overwritten(transfer: CompiledService) -> None:
    engine = Engine(transfer, store=ConflictingStore(), clock=lambda: TODAY)
    done = await engine.reply("s", "엄마한테 1만원 보내줘")
    assert done.trace.get("error") == "turn_failed"
    record = await engine.store.load("s")
    assert record is not None and record.data == {"stage": "OTHER"}


async def test_max_fill_turns_from_the_environment_wins(transfer: CompiledService) -> None:
    engine = Engine(transfer, store=MemoryStore(),
                    settings=load_settings({"FLOWCTL_MAX_FILL_TURNS": "2"}))
    stages = [(await engine.reply("s", m)).state_snapshot["stage"]
              for m in ["엄마한테 보내줘", "음", "음"]]
    assert stages == ["FILLING", "FILLING", "UNSUPPORTED"]


def one_slot_flow(flow: str, keyword: str, slot: str, spec: str, ask: str, ok: str) -> str:
    """A service whose one flow asks for one slot (ASKING, with the slot's error if any),
    then ends saying ``ok``."""
    return f"""
service: demo
default_flow: {flow}
intents: {{{flow}: {{keywords: [{keyword}]}}}}
slots:
  {slot}: {spec}
flows:
  {flow}:
    slots: [{slot}]
    initial: INIT
    stages:
      INIT: {{}}
      ASKING: {{say: ask}}
      OK: {{say: ok, terminal: true}}
    transitions:
      - {{trigger: update, source: [INIT, ASKING], dest: OK, when: not missing}}
      - {{trigger: update, source: [INIT, ASKING], dest: ASKING}}
messages:
  ask: "{ask}"
  ok: "{ok}"
"""


VALIDATED = one_slot_flow(
    "pay", "pay", "amount", '{type: money, required: true, validator: "rules:small_only"}',
    ask="{{ errors.amount if errors.amount else 'how much?' }}", ok="paying {{ slots.amount }}")


async def test_validator_module_beside_the_flow(tmp_path: Path) -> None:
    (tmp_path / "rules.py").write_text(
        "def small_only(value, slots):\n"
        "    return True if value <= 100 else f'at most $100, not ${value}'\n")
    (tmp_path / "pay.yaml").write_text(VALIDATED)
    engine = Engine(compile_file(tmp_path / "pay.yaml"), store=MemoryStore())
    done = await engine.reply("s", "pay $500")
    assert (done.state_snapshot["stage"], done.message) == ("ASKING", "at most $100, not $500")
    assert (await engine.reply("s", "$50")).message == "paying 50"


class BankAPI:
    """A loopback bank API for one test: answers 503 to the first ``failures`` attempts of
    every Idempotency-Key, then 200; records every call as (key, JSON body)."""

    def __init__(self) -> None:
        self.failures = 1
        self.calls: list[tuple[str | None, dict[str, Any]]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                key = self.headers.get("Idempotency-Key")
                with lock:
                    api.calls.append((key, body))
                    ok = sum(k == key for k, _ in api.calls) > api.failures
                    answer = {"transaction_id": f"b-{len(api.calls)}"} if ok else {"ok": False}
                self.send_response(200 if ok else 503)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps(answer).encode())

            def log_message(self, *args: Any) -> None:
                pass

        lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"


@pytest.fixture
def bank() -> Iterator[BankAPI]:
    api = BankAPI()
    thread = threading.Thread(target=api.server.serve_forever, daemon=True)
    thread.start()
    yield api
    api.server.shutdown()
    api.server.server_close()
    thread.join(timeout=5)


HTTP_FLOW = """
service: demo
default_flow: pay
slots:
  amount: {type: money, required: true}
actions:
  bank:
    http: {url: "{{ env.BANK_URL }}/transfers", json: {amount: slots.amount}}
    retries: 1
    timeout_sec: 5
flows:
  pay:
    slots: [amount]
    initial: INIT
    stages:
      INIT: {}
      ASKING: {}
      CALL:
        steps: [{call: bank, ok: paid, error: failed}]
      PAID: {say: paid, terminal: true}
      FAILED: {terminal: true}
    transitions:
      - {trigger: update, source: [INIT, ASKING], dest: CALL, when: not missing}
      - {trigger: update, source: [INIT, ASKING], dest: ASKING}
      - {trigger: paid, source: CALL, dest: PAID}
      - {trigger: failed, source: CALL, dest: FAILED}
messages:
  paid: "paid: {{ result.transaction_id }}"
"""


async def test_http_action_retries_with_one_idempotency_key(tmp_path: Path,
                                                            bank: BankAPI) -> None:
    (tmp_path / "pay.yaml").write_text(HTTP_FLOW.replace("retries: 1", "retries: 2"))
    engine = Engine(compile_file(tmp_path / "pay.yaml"), store=MemoryStore(),
                    settings=load_settings({"BANK_URL": bank.url}))

    bank.failures = 2  # two 503s, then the third (last allowed) attempt succeeds
    done = await engine.reply("s", "$20")
    assert (done.state_snapshot["stage"], done.message) == ("PAID", "paid: b-3")
    assert len(bank.calls) == 3
    first_key = bank.calls[0][0]
    assert first_key and bank.calls == [(first_key, {"amount": 20})] * 3

    bank.failures = 100  # the bank stays down: 1 attempt + 2 retries, then the error trigger
    done = await engine.reply("t", "$30")
    assert done.state_snapshot["stage"] == "FAILED"
    again = bank.calls[3:]
    assert len(again) == 3
    second_key = again[0][0]
    assert second_key and again == [(second_key, {"amount": 30})] * 3
    assert second_key != first_key  # one key per task, not one for every payment


async def test_a_flow_file_cannot_switch_on_dev_mode(transfer: CompiledService) -> None:
    settings = load_settings({}).with_flow_defaults({"dev_mode": True, "max_fill_turns": 3})
    assert settings.dev_mode is False and settings.max_fill_turns == 3


class BrokenStore(MemoryStore):
    async def load(self, session_id: str) -> Any:
        raise OSError("disk gone")


async def test_a_store_that_cannot_load_still_ends_in_done(transfer: CompiledService) -> None:
    engine = Engine(transfer, store=BrokenStore(), clock=lambda: TODAY)
    events = [e async for e in engine.turn("s", "엄마한테 1만원 보내줘")]
    assert len(events) == 1 and isinstance(events[0], Done)
    assert events[0].trace["error"] == "turn_failed"


async def test_a_consumer_that_leaves_mid_turn_still_gets_the_turn_committed(
        engine: Engine) -> None:
    await engine.reply("s", "엄마한테 1만원 보내줘")
    stream = engine.turn("s", "확인")
    async for event in stream:
        if wire(event)[0] == "AGENT_START" and wire(event)[1]["agent"] == "send_money":
            break  # the action is about to run; the listener goes away
    await stream.aclose()
    assert [c["outcome"] for c in await engine.store.completed("s")] == ["EXECUTED"]
    record = await engine.store.load("s")
    assert record is not None and record.data["stage"] == "EXECUTED"


async def test_a_service_can_reword_a_builtin_text(tmp_path: Path) -> None:
    (tmp_path / "f.yaml").write_text(
        "service: d\ndefault_flow: main\nflows:\n  main:\n    initial: A\n    stages:\n"
        "      A: {say: hi}\nmessages:\n  hi: 안녕\n"
        "  message_too_long: '{{ limit }}자까지만 돼요.'\n")
    engine = Engine(compile_file(tmp_path / "f.yaml"), store=MemoryStore(),
                    settings=load_settings({"FLOWCTL_MAX_MESSAGE_CHARS": "5"}))
    assert (await engine.reply("s", "안녕하세요 반가워요")).message == "5자까지만 돼요."


PHONE = one_slot_flow(
    "call", "call me", "phone", "{type: string, required: true, pattern: 'PATTERN', "
    'validator: "rules:digits", extract: {bare: true}}',
    ask="{{ 'refused' if errors.get('phone') else 'your number?' }}",
    ok="calling {{ slots.phone }}")


@pytest.mark.parametrize(("pattern", "said"), [
    (r"\d{11}", "refused"),  # the pattern sees the text as typed: the dashes fail it
    (r"01[016789]-?\d{3,4}-?\d{4}", "calling 01012345678"),  # written for how people type
])
async def test_a_pattern_is_a_bound_checked_before_a_normalising_validator(
        tmp_path: Path, pattern: str, said: str) -> None:
    (tmp_path / "rules.py").write_text(
        "def digits(value, slots):\n"
        "    return {'value': ''.join(c for c in value if c.isdigit())}\n")
    (tmp_path / "call.yaml").write_text(PHONE.replace("PATTERN", pattern))
    engine = Engine(compile_file(tmp_path / "call.yaml"), store=MemoryStore())
    await engine.reply("s", "call me")
    assert (await engine.reply("s", "010-1234-5678")).message == said
