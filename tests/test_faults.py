"""A real ``flowctl serve`` killed with SIGKILL around a bank transfer and restarted, a few
times: money that moved is always recorded, never moves twice, is never recorded as
cancelled, is always told to the user, and the restarted server answers its first request
in under 2 s.

The harness is bench/faults.py (``python3 bench/faults.py --trials 100`` runs the long
version); here it runs 8 trials with a fixed seed: each kill window (before the bank gets
the call, while it works, right after its answer, later) and each next message (retry,
change, cancel, something unrelated) twice.
"""

from __future__ import annotations

from bench.faults import SLOW_RESTART, run_trials


def test_kill_9_around_the_bank_call_never_loses_or_doubles_money() -> None:
    report = run_trials(8, seed=7, delay=0.3, margin=0.2)
    totals = report.totals
    table = report.table()
    assert len(report.trials) == 8
    assert totals["unrecorded"] == 0, table
    assert totals["double"] == 0, table
    assert totals["cancelled_moved"] == 0, table
    assert totals["phantom"] == 0, table  # nothing recorded EXECUTED that did not move
    assert totals["pending_left"] == 0 and totals["failed_turns"] == 0, table
    assert totals["not_told"] == 0 and totals["never_told"] == 0, table  # paid: always told
    assert all(t.latency < SLOW_RESTART for t in report.trials), table
    # the harness did its job: the kills landed in more than one place around the call
    assert len({t.phase for t in report.trials}) >= 2, table
