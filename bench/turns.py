"""Per-turn cost of the engine vs the same conversations as hand-written Python.

Replays the transfer conversations (bench/conversations.py) many times, in process:

- ``engine+sqlite``: flowctl with the offline provider and the SQLite store (the product)
- ``engine+memory``: the same with the in-memory store
- ``plain+sqlite``: the floor — the same conversations coded as plain Python functions that
  load the session JSON from SQLite and commit it back every turn
- ``plain+dict``: the same plain functions over a dict (no persistence)

The plain code does the same understanding with the same extractors (engine.nlu): the
flow's intents by keywords and examples, its confirm words, its three slots (recipient,
amount, date), batch splitting. So the difference is the engine's own overhead: the stage
machine, templates, validation, events, trace, memory.

Run: python bench/turns.py [--rounds 300]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

from bench.conversations import CONVERSATIONS  # noqa: E402
from engine.compiler import compile_file  # noqa: E402
from engine.config import load_settings  # noqa: E402
from engine.nlu import (  # noqa: E402
    IntentRule,
    YesNoWords,
    classify,
    default_words,
    find_dates,
    find_money,
    find_pattern,
    split_segments,
    yes_no,
)
from engine.runtime.engine import Engine  # noqa: E402
from engine.store import MemoryStore, SqliteStore  # noqa: E402

TODAY = dt.datetime(2026, 11, 22, 9, 0).astimezone()


# -- the floor: the same conversations as plain functions ----------------------------------

# The same understanding as flows/transfer.yaml: its intents (keywords and examples), its
# extra confirm words, and its three slots (target by pattern, amount, the `when` date).
TARGET = [re.compile(r"(?P<value>[가-힣A-Za-z0-9]+?)(?:한테|에게)")]
WORDS = default_words("ko").merge(YesNoWords(confirm=("보내줘", "이체해줘", "진행해"),
                                             cancel=(), deny=()))
INTENTS = [
    IntentRule("transfer", ("보내", "이체", "송금"),
               ("엄마한테 1만원 보내줘", "용걸이한테 5만원 이체해줘", "아빠에게 3만원 송금"), 10),
    IntentRule("history", ("얼마 보냈", "보낸 내역", "이체 내역", "누구한테 보냈"),
               ("총 얼마 보냈어?", "오늘 보낸 거 알려줘")),
]
TODAY_DATE = dt.date(2026, 11, 22)


def won(n: int) -> str:
    return f"{n // 10000:,}만원" if n >= 10000 and n % 10000 == 0 else f"{n:,}원"


def extract(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    target = find_pattern(text, TARGET)
    money = find_money(text)
    when = find_dates(text, TODAY_DATE)
    if target:
        out["target"] = target[0].value
    if money:
        out["amount"] = money[0].value
    if when:
        out["when"] = when[0].value.isoformat()
    return out


def plain_turn(state: dict[str, Any], text: str) -> str:
    """The transfer service, hand-written: routing, slots, validation, batch, messages."""
    routed = route_step(state, text)
    if routed is not None:
        return routed
    return act_step(state, understand_step(state, text))


def route_step(state: dict[str, Any], text: str) -> str | None:
    """No transfer in progress: the intent starts one (None), or answers the turn."""
    if state.get("stage") in ("FILLING", "READY"):
        return None
    scores = classify(text, INTENTS)
    intent = scores[0].name if scores and scores[0].confidence >= 0.5 else None
    if intent == "transfer":
        state.update(stage="INIT", slots={}, queue=[], errors={}, total=1, done=0)
        return None
    if intent == "history":
        sent = [t for t in state.get("completed", []) if t["outcome"] == "EXECUTED"]
        total = sum(t["amount"] for t in sent)
        return f"지금까지 {len(sent)}건, 총 {won(total)}을 보내셨어요"
    return "무엇을 도와드릴까요?"


def understand_step(state: dict[str, Any], text: str) -> dict[str, Any]:
    """The yes/no answer and the slot values of each task the message names."""
    answer = yes_no(text, WORDS)
    if state["stage"] == "READY":
        return {"answer": answer, "parts": [extract(text)]}
    parts = [extract(s.value) for s in split_segments(text)]  # type: ignore[arg-type]
    return {"answer": answer, "parts": parts if len(parts) > 1 else [extract(text)]}


def act_step(state: dict[str, Any], understood: dict[str, Any]) -> str:
    """Apply what was understood: fill, confirm, execute or cancel."""
    answer, parts = understood["answer"], understood["parts"]
    if state["stage"] == "READY":
        if parts[0]:
            return apply(state, parts[0])
        if answer == "confirm":
            return execute(state)
        if answer in ("cancel", "deny"):
            return finish(state, "CANCELLED", "취소됐어요.")
        return f"'확인' 또는 '취소'로 답해 주세요. {confirm_text(state)}"
    if answer == "cancel":
        return finish(state, "CANCELLED", "취소됐어요.")
    if len(parts) > 1:
        state["queue"], state["total"] = parts[1:], len(parts)
    return apply(state, parts[0])


def apply(state: dict[str, Any], found: dict[str, Any]) -> str:
    state["errors"] = {}
    for key, value in found.items():
        if key == "amount" and value < 1:
            state["errors"]["amount"] = "이체 금액은 1원 이상이어야 해요."
        else:
            state["slots"][key] = value
    missing = [k for k in ("target", "amount") if k not in state["slots"]]
    if missing:
        state["stage"] = "FILLING"
        if state["errors"]:
            return f"{state['errors']['amount']} 다시 말씀해 주세요."
        return "누구에게 보낼까요?" if missing[0] == "target" else \
            f"{state['slots']['target']}에게 얼마를 보내드릴까요?"
    state["stage"] = "READY"
    return confirm_text(state)


def confirm_text(state: dict[str, Any]) -> str:
    s = state["slots"]
    progress = f" ({state['done'] + 1}/{state['total']})" if state["total"] > 1 else ""
    return f"{s['target']}에게 {won(s['amount'])}을 이체할까요?{progress}"


def execute(state: dict[str, Any]) -> str:
    s = state["slots"]
    if s["amount"] > 5_000_000:
        return finish(state, "FAILED", "이체에 실패했어요.")
    return finish(state, "EXECUTED", "이체가 완료됐어요.")


def finish(state: dict[str, Any], outcome: str, message: str) -> str:
    state.setdefault("completed", []).append({"outcome": outcome, **state["slots"]})
    state["done"] += 1
    if state["queue"]:
        state["slots"], state["stage"] = {}, "INIT"
        return message + " " + apply(state, state["queue"].pop(0))
    state.update(stage=outcome, slots={}, total=1, done=0)
    return message


class PlainSqlite:
    def __init__(self, path: str, synchronous: str = "NORMAL") -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={synchronous}")
        self.db.execute("CREATE TABLE s (id TEXT PRIMARY KEY, version INT, data TEXT)")

    def turn(self, sid: str, text: str) -> str:
        row = self.db.execute("SELECT version, data FROM s WHERE id = ?", (sid,)).fetchone()
        state = json.loads(row[1]) if row else {}
        reply = plain_turn(state, text)
        self.db.execute("BEGIN IMMEDIATE")
        if row:
            self.db.execute("UPDATE s SET version = version + 1, data = ? WHERE id = ? AND "
                            "version = ?", (json.dumps(state, ensure_ascii=False), sid, row[0]))
        else:
            self.db.execute("INSERT INTO s VALUES (?, 1, ?)",
                            (sid, json.dumps(state, ensure_ascii=False)))
        self.db.execute("COMMIT")
        return reply


# -- measurement ------------------------------------------------------------------------------

def measure_sync(turn: Callable[[str, str], Any], rounds: int) -> list[float]:
    samples = []
    for r in range(rounds):
        for c, conversation in enumerate(CONVERSATIONS):
            for text in conversation:
                start = time.perf_counter_ns()
                turn(f"{r}-{c}", text)
                samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


async def measure_engine(engine: Engine, rounds: int) -> list[float]:
    samples = []
    for r in range(rounds):
        for c, conversation in enumerate(CONVERSATIONS):
            for text in conversation:
                start = time.perf_counter_ns()
                async for _ in engine.turn(f"{r}-{c}", text):
                    pass
                samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def summary(name: str, samples: list[float]) -> dict[str, Any]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {"name": name, "turns": len(samples), "median_us": statistics.median(samples),
            "p99_us": p99, "turns_per_s": len(samples) / (sum(samples) / 1e6)}


def sqlite_engine(path: str, synchronous: str = "NORMAL") -> Engine:
    """The transfer flow on a SQLite store at ``synchronous`` (the store opens NORMAL)."""
    store = SqliteStore(path)
    store._db.execute(f"PRAGMA synchronous={synchronous}")
    return Engine(compile_file(ROOT / "flows" / "transfer.yaml"), store=store,
                  settings=load_settings({}), clock=lambda: TODAY)


def run_engine(engine: Engine, rounds: int) -> list[float]:
    asyncio.run(measure_engine(engine, 5))  # warm-up
    return asyncio.run(measure_engine(engine, rounds))


def print_table(results: list[dict[str, Any]], floor: float) -> None:
    print(f"{'variant':<22}{'turns':>8}{'median µs':>12}{'p99 µs':>10}{'turns/s':>10}"
          f"{'vs floor':>10}")
    for r in results:
        print(f"{r['name']:<22}{r['turns']:>8}{r['median_us']:>12.1f}{r['p99_us']:>10.1f}"
              f"{r['turns_per_s']:>10.0f}{r['median_us'] / floor:>9.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--synchronous", default="NORMAL", choices=["NORMAL", "FULL"],
                        help="SQLite durability of the floor and the store alike")
    args = parser.parse_args()
    service = compile_file(ROOT / "flows" / "transfer.yaml")
    settings = load_settings({})
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        dicts: dict[str, dict[str, Any]] = {}
        results.append(summary("plain+dict", measure_sync(
            lambda sid, text: plain_turn(dicts.setdefault(sid, {}), text), args.rounds)))
        plain = PlainSqlite(f"{tmp}/plain.db", args.synchronous)
        results.append(summary("plain+sqlite", measure_sync(plain.turn, args.rounds)))
        memory = Engine(service, store=MemoryStore(), settings=settings, clock=lambda: TODAY)
        results.append(summary("engine+memory", run_engine(memory, args.rounds)))
        results.append(summary("engine+sqlite", run_engine(
            sqlite_engine(f"{tmp}/engine.db", args.synchronous), args.rounds)))
    print_table(results, next(r for r in results if r["name"] == "plain+sqlite")["median_us"])


if __name__ == "__main__":
    main()
