"""Cost of the offline rules alone: ``understand()`` over the messages of eval sets.

Reads every case's message from the given eval files (by default the blind FILLING sets of
the transfer flow, the hard messages: conditions, sums, someone else's words, typos) and
calls the rules' ``understand`` on each in the transfer flow's FILLING stage, once asked for
the recipient and once for the amount, ``--passes`` times; prints the median time per call
and the range over the passes. No store, no events, no model: only what reading costs.

Run it in a checkout, and in a ``git worktree`` of another version beside it, in turn:

    python bench/understand_rules.py [--passes 7] [EVAL_FILE ...]
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

from engine.compiler import compile_file  # noqa: E402
from engine.runtime.understanding.understand import understand  # noqa: E402

BLIND = ROOT / "tests" / "fixtures" / "blind_fill"
DEFAULT = [BLIND / "transfer_filling.eval.yaml", BLIND / "transfer_filling_2.eval.yaml"]


def messages(files: list[Path]) -> list[str]:
    return [case["message"] for path in files
            for case in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT)
    parser.add_argument("--passes", type=int, default=7)
    args = parser.parse_args()
    service = compile_file(ROOT / "flows" / "transfer.yaml")
    flow = service.flows["transfer"]
    said = messages(args.files)
    today = dt.date(2026, 1, 5)
    per_call = []
    for _ in range(args.passes):
        started = time.perf_counter()
        for message in said:
            for asked in ("target", "amount"):
                understand(message, service, flow, "FILLING", asked=asked, batching=True,
                           today=today)
        per_call.append((time.perf_counter() - started) / (2 * len(said)) * 1e6)
    print(f"{len(said)} messages, asked twice each, {args.passes} passes: "
          f"median {statistics.median(per_call):.1f} µs a call "
          f"(range {min(per_call):.1f}–{max(per_call):.1f})")


if __name__ == "__main__":
    main()
