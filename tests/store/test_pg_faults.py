"""Two real ``flowctl serve`` instances on one PostgreSQL database; one is killed with
SIGKILL around a bank transfer while the other serves the session's next message: money
that moved is always recorded, never moves twice, is never recorded as cancelled, and the
other instance answers within 2 s (the kill frees the session at once).

The harness is bench/faults_pg.py (bench/faults.py's trials with two instances); here it
runs 8 trials with a fixed seed, each kill window and each next message twice.
"""

from __future__ import annotations

from bench.faults import SLOW_RESTART
from bench.faults_pg import run_trials


def test_kill_9_of_one_instance_never_loses_or_doubles_money(pg_url: str) -> None:
    report = run_trials(pg_url, 8, seed=7, delay=0.3, margin=0.2)
    totals = report.totals
    table = report.table()
    assert len(report.trials) == 8
    assert totals["unrecorded"] == 0, table
    assert totals["double"] == 0, table
    assert totals["cancelled_moved"] == 0, table
    assert totals["phantom"] == 0, table
    assert totals["pending_left"] == 0 and totals["failed_turns"] == 0, table
    assert totals["not_told"] == 0, table
    assert all(t.latency < SLOW_RESTART for t in report.trials), table
    assert len({t.phase for t in report.trials}) >= 2, table
