"""Money moves exactly once and is always recorded, whatever dies when: the action journal,
idempotency keys, final 4xx answers, redacted traces, masked sensitive slots, clean input.

The bank is a real loopback HTTP server that honours Idempotency-Key and counts requests and
executions (tests/fakes/bank.py); the flow is the shipped transfer service with its action
pointed at it.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.runtime.values.events import AgentDone, TaskProgress
from engine.store import MemoryStore
from tests.conftest import ROOT, TODAY
from tests.fakes.bank import HTTP_ACTION, TOOL_ACTION, Bank, bank_flow_text


def bank_flow(directory: Path, *, sensitive: bool = False,
              timeout: float | None = None) -> CompiledService:
    text = bank_flow_text((ROOT / "flows" / "transfer.yaml").read_text(encoding="utf-8"))
    if timeout is not None:
        text = text.replace("    timeout_sec: 5\n    retries: 2\n",
                            f"    timeout_sec: {timeout}\n    retries: 2\n")
    if sensitive:
        text = text.replace("  target:\n    type: string\n", "  target:\n    type: string\n"
                            "    sensitive: true\n")
    shutil.copytree(ROOT / "prompts", directory / "prompts", dirs_exist_ok=True)
    (directory / "flows").mkdir(exist_ok=True)
    (directory / "flows" / "bank.yaml").write_text(text, encoding="utf-8")
    return compile_file(directory / "flows" / "bank.yaml")


@pytest.fixture
def bank() -> Iterator[Bank]:
    running = Bank().start()
    yield running
    running.stop()


def engine_for(service: CompiledService, bank: Bank, store: MemoryStore | None = None,
               **env: str) -> Engine:
    return Engine(service, store=store or MemoryStore(), clock=lambda: TODAY,
                  settings=load_settings({"BANK_URL": bank.url, **env}))


class DyingStore(MemoryStore):
    """Raises on the N-th commit from now, as if the process died right before it."""

    def __init__(self) -> None:
        super().__init__()
        self.die_at: int | None = None

    async def commit(self, session_id: str, data: dict[str, Any], *, expected_version: int,
                     completed: Sequence[Mapping[str, Any]] = (), final: bool = True) -> int:
        if self.die_at is not None:
            self.die_at -= 1
            if self.die_at == 0:
                self.die_at = None
                raise OSError("killed")
        return await super().commit(session_id, data, expected_version=expected_version,
                                    completed=completed, final=final)


async def test_every_task_gets_a_new_random_header_safe_key(tmp_path: Path, bank: Bank) -> None:
    service = bank_flow(tmp_path)
    for _ in range(2):  # two runs of a fresh store with the same session id (flowctl chat)
        engine = engine_for(service, bank)
        await engine.reply("terminal", "엄마한테 1만원 보내줘")
        assert (await engine.reply("terminal", "확인")).state_snapshot["stage"] == "EXECUTED"
    await engine.reply("terminal", "엄마한테 2만원 보내줘")
    await engine.reply("terminal", "확인")
    keys = [key for key, _ in bank.requests]
    assert len(keys) == 3 and len(set(keys)) == 3
    assert all(k and re.fullmatch(r"[0-9a-f]{32}:send_money", k) for k in keys)
    assert len(bank.executions) == 3


@pytest.mark.parametrize("session_id", ["엄마와의 대화", "💸🙂", "a b/c?d"])
async def test_any_session_id_completes_an_http_action(tmp_path: Path, bank: Bank,
                                                       session_id: str) -> None:
    engine = engine_for(bank_flow(tmp_path), bank)
    await engine.reply(session_id, "엄마한테 1만원 보내줘")
    done = await engine.reply(session_id, "확인")
    assert done.state_snapshot["stage"] == "EXECUTED"
    assert [c["outcome"] for c in await engine.store.completed(session_id)] == ["EXECUTED"]


async def test_a_4xx_answer_is_final_and_its_body_stays_on_the_server(
        tmp_path: Path, bank: Bank) -> None:
    engine = engine_for(bank_flow(tmp_path), bank)
    await engine.reply("s", "엄마한테 1만원 보내줘")
    bank.status = 400
    events = [e async for e in engine.turn("s", "확인")]
    done = events[-1]
    assert done.state_snapshot["stage"] == "FAILED"  # type: ignore[union-attr]
    assert len(bank.requests) == 1  # not retried
    shown = repr([getattr(e, "__dict__", None) or e for e in events])
    assert "110-123" not in shown and "core-7" not in shown


async def test_no_settling_answer_leaves_the_transfer_pending_never_failed(
        tmp_path: Path, bank: Bank) -> None:
    """5xx on every retry: the bank may or may not have acted, so the task is not FAILED
    (a retry would then be a new task with a new key); the next turn asks again."""
    engine = engine_for(bank_flow(tmp_path), bank)
    await engine.reply("s", "엄마한테 1만원 보내줘")
    bank.status = 503
    done = await engine.reply("s", "확인")
    assert done.state_snapshot["stage"] == "CONFIRMED"
    assert done.message.startswith("요청하신 작업의 결과를 아직 확인하지 못했어요")
    assert len(bank.requests) == 3 and len({k for k, _ in bank.requests}) == 1
    assert await engine.store.completed("s") == []
    bank.status = 200
    done = await engine.reply("s", "됐어?")
    assert done.state_snapshot["stage"] == "EXECUTED" and len(bank.executions) == 1
    assert len({k for k, _ in bank.requests}) == 1


async def test_a_timeout_is_not_a_failure(tmp_path: Path, bank: Bank) -> None:
    """The bank executes after our timeout: the next turn gets its answer with the same key,
    and the money moves once."""
    service = bank_flow(tmp_path, timeout=0.3)
    engine = engine_for(service, bank)
    await engine.reply("s", "엄마한테 1만원 보내줘")
    bank.delay = 1.0  # executes at 0.5 s, answers at 1 s: after every attempt timed out
    done = await engine.reply("s", "확인")
    assert done.state_snapshot["stage"] == "CONFIRMED"
    await asyncio.sleep(1.0)
    bank.delay = 0.0
    done = await engine.reply("s", "엄마한테 1만원 보내줘")  # a retry by hand
    assert done.state_snapshot["stage"] == "EXECUTED"
    assert len(bank.executions) == 1
    assert [c["outcome"] for c in await engine.store.completed("s")] == ["EXECUTED"]


@pytest.mark.parametrize("retry", ["확인", "취소", "3만원으로 바꿔줘", "안녕"])
async def test_a_death_after_the_call_is_resolved_by_the_next_turn(
        tmp_path: Path, bank: Bank, retry: str) -> None:
    """The bank has the transfer but the turn's commit never happened: the next turn (in a
    new engine, as after a restart) repeats the call with the same key and records it, once,
    as EXECUTED, whatever the user says next."""
    store = DyingStore()
    service = bank_flow(tmp_path)
    engine = engine_for(service, bank, store)
    await engine.reply("s", "엄마한테 1만원 보내줘")
    store.die_at = 2  # the journal's commit goes through; the one after the call dies
    failed = await engine.reply("s", "확인")
    assert failed.trace.get("error") == "turn_failed"
    assert len(bank.executions) == 1 and await store.completed("s") == []

    restarted = engine_for(service, bank, store)
    done = await restarted.reply("s", retry)
    assert done.state_snapshot["stage"] == "EXECUTED"
    assert "완료" in done.message
    assert len(bank.executions) == 1  # the repeat was answered from the bank's first result
    assert len(bank.requests) == 2 and bank.requests[0][0] == bank.requests[1][0]
    completed = await store.completed("s")
    assert [c["outcome"] for c in completed] == ["EXECUTED"]
    assert completed[0]["result"]["transaction_id"] == "tx-1"


async def test_a_death_before_the_call_moves_no_money(tmp_path: Path, bank: Bank) -> None:
    store = DyingStore()
    engine = engine_for(bank_flow(tmp_path), bank, store)
    await engine.reply("s", "엄마한테 1만원 보내줘")
    store.die_at = 1  # the journal's own commit dies: the call must not happen
    failed = await engine.reply("s", "확인")
    assert failed.state_snapshot["stage"] == "READY" and bank.requests == []
    done = await engine.reply("s", "확인")
    assert done.state_snapshot["stage"] == "EXECUTED" and len(bank.executions) == 1


async def test_an_irreversible_action_runs_at_most_once_per_task(tmp_path: Path,
                                                                 bank: Bank) -> None:
    """A flow that loops back into the call's stage reuses the first result."""
    text = (ROOT / "flows" / "transfer.yaml").read_text(encoding="utf-8")
    text = text.replace(TOOL_ACTION, HTTP_ACTION).replace(
        "          - {call: send_money, ok: executed, error: failed}",
        "          - {call: send_money, ok: again, error: failed}\n"
        "          - {trigger: again}").replace(
        "      - {trigger: executed, source: CONFIRMED, dest: EXECUTED}",
        "      - {trigger: again, source: CONFIRMED, dest: CONFIRMED, when: filling_turns < 0}\n"
        "      - {trigger: again, source: CONFIRMED, dest: EXECUTED}")
    (tmp_path / "flows").mkdir()
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")
    (tmp_path / "flows" / "loop.yaml").write_text(text, encoding="utf-8")
    engine = engine_for(compile_file(tmp_path / "flows" / "loop.yaml"), bank)
    await engine.reply("s", "엄마한테 1만원 보내줘")
    done = await engine.reply("s", "확인")
    assert done.state_snapshot["stage"] == "EXECUTED"
    assert len(bank.requests) == 1


async def test_a_provider_error_text_reaches_no_client_outside_dev_mode(
        transfer: CompiledService) -> None:
    from tests.fakes.llm_servers import FakeLLMServer, FakeReply

    async with FakeLLMServer() as server:
        server.enqueue(*[FakeReply(status=401, error_message="Incorrect API key provided: "
                                   "sk-secret-123")] * 8)
        env = {"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-secret-123"}
        for dev, leaks in (("false", False), ("true", True)):
            engine = Engine(transfer, store=MemoryStore(), clock=lambda: TODAY,
                            settings=load_settings({**env, "FLOWCTL_DEV_MODE": dev}))
            done = await engine.reply("s", "날씨 어때?")
            assert ("sk-secret-123" in repr(done.trace)) is leaks
            assert any(a.get("error") for a in done.trace["agents"])
            await engine.aclose()


async def test_sensitive_slots_are_masked_wherever_they_are_shown(tmp_path: Path,
                                                                  bank: Bank) -> None:
    engine = engine_for(bank_flow(tmp_path, sensitive=True), bank)
    await engine.reply("s", "김철수123456한테 1만원, 이영희654321한테 2만원 보내줘")
    events = [e async for e in engine.turn("s", "확인")]
    done = events[-1]
    shown = [e.slots for e in events if isinstance(e, TaskProgress)]
    shown.append(done.state_snapshot["slots"])  # type: ignore[union-attr]
    shown += [c["slots"] for c in await engine.store.completed("s")]
    assert all(s["target"] is None or s["target"].startswith("•••") for s in shown), shown
    results = [e.result for e in events if isinstance(e, AgentDone)]
    hooks = done.hooks  # type: ignore[union-attr]
    stored = await engine.store.completed("s")
    assert "김철수123456" not in repr([shown, results, hooks, stored])
    assert bank.executions[0]["to"] == "김철수123456"  # the bank gets the real value


async def test_invisible_characters_never_reach_understanding(transfer: CompiledService) -> None:
    engine = Engine(transfer, store=MemoryStore(), clock=lambda: TODAY,
                    settings=load_settings({}))
    done = await engine.reply("s", "엄\u200d마한테 1만원 보내줘\ufeff")
    assert done.state_snapshot["slots"]["target"] == "엄마"
    blank = await engine.reply("t", "\u200b\u200c\u2060")
    assert blank.message == "질문을 입력해주세요."
    odd = await engine.reply("u", "확인\ud800")
    assert odd.trace.get("error") is None


@pytest.mark.parametrize("marked", ["예\u0336", "o\u0338k\u0338", "y\u0335e\u0335s\u0335",
                                    "확\u0301인", "응\u0334", "sure\u20d2"])
async def test_a_yes_struck_through_or_marked_moves_no_money(transfer: CompiledService,
                                                            marked: str) -> None:
    """A yes drawn over with a line, or with marks no one types on Hangul, reads as its
    letters, but is never the user's own clear yes: the question is asked again."""
    engine = Engine(transfer, store=MemoryStore(), clock=lambda: TODAY,
                    settings=load_settings({}))
    await engine.reply("s", "이모한테 2만원 보내줘")
    done = await engine.reply("s", marked)
    assert done.state_snapshot["stage"] == "READY"
    assert await engine.store.completed("s") == []
    assert (await engine.reply("s", "네")).state_snapshot["stage"] == "EXECUTED"


async def test_a_session_belongs_to_the_principal_that_created_it(
        transfer: CompiledService) -> None:
    engine = Engine(transfer, store=MemoryStore(), clock=lambda: TODAY,
                    settings=load_settings({}))
    await engine.reply("s", "엄마한테 1만원 보내줘", owner="alice")
    stranger = await engine.reply("s", "확인", owner="mallory")
    assert stranger.trace.get("error") == "forbidden"
    assert stranger.state_snapshot["stage"] is None and stranger.state_snapshot["slots"] == {}
    blank = await engine.reply("s", " ", owner="mallory")  # a refusal shows nothing either
    assert blank.state_snapshot["slots"] == {}
    assert await engine.store.completed("s") == []
    assert not await engine.may_use("s", "mallory") and await engine.may_use("s", "alice")
    assert await engine.may_use("new", "mallory")
    done = await engine.reply("s", "확인", owner="alice")
    assert done.state_snapshot["stage"] == "EXECUTED"


async def test_a_pending_action_is_finished_at_start_up(tmp_path: Path, bank: Bank) -> None:
    store = DyingStore()
    service = bank_flow(tmp_path)
    engine = engine_for(service, bank, store)
    await engine.reply("s", "엄마한테 1만원 보내줘")
    store.die_at = 2
    await engine.reply("s", "확인")
    restarted = engine_for(service, bank, store)
    done = await restarted.finish_pending("s")
    assert done is not None and done.state_snapshot["stage"] == "EXECUTED"
    assert [c["outcome"] for c in await store.completed("s")] == ["EXECUTED"]
    assert len(bank.executions) == 1
    assert await restarted.finish_pending("s") is None  # nothing left to finish
    record = await store.load("s")
    assert record is not None and "완료" in record.data["memory"]["raw_history"][-1]["content"]
    later = await restarted.reply("s", "총 얼마 보냈어?")  # told first how it ended
    assert later.message.startswith(done.message) and "완료" in later.message
    assert later.trace.get("error") is None and len(bank.executions) == 1
    again = await restarted.reply("s", "안녕")
    assert not again.message.startswith(done.message)  # told once


async def test_all_pending_sessions_are_finished_at_start_up(tmp_path: Path, bank: Bank) -> None:
    store = DyingStore()
    service = bank_flow(tmp_path)
    engine = engine_for(service, bank, store)
    for session_id in ("a", "b"):
        await engine.reply(session_id, "엄마한테 1만원 보내줘")
        store.die_at = 2
        await engine.reply(session_id, "확인")
    await engine.reply("c", "엄마한테 1만원 보내줘")  # nothing pending there
    assert sorted(await store.pending_sessions()) == ["a", "b"]
    assert await engine_for(service, bank, store).finish_all_pending() == 2
    assert await store.pending_sessions() == [] and len(bank.executions) == 2


async def test_only_the_owner_deletes_a_session(transfer: CompiledService) -> None:
    engine = Engine(transfer, store=MemoryStore(), clock=lambda: TODAY,
                    settings=load_settings({}))
    await engine.reply("s", "엄마한테 1만원 보내줘", owner="alice")
    assert await engine.delete("s", "mallory") is False
    assert await engine.store.load("s") is not None
    assert await engine.delete("s", "alice") is True
    assert await engine.store.load("s") is None


PIZZA_CHARGE = """    tool: sandbox_bank
    label: Charging
    irreversible: true
    timeout_sec: 5
    args:
      to: "'pizzeria'"
      amount: AMOUNT
"""
PIZZA_HTTP_CHARGE = """    http:
      url: "{{ env.BANK_URL }}/transfers"
      json:
        to: "'pizzeria'"
        amount: AMOUNT
    label: Charging
    irreversible: true
    timeout_sec: 5
    retries: 2
"""


async def test_a_called_flow_s_pending_charge_finishes_and_its_caller_goes_on(
        tmp_path: Path, bank: Bank) -> None:
    """The payment flow (called by the order) gets no settling answer: it stays pending
    under the flow stack; the next turn asks again with the same key, the money moves once,
    and the order it was called from is placed in the same turn."""
    text = (ROOT / "flows" / "pizza.yaml").read_text(encoding="utf-8")
    amount = "\"{'small': 10, 'medium': 14, 'large': 18}[slots.size] + (2 if slots.cheese " \
             "else 0)\""
    tool, http = (a.replace("AMOUNT", amount) for a in (PIZZA_CHARGE, PIZZA_HTTP_CHARGE))
    assert tool in text, "flows/pizza.yaml's charge action changed; update the test"
    (tmp_path / "pizza.yaml").write_text(text.replace(tool, http),
                                         encoding="utf-8")
    engine = engine_for(compile_file(tmp_path / "pizza.yaml"), bank)
    for message in ("a large pizza", "no", "place it", "cash"):
        await engine.reply("s", message)
    bank.status = 503
    done = await engine.reply("s", "yes")
    assert (done.state_snapshot["flow"], done.state_snapshot["stage"]) == ("payment",
                                                                           "CHARGING")
    assert [f["flow"] for f in done.state_snapshot["stack"]] == ["order"]
    assert len({k for k, _ in bank.requests}) == 1 and bank.executions == []
    bank.status = 200
    done = await engine.reply("s", "did it work?")
    assert (done.state_snapshot["flow"], done.state_snapshot["stage"]) == ("order", "PLACED")
    assert done.state_snapshot["stack"] == []
    assert len(bank.executions) == 1 and len({k for k, _ in bank.requests}) == 1
    assert [c["outcome"] for c in await engine.store.completed("s")] == ["PLACED"]


def test_the_written_out_invisible_characters_are_this_pythons_unicode_database() -> None:
    from engine.runtime.values.admission import _INVISIBLE_BMP, invisible_bmp_ranges

    assert _INVISIBLE_BMP.pattern == f"[{invisible_bmp_ranges()}]"
