"""``flowctl chat`` on PostgreSQL, chosen by FLOWCTL_STORE: a conversation split over two
runs of the command continues where it stopped, and its transfer is recorded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[2]


def chat(pg_url: str, *lines: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FLOWCTL_", "OPENAI_"))}
    run = subprocess.run([sys.executable, "-m", "cli", "chat", "flows/transfer.yaml"],
                         input="".join(f"{line}\n" for line in lines), cwd=ROOT,
                         env={**env, "FLOWCTL_STORE": pg_url, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and not run.stderr, run.stderr
    return run.stdout


def test_chat_keeps_its_session_in_postgresql_between_runs(pg_url: str) -> None:
    assert "이체할까요" in chat(pg_url, "엄마한테 1만원 보내줘")
    assert "이체가 완료됐어요" in chat(pg_url, "확인")  # the second run continues the session
    with psycopg.connect(pg_url) as conn:
        outcomes = [row[0] for row in conn.execute(
            "SELECT data->>'outcome' FROM flowctl_completed WHERE session_id = 'terminal'")]
    assert outcomes == ["EXECUTED"]
