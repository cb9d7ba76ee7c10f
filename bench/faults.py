"""Kill -9 a real ``flowctl serve`` around an irreversible bank transfer, restart it, count.

Each trial runs the shipped transfer service (flows/transfer.yaml, its ``send_money`` action
pointed at an HTTP bank) under ``python -m cli serve`` with a SQLite store, against the
counting loopback bank of tests/fakes/bank.py in a process of its own, which honours
``Idempotency-Key`` and takes ``--delay`` seconds to answer (it executes half-way through).
No LLM is used: OPENAI_*, ANTHROPIC_*, FLOWCTL_* and the old unprefixed settings (DEV_MODE,
MAX_FILL_TURNS, MEMORY_*) are taken out of the server's environment.

One trial, in a fresh session:

1. "엄마한테 1만원 보내줘" -> READY;
2. "확인", and ``kill -9`` of the server at a random moment between 0 and delay + margin
   after sending, aimed in turn before the bank gets the call, while it works, within 3 ms
   of its answer and later; so the kill lands before the action journal is written, between
   that write and the call, before or after the bank executed, after it answered but before
   the turn was saved, or after that;
3. a restart on the same SQLite file; its first request is timed;
4. the user retries ("확인"), changes the amount ("3만원으로 해줘"), cancels ("취소") or says
   something unrelated ("점심 뭐 먹을까?"); over 16 trials every kill window meets every
   one of these once;
5. the bank's counts for the trial, the session's answers and ``/v1/agent/completed``.

Counted per trial and in total: money moved (bank executions) and EXECUTED records;
transfers moved but unrecorded; second executions (the user confirmed one transfer, so
any execution beyond the first); repeated bank requests with the same key (expected after a
restart, harmless with an idempotent bank); CANCELLED records for money that moved; failed
turns (HTTP 5xx or a turn that reported an error); pending journal entries left after the
next turn, and transfers finished by that turn without saying so; the latency of the first
request after each restart. Where each kill landed is read from the bank's timeline and the
session file.

Exit status 1 if any transfer is unrecorded, executed twice or recorded as cancelled, or a
first request after a restart took 2 s or more; 2 if the harness itself could not run.
Every request and process wait has a timeout; every process is killed on the way out.

Run: python3 bench/faults.py [--trials 100] [--seed 1] [--delay 0.4] [--verbose]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import socket  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable, Mapping  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402
from urllib.parse import quote  # noqa: E402

from tests.fakes.bank import bank_flow_text  # noqa: E402

HOST = "127.0.0.1"
ORDER = "엄마한테 1만원 보내줘"
CONFIRM = "확인"
FOLLOW_UPS = {"retry": "확인", "change": "3만원으로 해줘", "cancel": "취소",
              "unrelated": "점심 뭐 먹을까?"}
WINDOWS = ("before", "during", "answer", "after")
"""Where the kill is aimed: before the bank gets the call, while it works, right after it
answered, later."""
PHASES = ("before journal", "journal, no call", "call in flight", "executed, no answer",
          "answered, unsaved", "saved")
"""Where the kill landed, as found afterwards."""
PENDING_PHASES = PHASES[1:5]

REQUEST_TIMEOUT = 20.0
START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
SLOW_RESTART = 2.0
SCRUBBED_PREFIXES = ("OPENAI_", "ANTHROPIC_", "FLOWCTL_", "MEMORY_")
SCRUBBED_NAMES = ("DEV_MODE", "MAX_FILL_TURNS", "BANK_URL")



class HarnessError(Exception):
    """The harness could not run (a process did not start, a setup turn failed)."""


# -- processes -------------------------------------------------------------------------------

def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(SCRUBBED_PREFIXES) and k not in SCRUBBED_NAMES}
    return {**env, "PYTHONUNBUFFERED": "1", **extra}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    """SIGKILL ``proc`` (if still running) and reap it."""
    if proc is None:
        return
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired as err:
        raise HarnessError(f"process {proc.pid} did not die within {STOP_TIMEOUT:g} s") from err


class BankProcess:
    """tests/fakes/bank.py as a process; its counts come from its JSON state file."""

    def __init__(self, workdir: Path, delay: float) -> None:
        self.state = workdir / "bank.json"
        self.log = (workdir / "bank.log").open("wb")
        self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.bank", "0", str(self.state), str(delay)],
            cwd=ROOT, env=clean_env(), stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while not self.state.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise HarnessError(f"the bank did not start (see {workdir / 'bank.log'})")
            time.sleep(0.02)
        self.url: str = self.read()["url"]

    def read(self) -> dict[str, Any]:
        state: dict[str, Any] = json.loads(self.state.read_text())  # replaced atomically
        return state

    def settled(self, timeout: float) -> dict[str, Any]:
        """The state once every request that reached the bank has been dealt with."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.read()
            if all(event["done"] for event in state["timeline"]):
                return state
            if time.monotonic() > deadline:
                raise HarnessError(f"the bank still works on a request after {timeout:g} s")
            time.sleep(0.02)

    def answered(self, since: int, *, deadline: float) -> None:
        """Return as soon as the bank sent the answer to request number ``since``."""
        while time.time() < deadline:
            events = self.read()["timeline"][since:]
            if events and events[0]["answered"] is not None:
                return
            time.sleep(0.0005)
        raise HarnessError("the bank did not answer the confirmation's call")

    def close(self) -> None:
        try:
            stop(self.proc)
        finally:
            self.proc = None
            self.log.close()


class Server:
    """``python -m cli serve`` on a loopback port, restarted on the same SQLite file."""

    def __init__(self, flow: Path, db: Path, env: Mapping[str, str], log: Path,
                 store: str | None = None) -> None:
        self.flow, self.db, self.env = flow, db, dict(env)
        self.store = store or f"sqlite:///{db}"  # bench/faults_pg.py: a postgresql:// URL
        self.log = log.open("ab")
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        """Start the server; the seconds until it answers /healthz."""
        for _ in range(3):
            started = time.monotonic()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "cli", "serve", str(self.flow), "--store",
                 self.store, "--port", str(self.port)],
                cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
            while time.monotonic() - started < START_TIMEOUT:
                if self.proc.poll() is not None:
                    break  # e.g. the port was taken meanwhile: try another
                if self._healthy():
                    return time.monotonic() - started
                time.sleep(0.01)
            stop(self.proc)
            self.proc = None
            self.port = free_port()
        raise HarnessError(f"flowctl serve did not start (see {self.log.name})")

    def _healthy(self) -> bool:
        try:
            status, _ = call(self.port, "GET", "/healthz", timeout=1.0)
        except (OSError, http.client.HTTPException):
            return False
        return status == 200

    def kill(self) -> None:
        """kill -9, and reap."""
        stop(self.proc)
        self.proc = None

    def close(self) -> None:
        try:
            self.kill()
        finally:
            self.log.close()


# -- HTTP ------------------------------------------------------------------------------------

def call(port: int, method: str, path: str, body: Any = None, *,
         timeout: float = REQUEST_TIMEOUT) -> tuple[int, Any]:
    """(status, decoded JSON body or None); OSError or HTTPException when the connection
    fails."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        raw = response.read()
    finally:
        conn.close()
    try:
        return response.status, json.loads(raw)
    except ValueError:
        return response.status, None


@dataclass
class Answer:
    """One chat turn as the client saw it."""

    status: int | None
    interaction: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    problem: str | None = None

    @property
    def stage(self) -> str | None:
        return (self.interaction.get("state_snapshot") or {}).get("stage")

    @property
    def message(self) -> str:
        return str(self.interaction.get("message", ""))


def chat(port: int, session: str, message: str) -> Answer:
    started = time.perf_counter()
    try:
        status, body = call(port, "POST", "/v1/agent/chat",
                            {"session_id": session, "message": message})
    except (OSError, http.client.HTTPException) as err:  # the server died under it
        return Answer(None, seconds=time.perf_counter() - started,
                      problem=f"{type(err).__name__}: {err}")
    seconds = time.perf_counter() - started
    interaction = body.get("interaction", {}) if isinstance(body, dict) else {}
    problem = None
    if status != 200:
        problem = f"HTTP {status}: {json.dumps(body, ensure_ascii=False)[:200]}"
    elif (interaction.get("_trace") or {}).get("error"):
        problem = f"turn error {interaction['_trace']['error']}: {interaction.get('message')}"
    return Answer(status, interaction, seconds, problem)


def completed(port: int, session: str) -> list[dict[str, Any]]:
    try:
        status, body = call(port, "GET", f"/v1/agent/completed?session_id={quote(session)}")
    except (OSError, http.client.HTTPException) as err:
        raise HarnessError(f"/v1/agent/completed failed: {type(err).__name__}: {err}") from err
    if status != 200 or not isinstance(body, dict):
        raise HarnessError(f"/v1/agent/completed answered HTTP {status}")
    return list(body["completed"])


def stored(db: Path, session: str) -> tuple[dict[str, Any], int]:
    """The session's saved JSON and its number of completed records, read from the file."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5.0)
        try:
            row = con.execute("SELECT data FROM sessions WHERE id = ?", (session,)).fetchone()
            count = con.execute("SELECT count(*) FROM completed WHERE session_id = ?",
                                (session,)).fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error as err:
        raise HarnessError(f"cannot read the session file {db}: {err}") from err
    return (json.loads(row[0]) if row else {}), int(count)


def pending(data: Mapping[str, Any]) -> bool:
    return any(e.get("status") == "pending" for e in (data.get("journal") or {}).values())


# -- one trial -------------------------------------------------------------------------------

@dataclass
class Trial:
    index: int
    session: str
    window: str
    follow_up: str
    kill_after: float = 0.0
    phase: str = "?"
    startup: float = 0.0
    latency: float = 0.0
    bank_seconds: float = 0.0
    """The part of ``latency`` the bank took, answering the repeated call."""
    final_stage: str | None = None
    moved: int = 0
    recorded: int = 0
    unrecorded: int = 0
    phantom: int = 0
    double: int = 0
    repeated_requests: int = 0
    cancelled_moved: int = 0
    failed_turns: int = 0
    pending_left: bool = False
    not_told: bool = False
    never_told: bool = False
    """Money moved, and neither the confirmation's answer (when it arrived) nor the next
    one said so."""
    confirm_said: str = ""
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        flags = [name for name, bad in (("UNRECORDED", self.unrecorded), ("DOUBLE", self.double),
                                        ("CANCELLED-MOVED", self.cancelled_moved),
                                        ("PHANTOM", self.phantom), ("PENDING", self.pending_left),
                                        ("NOT-TOLD", self.not_told),
                                        ("NEVER-TOLD", self.never_told),
                                        ("FAILED", self.failed_turns),
                                        ("SLOW", self.latency >= SLOW_RESTART)) if bad]
        return (f"#{self.index:<3} kill {self.kill_after * 1000:5.0f} ms  {self.phase:<19} "
                f"{self.follow_up:<9} -> {self.final_stage or '-':<9} moved {self.moved} "
                f"recorded {self.recorded} repeats {self.repeated_requests}  restart "
                f"{self.startup:4.2f} s first {self.latency * 1000:5.0f} ms  "
                f"{' '.join(flags) or 'ok'}")


class Harness:
    def __init__(self, workdir: Path, delay: float, margin: float) -> None:
        self.workdir, self.delay, self.margin = workdir, delay, margin
        self.bank: BankProcess | None = None
        self.server: Server | None = None
        self.arrival = 0.02
        """Seconds from sending "확인" to the bank receiving it (measured by ``warm_up``)."""
        self.answer = self.arrival + delay
        """Seconds from sending "확인" to the bank's answer (measured by ``warm_up``)."""

    def __enter__(self) -> Harness:
        try:
            flow = write_flow(self.workdir)
            self.bank = BankProcess(self.workdir, self.delay)
            self.server = Server(flow, self.workdir / "sessions.db",
                                 clean_env(BANK_URL=self.bank.url),
                                 self.workdir / "serve.log")
            self.server.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            if self.server is not None:
                self.server.close()
        finally:
            if self.bank is not None:
                self.bank.close()

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.port

    def warm_up(self, rounds: int = 3) -> None:
        """Whole transfers without faults: the server is warm and the bank's arrival known."""
        assert self.bank is not None
        offsets = []
        for _ in range(rounds):
            session = f"warm-{uuid.uuid4().hex[:8]}"
            self._order(session)
            before = len(self.bank.read()["timeline"])
            sent = time.time()
            answer = chat(self.port, session, CONFIRM)
            if answer.stage != "EXECUTED":
                raise HarnessError(f"a transfer without faults ended {answer.stage}: "
                                   f"{answer.problem or answer.message}")
            event = self.bank.settled(self.delay + 5.0)["timeline"][before]
            offsets.append((event["arrived"] - sent, event["answered"] - sent))
        self.arrival = statistics.median(arrived for arrived, _ in offsets)
        self.answer = statistics.median(answered for _, answered in offsets)

    def _order(self, session: str) -> Answer:
        answer = chat(self.port, session, ORDER)
        if answer.stage != "READY":
            raise HarnessError(f"{ORDER!r} did not reach READY: "
                               f"{answer.problem or answer.stage}")
        return answer

    def kill_moment(self, window: str, rng: random.Random) -> float:
        """When to kill, in seconds after sending "확인" (after the bank's answer was sent,
        for the "answer" window): within 0 .. arrival + delay + margin.

        The journal is written a millisecond or two after the request comes in, and the turn
        is saved 2-5 ms after the bank answers: "before" draws more often near 0, "answer"
        watches the bank for its answer and kills within 3 ms of it."""
        arrival, delay = self.arrival, self.delay
        if window == "before":
            return 1.5 * arrival * rng.random() ** 2
        if window == "during":
            return rng.uniform(arrival, arrival + delay)
        if window == "answer":
            return rng.uniform(0.0, 0.003)
        return self.answer + self.margin * rng.random() ** 2

    def confirm_and_kill(self, trial: Trial, rng: random.Random, timeline: int) -> float:
        """Send "확인" and kill -9 the server at the trial's moment; the time of the kill."""
        assert self.bank is not None and self.server is not None
        wait = self.kill_moment(trial.window, rng)
        confirm: list[Answer] = []
        sender = threading.Thread(target=lambda: confirm.append(
            chat(self.port, trial.session, CONFIRM)), daemon=True)
        sent = time.time()
        sender.start()
        if trial.window == "answer":
            self.bank.answered(timeline, deadline=sent + self.answer + 5.0)
            time.sleep(wait)
        else:
            time.sleep(max(0.0, sent + wait - time.time()))
        killed = time.time()
        self.server.kill()
        trial.kill_after = killed - sent
        sender.join(REQUEST_TIMEOUT)
        trial.confirm_said = confirm[0].message if confirm else ""
        if confirm and confirm[0].status is not None and confirm[0].problem:
            trial.failed_turns += 1  # it was answered before the kill, with an error
            trial.problems.append(f"confirmation: {confirm[0].problem}")
        return killed

    def trial(self, index: int, window: str, follow_up: str, rng: random.Random) -> Trial:
        assert self.bank is not None and self.server is not None
        trial = Trial(index, f"fault-{index}-{uuid.uuid4().hex[:8]}", window, follow_up)
        self._order(trial.session)
        start = self.bank.settled(self.delay + 5.0)
        marks = {name: len(start[name]) for name in ("requests", "executions", "timeline")}
        killed = self.confirm_and_kill(trial, rng, marks["timeline"])
        at_kill, saved = stored(self.server.db, trial.session)

        restarted = time.time()
        trial.startup = self.server.start()
        answer = chat(self.port, trial.session, FOLLOW_UPS[follow_up])
        trial.latency, trial.final_stage = answer.seconds, answer.stage
        if answer.problem:
            trial.failed_turns += 1
            trial.problems.append(f"after the restart: {answer.problem}")
        records = completed(self.port, trial.session)
        bank = self.bank.settled(self.delay + 5.0)
        after, _ = stored(self.server.db, trial.session)

        events = bank["timeline"][marks["timeline"]:]
        trial.phase = phase(events, killed, at_kill, saved)
        trial.bank_seconds = sum(e["answered"] - e["arrived"] for e in events
                                 if e["arrived"] > restarted and e["answered"] is not None)
        count(trial, bank, marks, records)
        trial.pending_left = pending(after)
        judge_told(trial, answer)
        return trial


DONE_SAID = "이체가 완료됐어요"


def judge_told(trial: Trial, answer: Answer) -> None:
    """Whether the user heard how the transfer ended. A transfer finished at start-up or by
    the next turn is the first thing that turn says; money that moved is said by the
    confirmation's answer, if it arrived, or else by the next one (a lost reply is told)."""
    if trial.phase in PENDING_PHASES and DONE_SAID not in answer.message.split(".")[0]:
        trial.not_told = True
        trial.problems.append(f"pending transfer not reported: {answer.message!r}")
    if trial.moved and DONE_SAID not in trial.confirm_said and DONE_SAID not in answer.message:
        trial.never_told = True
        trial.problems.append(f"paid but never told: {answer.message!r}")


def phase(events: list[dict[str, Any]], killed: float, at_kill: Mapping[str, Any],
          saved: int) -> str:
    """Where the kill landed, from the bank's timeline and the session file at the kill."""
    if saved:
        return "saved"
    first = events[0] if events else None
    if first is None or first["arrived"] > killed:
        return "journal, no call" if pending(at_kill) else "before journal"
    if first["handled"] is None or first["handled"] > killed:
        return "call in flight"
    if first["answered"] is None or first["answered"] > killed:
        return "executed, no answer"
    return "answered, unsaved"


def count(trial: Trial, bank: Mapping[str, Any], marks: Mapping[str, int],
          records: list[dict[str, Any]]) -> None:
    """The trial's bank executions and requests against the session's completed records."""
    executions = bank["executions"][marks["executions"]:]
    keys = [key for key, _ in bank["requests"][marks["requests"]:]]
    moved = [bank["answers"][e["key"]]["transaction_id"] for e in executions]
    executed = [(r.get("result") or {}).get("transaction_id") for r in records
                if r.get("outcome") == "EXECUTED"]
    trial.moved, trial.recorded = len(moved), len(executed)
    trial.unrecorded = sum(1 for tx in moved if tx not in executed)
    trial.phantom = sum(1 for tx in executed if tx not in moved)
    trial.double = max(0, len(moved) - 1)  # the user confirmed one transfer
    trial.repeated_requests = len(keys) - len(set(keys))
    if moved:
        trial.cancelled_moved = sum(1 for r in records if r.get("outcome") == "CANCELLED")


def write_flow(directory: Path) -> Path:
    """flows/transfer.yaml with its ``send_money`` action sent to ``$BANK_URL/transfers``."""
    try:
        text = bank_flow_text((ROOT / "flows" / "transfer.yaml").read_text(encoding="utf-8"))
    except ValueError as err:
        raise HarnessError(str(err)) from None
    shutil.copytree(ROOT / "prompts", directory / "prompts", dirs_exist_ok=True)
    (directory / "flows").mkdir(exist_ok=True)
    path = directory / "flows" / "bank.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# -- many trials -----------------------------------------------------------------------------

TOTALS = ("moved", "recorded", "unrecorded", "phantom", "double", "repeated_requests",
          "cancelled_moved", "failed_turns", "pending_left", "not_told", "never_told")


@dataclass
class Report:
    trials: list[Trial]
    delay: float
    arrival: float
    seconds: float

    @property
    def totals(self) -> dict[str, int]:
        return {name: sum(int(getattr(t, name)) for t in self.trials) for name in TOTALS}

    @property
    def latencies(self) -> list[float]:
        return [t.latency for t in self.trials]

    def failures(self) -> list[str]:
        """What makes the run fail (the exit status of the command)."""
        totals, out = self.totals, []
        for name, what in (("unrecorded", "transfers moved but not recorded"),
                           ("double", "second executions"),
                           ("cancelled_moved", "CANCELLED records for money that moved"),
                           ("never_told", "transfers paid but never told to the user")):
            if totals[name]:
                out.append(f"{totals[name]} {what}")
        slow = [t for t in self.trials if t.latency >= SLOW_RESTART]
        if slow:
            out.append(f"{len(slow)} first requests after a restart took >= {SLOW_RESTART:g} s "
                       f"(max {max(t.latency for t in slow):.2f} s)")
        return out

    def table(self) -> str:
        totals, n = self.totals, len(self.trials)
        rows = [
            ("trials", n),
            ("money moved (bank executions)", totals["moved"]),
            ("recorded EXECUTED", totals["recorded"]),
            ("moved but unrecorded", totals["unrecorded"]),
            ("recorded but not moved", totals["phantom"]),
            ("second executions", totals["double"]),
            ("repeated bank requests (same key)", totals["repeated_requests"]),
            ("CANCELLED but moved", totals["cancelled_moved"]),
            ("failed turns / 5xx", totals["failed_turns"]),
            ("pending left after the next turn", totals["pending_left"]),
            ("finished transfer not reported", totals["not_told"]),
            ("paid but never told", totals["never_told"]),
        ]
        width = max(len(name) for name, _ in rows)
        lines = [f"{name:<{width}}  {value:>5}" for name, value in rows]
        lines.append("")
        lines.append(f"first request after restart: {spread(self.latencies)}")
        lines.append("  less the bank's own time:   "
                     f"{spread([t.latency - t.bank_seconds for t in self.trials])}")
        lines.append(f"restart until /healthz:      {spread([t.startup for t in self.trials])}")
        lines.append("")
        lines.append(self.matrix())
        return "\n".join(lines)

    def matrix(self) -> str:
        """Where the kills landed x what the user said next -> final stages."""
        cells: dict[tuple[str, str], Counter[str]] = {}
        for t in self.trials:
            cells.setdefault((t.phase, t.follow_up), Counter())[t.final_stage or "-"] += 1
        header = f"{'kill landed':<20}" + "".join(f"{f:<16}" for f in FOLLOW_UPS)
        lines = [header]
        for p in (*PHASES, "?"):
            if not any(key[0] == p for key in cells):
                continue
            row = f"{p:<20}"
            for f in FOLLOW_UPS:
                got = cells.get((p, f), Counter())
                row += f"{' '.join(f'{s} {c}' for s, c in sorted(got.items())) or '-':<16}"
            lines.append(row)
        return "\n".join(line.rstrip() for line in lines)


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    return (f"min {min(values) * 1000:.0f} ms, median {statistics.median(values) * 1000:.0f} ms,"
            f" max {max(values) * 1000:.0f} ms")


def plan(trials: int, rng: random.Random) -> list[tuple[str, str]]:
    """(kill window, follow-up) per trial: every 16 trials hold each pair once, and every 4
    consecutive ones each window and each follow-up once."""
    follow_ups = list(FOLLOW_UPS)
    assert len(WINDOWS) == len(follow_ups)
    pairs: list[tuple[str, str]] = []
    while len(pairs) < trials:
        shifts = list(range(len(WINDOWS)))
        rng.shuffle(shifts)
        for shift in shifts:
            block = [(w, follow_ups[(i + shift) % len(WINDOWS)]) for i, w in enumerate(WINDOWS)]
            rng.shuffle(block)
            pairs.extend(block)
    return pairs[:trials]


def run_trials(trials: int = 100, seed: int = 1, *, delay: float = 0.4, margin: float = 0.3,
               progress: Callable[[Trial], None] | None = None,
               harness: Callable[[Path, float, float], Harness] | None = None) -> Report:
    """Run ``trials`` kill-and-restart trials against real processes; the counts.
    ``harness(tmp, delay, margin)`` makes another harness (bench/faults_pg.py's pair)."""
    rng = random.Random(seed)
    started = time.monotonic()
    make = harness or Harness
    with tempfile.TemporaryDirectory(prefix="flowctl-faults-") as tmp:
        with make(Path(tmp), delay, margin) as harness:
            harness.warm_up()
            done = []
            for index, (window, follow_up) in enumerate(plan(trials, rng), 1):
                trial = harness.trial(index, window, follow_up, rng)
                done.append(trial)
                if progress is not None:
                    progress(trial)
            return Report(done, delay, harness.arrival, time.monotonic() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--delay", type=float, default=0.4,
                        help="seconds the bank takes to answer (default 0.4)")
    parser.add_argument("--margin", type=float, default=0.3,
                        help="kills reach this far past the bank's answer (default 0.3 s)")
    parser.add_argument("--verbose", "-v", action="store_true", help="one line per trial")
    args = parser.parse_args(argv)

    def show(trial: Trial) -> None:
        if args.verbose or trial.problems:
            print(trial.line(), flush=True)
            for problem in trial.problems:
                print(f"      {problem}", flush=True)

    try:
        report = run_trials(args.trials, args.seed, delay=args.delay, margin=args.margin,
                            progress=show)
    except HarnessError as err:
        print(f"harness error: {err}", file=sys.stderr)
        return 2
    print(f"\n{len(report.trials)} trials in {report.seconds:.0f} s; bank delay "
          f"{report.delay:g} s, the call reaches the bank {report.arrival * 1000:.0f} ms after "
          f"the request\n")
    print(report.table())
    failures = report.failures()
    print("\n" + ("FAIL: " + "; ".join(failures) if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
