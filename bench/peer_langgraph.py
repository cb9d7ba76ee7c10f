"""flowctl beside LangGraph with its SQLite checkpointer, on the same conversations, in one run.

Every variant replays bench/conversations.py (a fresh session per conversation) in this
process, at both SQLite durabilities (``synchronous=NORMAL`` and ``FULL``, WAL everywhere):

- ``plain+sqlite``: the floor of bench/turns.py, hand-written turns committing to SQLite
- ``engine+sqlite``: flowctl over flows/transfer.yaml with its SQLite store
- ``langgraph+sqlite``: the floor's own turn function as the one node of a LangGraph
  ``StateGraph``, compiled with ``SqliteSaver``, invoked once per turn on the session's
  thread: the least LangGraph can do for these conversations (a graph of one node per step
  would only add supersteps and checkpoints)

Needs the ``bench`` extra: ``pip install -e '.[bench]'``.

Run: python bench/peer_langgraph.py [--rounds 100]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any, TypedDict

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

from bench.turns import (  # noqa: E402
    PlainSqlite,
    measure_sync,
    plain_turn,
    print_table,
    run_engine,
    sqlite_engine,
    summary,
)

try:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph
except ImportError:  # pragma: no cover - the optional extra
    sys.exit("bench/peer_langgraph.py needs the bench extra: pip install -e '.[bench]'")


class Turn(TypedDict, total=False):
    session: dict[str, Any]
    message: str
    reply: str


def node(state: Turn) -> Turn:
    session = dict(state.get("session") or {})
    reply = plain_turn(session, state["message"])
    return {"session": session, "reply": reply}


class LangGraphSqlite:
    """The floor's turn as a one-node LangGraph graph, checkpointed by SqliteSaver."""

    def __init__(self, path: str, synchronous: str) -> None:
        conn = sqlite3.connect(path, check_same_thread=False)
        self.saver = SqliteSaver(conn)
        self.saver.setup()  # WAL; its default synchronous is FULL
        conn.execute(f"PRAGMA synchronous={synchronous}")
        graph = StateGraph(Turn)
        graph.add_node("turn", node)
        graph.add_edge(START, "turn")
        graph.add_edge("turn", END)
        self.app = graph.compile(checkpointer=self.saver)

    def turn(self, sid: str, text: str) -> str:
        out = self.app.invoke({"message": text}, {"configurable": {"thread_id": sid}})
        return str(out["reply"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--synchronous", default="NORMAL,FULL")
    args = parser.parse_args()
    for level in args.synchronous.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            plain = PlainSqlite(f"{tmp}/plain.db", level)
            results = [summary("plain+sqlite", measure_sync(plain.turn, args.rounds)),
                       summary("engine+sqlite", run_engine(
                           sqlite_engine(f"{tmp}/engine.db", level), args.rounds))]
            peer = LangGraphSqlite(f"{tmp}/langgraph.db", level)
            measure_sync(peer.turn, 2)  # warm-up
            results.append(summary("langgraph+sqlite", measure_sync(peer.turn, args.rounds)))
        print(f"\nsynchronous={level}")
        print_table(results, results[0]["median_us"])
        engine, langgraph = results[1]["median_us"], results[2]["median_us"]
        print(f"langgraph / engine: {langgraph / engine:.1f}x")


if __name__ == "__main__":
    main()
