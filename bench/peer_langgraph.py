"""flowctl beside LangGraph with its SQLite checkpointer, on the same conversations, in one run.

Every variant replays bench/conversations.py (a fresh session per conversation) in this
process, at both SQLite durabilities (``synchronous=NORMAL`` and ``FULL``, WAL everywhere):

- ``plain+sqlite``: the floor of bench/turns.py, hand-written turns committing to SQLite
- ``engine+sqlite``: flowctl over flows/transfer.yaml with its SQLite store
- ``langgraph+sqlite``: the floor's own turn function as the one node of a LangGraph
  ``StateGraph``, compiled with ``SqliteSaver``, invoked once per turn on the session's
  thread: the least LangGraph can do for these conversations
- ``langgraph-steps+sqlite``: the same turn as a node per step, as a LangGraph service is
  usually drawn: ``route`` (the intent, when no transfer is in progress), ``understand``
  (yes/no and the slot values) and ``act`` (fill, confirm, execute), with a conditional
  edge after ``route``; each node is a superstep with its own checkpoint

Before timing, both graphs must give the floor's replies on every conversation.

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

from bench.conversations import CONVERSATIONS  # noqa: E402
from bench.turns import (  # noqa: E402
    PlainSqlite,
    act_step,
    measure_sync,
    plain_turn,
    print_table,
    route_step,
    run_engine,
    sqlite_engine,
    summary,
    understand_step,
)

try:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph
except ImportError:  # pragma: no cover - the optional extra
    sys.exit("bench/peer_langgraph.py needs the bench extra: pip install -e '.[bench]'")


class Turn(TypedDict, total=False):
    session: dict[str, Any]
    message: str
    reply: str | None
    understood: dict[str, Any]


def node(state: Turn) -> Turn:
    session = dict(state.get("session") or {})
    reply = plain_turn(session, state["message"])
    return {"session": session, "reply": reply}


def route(state: Turn) -> Turn:
    session = dict(state.get("session") or {})
    return {"session": session, "reply": route_step(session, state["message"])}


def understand(state: Turn) -> Turn:
    return {"understood": understand_step(state["session"], state["message"])}


def act(state: Turn) -> Turn:
    session = dict(state["session"])
    return {"session": session, "reply": act_step(session, state["understood"])}


def one_node() -> StateGraph:
    graph = StateGraph(Turn)
    graph.add_node("turn", node)
    graph.add_edge(START, "turn")
    graph.add_edge("turn", END)
    return graph


def node_per_step() -> StateGraph:
    graph = StateGraph(Turn)
    graph.add_node("route", route)
    graph.add_node("understand", understand)
    graph.add_node("act", act)
    graph.add_edge(START, "route")
    graph.add_conditional_edges("route", lambda s: END if s.get("reply") else "understand")
    graph.add_edge("understand", "act")
    graph.add_edge("act", END)
    return graph


class LangGraphSqlite:
    """The floor's turn as a LangGraph graph, checkpointed by SqliteSaver."""

    def __init__(self, path: str, synchronous: str, graph: StateGraph) -> None:
        conn = sqlite3.connect(path, check_same_thread=False)
        self.saver = SqliteSaver(conn)
        self.saver.setup()  # WAL; its default synchronous is FULL
        conn.execute(f"PRAGMA synchronous={synchronous}")
        self.app = graph.compile(checkpointer=self.saver)

    def turn(self, sid: str, text: str) -> str:
        out = self.app.invoke({"message": text, "reply": None},
                              {"configurable": {"thread_id": sid}})
        return str(out["reply"])


def check_replies(peer: LangGraphSqlite) -> None:
    """The graph answers every conversation as the floor does (else the bench is void)."""
    for c, conversation in enumerate(CONVERSATIONS):
        session: dict[str, Any] = {}
        for text in conversation:
            wanted, got = plain_turn(session, text), peer.turn(f"check-{c}", text)
            if got != wanted:
                sys.exit(f"the graph answered {text!r} with {got!r}, the floor {wanted!r}")


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
            for name, graph in (("langgraph", one_node()), ("langgraph-steps", node_per_step())):
                peer = LangGraphSqlite(f"{tmp}/{name}.db", level, graph)
                check_replies(peer)
                measure_sync(peer.turn, 2)  # warm-up
                results.append(summary(f"{name}+sqlite", measure_sync(peer.turn, args.rounds)))
        print(f"\nsynchronous={level}")
        print_table(results, results[0]["median_us"])
        engine = results[1]["median_us"]
        for peer_result in results[2:]:
            print(f"{peer_result['name']} / engine: {peer_result['median_us'] / engine:.1f}x")


if __name__ == "__main__":
    main()
