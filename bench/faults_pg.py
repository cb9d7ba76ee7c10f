"""bench/faults.py on PostgreSQL with two instances: kill -9 one ``flowctl serve`` mid-turn
while the other one serves the session.

Two ``python -m cli serve --store postgresql://...`` instances share one database and the
counting bank of tests/fakes/bank.py. One trial, in a fresh session, with the instances
taking turns as the victim:

1. "엄마한테 1만원 보내줘" -> READY, on the victim;
2. "확인" on the victim, and ``kill -9`` of the victim at a moment drawn as in
   bench/faults.py (before the bank gets the call, while it works, right after its answer,
   later);
3. at once, the user's next message (retry, change, cancel, unrelated) on the *other*
   instance, which has been running all along: the kill freed the session (PostgreSQL
   drops the dead connection's advisory lock), so its turn finishes the pending transfer
   with the same idempotency key and goes on; its latency is timed;
4. the bank's counts, the session's answers and ``/v1/agent/completed``; then the victim is
   started again for the next trial.

The counts and the exit status are bench/faults.py's; "first request after restart" is
here the other instance's first request after the kill.

Run: python3 bench/faults_pg.py [--trials 16] [--seed 1] [--store postgresql://...]
(without --store, a throwaway cluster is started from Debian's postgresql package).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import uuid  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from typing import Any  # noqa: E402

import psycopg  # noqa: E402

from bench.faults import (  # noqa: E402
    FOLLOW_UPS,
    BankProcess,
    Harness,
    HarnessError,
    Report,
    Server,
    Trial,
    chat,
    clean_env,
    completed,
    count,
    judge_told,
    pending,
    phase,
    write_flow,
)
from bench.faults import run_trials as faults_run_trials  # noqa: E402


def stored(url: str, session: str) -> tuple[dict[str, Any], int]:
    """The session's saved JSON and its number of completed records, read from the database."""
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            row = conn.execute("SELECT data::text FROM flowctl_sessions WHERE id = %s",
                               (session,)).fetchone()
            counted = conn.execute("SELECT count(*) FROM flowctl_completed "
                                   "WHERE session_id = %s", (session,)).fetchone()
    except psycopg.Error as err:
        raise HarnessError(f"cannot read the session from {url}: {err}") from err
    return (json.loads(row[0]) if row else {}), int(counted[0] if counted else 0)


class PairHarness(Harness):
    """Two instances on one PostgreSQL database; ``self.server`` is the trial's victim."""

    def __init__(self, workdir: Path, url: str, delay: float, margin: float) -> None:
        super().__init__(workdir, delay, margin)
        self.url = url
        self.servers: list[Server] = []

    def __enter__(self) -> PairHarness:
        try:
            flow = write_flow(self.workdir)
            self.bank = BankProcess(self.workdir, self.delay)
            env = clean_env(BANK_URL=self.bank.url)
            self.servers = [Server(flow, self.workdir / "unused.db", env,
                                   self.workdir / f"serve-{name}.log", store=self.url)
                            for name in "ab"]
            for server in self.servers:
                server.start()
            self.server = self.servers[0]
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        try:
            for server in self.servers:
                server.close()
        finally:
            if self.bank is not None:
                self.bank.close()

    def trial(self, index: int, window: str, follow_up: str, rng: random.Random) -> Trial:
        assert self.bank is not None
        victim, other = self.servers[index % 2], self.servers[(index + 1) % 2]
        self.server = victim
        trial = Trial(index, f"fault-{index}-{uuid.uuid4().hex[:8]}", window, follow_up)
        self._order(trial.session)
        start = self.bank.settled(self.delay + 5.0)
        marks = {name: len(start[name]) for name in ("requests", "executions", "timeline")}
        killed = self.confirm_and_kill(trial, rng, marks["timeline"])
        at_kill, saved = stored(self.url, trial.session)

        answer = chat(other.port, trial.session, FOLLOW_UPS[follow_up])
        trial.latency, trial.final_stage = answer.seconds, answer.stage
        if answer.problem:
            trial.failed_turns += 1
            trial.problems.append(f"on the other instance: {answer.problem}")
        records = completed(other.port, trial.session)
        bank = self.bank.settled(self.delay + 5.0)
        after, _ = stored(self.url, trial.session)

        events = bank["timeline"][marks["timeline"]:]
        trial.phase = phase(events, killed, at_kill, saved)
        trial.bank_seconds = sum(e["answered"] - e["arrived"] for e in events
                                 if e["arrived"] > killed and e["answered"] is not None)
        count(trial, bank, marks, records)
        trial.pending_left = pending(after)
        judge_told(trial, answer)
        trial.startup = victim.start()  # back to two instances for the next trial
        return trial


@contextlib.contextmanager
def database(url: str | None) -> Iterator[str]:
    """``url``, or a throwaway cluster's when None."""
    if url:
        yield url
        return
    from tests.pg_cluster import Cluster

    cluster = Cluster({"fsync": "off"}).start()
    try:
        yield cluster.url
    finally:
        cluster.stop()


def run_trials(url: str, trials: int = 16, seed: int = 1, *, delay: float = 0.4,
               margin: float = 0.3, progress: Callable[[Trial], None] | None = None) -> Report:
    """Run ``trials`` kill-one-of-two trials against real processes on ``url``; the counts."""
    return faults_run_trials(trials, seed, delay=delay, margin=margin, progress=progress,
                             harness=lambda tmp, d, m: PairHarness(tmp, url, d, m))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--delay", type=float, default=0.4)
    parser.add_argument("--margin", type=float, default=0.3)
    parser.add_argument("--store", default=None, help="postgresql:// URL (default: a "
                        "throwaway cluster)")
    parser.add_argument("--verbose", "-v", action="store_true", help="one line per trial")
    args = parser.parse_args(argv)

    def show(trial: Trial) -> None:
        if args.verbose or trial.problems:
            print(trial.line(), flush=True)
            for problem in trial.problems:
                print(f"      {problem}", flush=True)

    try:
        with database(args.store) as url:
            report = run_trials(url, args.trials, args.seed, delay=args.delay,
                                margin=args.margin, progress=show)
    except HarnessError as err:
        print(f"harness error: {err}", file=sys.stderr)
        return 2
    print(f"\n{len(report.trials)} trials in {report.seconds:.0f} s on two instances\n")
    print(report.table().replace("first request after restart", "first request elsewhere "))
    failures = report.failures()
    print("\n" + ("FAIL: " + "; ".join(failures) if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
