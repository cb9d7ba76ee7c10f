"""Cost of calling a tool on an operator's stdio MCP server: the first call, and the ones after.

Starts the test suite's shop server (tests/fakes/mcp_shop, built on the official SDK) through
the engine's ``McpHub`` and calls ``product_stock`` ``--calls`` times in a row, ``--runs``
times with a fresh hub each; prints the first call's time (it starts the process and imports
the SDK client) and the median of the later ones, with their ranges over the runs.

Run it in a checkout, and in a ``git worktree`` of another version beside it, in turn:

    python bench/mcp_calls.py [--runs 3] [--calls 6]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

from engine.runtime.calls.mcp import McpHub, McpServer  # noqa: E402

SHOP = McpServer(name="shop", command=(sys.executable, "-m", "tests.fakes.mcp_shop"),
                 cwd=str(ROOT))


async def one_run(calls: int) -> list[float]:
    hub = McpHub({"shop": SHOP})
    took = []
    try:
        for _ in range(calls):
            start = time.perf_counter()
            await hub.call("shop", "product_stock", {"product_id": "P1"}, timeout=60)
            took.append(time.perf_counter() - start)
    finally:
        if hasattr(hub, "aclose"):  # older versions had nothing to stop
            await hub.aclose()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--calls", type=int, default=6)
    args = parser.parse_args()
    firsts, laters = [], []
    for _ in range(args.runs):
        took = asyncio.run(one_run(args.calls))
        firsts.append(took[0])
        laters.append(statistics.median(took[1:]))
    print(f"{ROOT.name}: first call {statistics.median(firsts) * 1000:.0f} ms "
          f"({min(firsts) * 1000:.0f}-{max(firsts) * 1000:.0f}); a later call "
          f"{statistics.median(laters) * 1000:.1f} ms "
          f"({min(laters) * 1000:.1f}-{max(laters) * 1000:.1f}) over {args.runs} runs")


if __name__ == "__main__":
    main()
