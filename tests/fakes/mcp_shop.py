"""A small shop MCP server built with the official SDK's ``MCPServer`` (FastMCP in mcp 1.x).

Tools: ``track_parcel(order_id)`` (where an order's parcel is), ``product_stock(product_id)``
(units in stock), ``slow(seconds)`` (answers late, for timeouts), ``broken()`` (fails),
``pid()`` (the server's process id) and ``crash()`` (the process exits mid-call).
Every call is counted: with ``MCP_SHOP_CALLS=path`` each call appends one JSON line
``{"tool", "args"}`` to that file, so a test can count calls across processes; with
``MCP_SHOP_STARTS=path`` a stdio server appends its pid to that file when it starts.

Run it over stdio (what an operator's ``{"command": [...]}`` entry starts)::

    python -m tests.fakes.mcp_shop

or over streamable HTTP on loopback (``PORT`` 0 picks a free port; the URL is printed as the
first line on stdout, ``http://127.0.0.1:PORT/mcp``)::

    python -m tests.fakes.mcp_shop --http PORT
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

PARCELS = {"A100": {"status": "배송중", "carrier": "CJ대한통운", "eta": "2026-11-25"},
           "A200": {"status": "배송완료", "carrier": "한진택배", "eta": "2026-11-20"},
           # flows/commerce.yaml's shipping order (tests/fakes/shop_api.py)
           "ORD-1001": {"status": "옥천 HUB 간선 하차", "carrier": "CJ대한통운",
                        "eta": "2026-11-27"}}
STOCK = {"P1": 12, "P2": 0}

shop = MCPServer("shop", log_level="ERROR")


def _count(tool: str, args: dict[str, Any]) -> None:
    path = os.environ.get("MCP_SHOP_CALLS")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"tool": tool, "args": args}, ensure_ascii=False) + "\n")


@shop.tool()
def track_parcel(order_id: str) -> dict[str, Any]:
    """Where the parcel of an order is: status, carrier and expected arrival date."""
    _count("track_parcel", {"order_id": order_id})
    if order_id not in PARCELS:
        raise ToolError(f"no order {order_id}")
    return {"order_id": order_id, **PARCELS[order_id]}


@shop.tool()
def product_stock(product_id: str) -> dict[str, Any]:
    """How many units of a product are in stock."""
    _count("product_stock", {"product_id": product_id})
    return {"product_id": product_id, "stock": STOCK.get(product_id, 0)}


@shop.tool()
async def slow(seconds: float) -> str:
    """Answers after `seconds` (for timeout tests)."""
    _count("slow", {"seconds": seconds})
    await asyncio.sleep(seconds)
    return "late"


@shop.tool()
def broken() -> str:
    """Always fails."""
    _count("broken", {})
    raise ToolError("the shop database is down")


@shop.tool()
def pid() -> dict[str, int]:
    """This server's process id (to tell a kept process from a fresh one)."""
    return {"pid": os.getpid()}


@shop.tool()
def crash() -> str:
    """Ends the process mid-call, without an answer."""
    _count("crash", {})
    os._exit(3)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main(argv: list[str]) -> None:
    if argv[:1] == ["--http"]:
        port = int(argv[1]) if len(argv) > 1 and argv[1] != "0" else _free_port()
        print(f"http://127.0.0.1:{port}/mcp", flush=True)
        shop.run("streamable-http", host="127.0.0.1", port=port)
    else:
        if os.environ.get("MCP_SHOP_STARTS"):  # one line per process started, its pid
            with open(os.environ["MCP_SHOP_STARTS"], "a", encoding="utf-8") as out:
                out.write(f"{os.getpid()}\n")
        shop.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
