"""A loopback shop API for flows/commerce.yaml: orders, refunds and seller sales; it honours
``Idempotency-Key`` and counts every request.

- ``GET /orders/{id}``: the order (``order_id, product, status, amount, eta``) or 404.
- ``POST /refunds`` with ``{"order_id", "kind"}`` (kind: cancel, refund, exchange): the first
  request with a key executes (``executions`` grows) and its answer (``request_id``,
  ``status: CONFIRMED``) is stored; a later request with the same key gets that same answer
  and executes nothing, as a real payment API does. No key: 400; an unknown order: 404; a
  delivered order cannot be cancelled: 422 (409 would mean "not settled yet, retry").
- ``GET /sellers/{id}/sales``: ``{orders, revenue}``; ``GET /sellers/{id}/products``: the
  seller's products with their figures (``s-17``); ``GET /users/{id}/rewards``: points,
  coupons and membership (``u-1``).

``status`` makes every answer an error instead; ``delay`` (seconds) makes a refund slow: the
API waits half of it before executing and half before answering, so a client killed mid-call
may die before or after the refund happened. ``requests`` records (method, path, key, body).

Run by hand for ``flowctl serve flows/commerce.yaml`` (its default SHOP_URL):
``python -m tests.fakes.shop_api 8900``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback import LoopbackHTTP, QuietHandler, answer

ORDERS: dict[str, dict[str, Any]] = {
    "ORD-1001": {"order_id": "ORD-1001", "product": "LG 그램 16", "status": "SHIPPING",
                 "amount": 1890000, "eta": "2026-11-27"},
    "ORD-1002": {"order_id": "ORD-1002", "product": "갤럭시 버즈3", "status": "DELIVERED",
                 "amount": 159000, "eta": None},
    "ORD-1003": {"order_id": "ORD-1003", "product": "로지텍 MX Master 3S", "status": "PAID",
                 "amount": 139000, "eta": "2026-11-29"},
    "ORD-1004": {"order_id": "ORD-1004", "product": "애플 에어팟 프로 2", "status": "DELIVERED",
                 "amount": 359000, "eta": None},
    "ORD-1005": {"order_id": "ORD-1005", "product": "삼성 갤럭시북4 프로 14",
                 "status": "DELIVERED", "amount": 1650000, "eta": None},
}
SALES = {"s-17": {"orders": 12, "revenue": 3480000}}
REWARDS = {"u-1": {"points": 12500, "expiring_points": 3000, "expiring_on": "2026-11-30",
                   "coupons": [{"name": "겨울맞이 10% 할인", "expires": "2026-12-31"}],
                   "membership": {"grade": "골드", "next_grade": "VIP", "to_next": 180000}}}
PRODUCTS = {"s-17": {"products": [
    {"product_id": "P-105", "name": "삼성 갤럭시 버즈3", "price": 159000, "unit_cost": 98000,
     "fee_rate": 0.1, "views": 4200, "orders": 126, "units": 130, "stock": 45,
     "elasticity": -1.5},
    {"product_id": "P-108", "name": "로지텍 MX Master 3S", "price": 139000, "unit_cost": 95000,
     "fee_rate": 0.1, "views": 2600, "orders": 31, "units": 32, "stock": 80,
     "elasticity": -1.2}]}}


class ShopAPI(LoopbackHTTP):
    def __init__(self, port: int = 0, *, delay: float = 0.0) -> None:
        self.requests: list[tuple[str, str, str | None, dict[str, Any]]] = []
        self.answers: dict[str, dict[str, Any]] = {}
        self.executions: list[dict[str, Any]] = []
        self.status = 200
        self.delay = delay
        self._lock = threading.Lock()
        super().__init__(port)
        self.url = f"http://127.0.0.1:{self.port}"

    def handler(self) -> type[BaseHTTPRequestHandler]:
        shop = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                self._send(*shop.get(self.path, self.headers.get("Idempotency-Key")))

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = None
                self._send(*shop.post(self.path, self.headers.get("Idempotency-Key"), body))

            def _send(self, status: int, data: dict[str, Any]) -> None:
                answer(self, status, json.dumps(data, ensure_ascii=False).encode(),
                       "application/json")

        return Handler

    def get(self, path: str, key: str | None) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append(("GET", path, key, {}))
        if self.status != 200:
            return self.status, {"error": "scripted failure"}
        parts = path.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "orders" and parts[1] in ORDERS:
            return 200, ORDERS[parts[1]]
        if len(parts) == 3 and parts[0] == "sellers" and parts[2] == "sales" \
                and parts[1] in SALES:
            return 200, SALES[parts[1]]
        if len(parts) == 3 and parts[0] == "sellers" and parts[2] == "products" \
                and parts[1] in PRODUCTS:
            return 200, PRODUCTS[parts[1]]
        if len(parts) == 3 and parts[0] == "users" and parts[2] == "rewards" \
                and parts[1] in REWARDS:
            return 200, REWARDS[parts[1]]
        return 404, {"error": "not found"}

    def post(self, path: str, key: str | None, body: Any) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append(("POST", path, key, body if isinstance(body, dict) else {}))
        time.sleep(self.delay / 2)
        status, data = self._refund(path, key, body)
        time.sleep(self.delay / 2)
        return status, data

    def _refund(self, path: str, key: str | None, body: Any) -> tuple[int, dict[str, Any]]:
        with self._lock:
            if self.status != 200:
                return self.status, {"error": "scripted failure"}
            if path != "/refunds" or not isinstance(body, dict):
                return 404, {"error": "not found"}
            if not key:
                return 400, {"error": "Idempotency-Key required"}
            if key in self.answers:
                return 200, self.answers[key]
            order = ORDERS.get(str(body.get("order_id")))
            if order is None:
                return 404, {"error": "no such order"}
            if body.get("kind") == "cancel" and order["status"] == "DELIVERED":
                return 422, {"error": "a delivered order is refunded, not cancelled"}
            self.executions.append({"key": key, **body})
            self.answers[key] = {"request_id": f"R-{len(self.executions)}",
                                 "order_id": order["order_id"], "kind": body.get("kind"),
                                 "status": "CONFIRMED"}
            return 200, self.answers[key]

    def refunds(self) -> list[tuple[str, str, str | None, dict[str, Any]]]:
        return [r for r in self.requests if r[1] == "/refunds"]


if __name__ == "__main__":
    with ShopAPI(int(sys.argv[1]) if len(sys.argv) > 1 else 8900) as running:
        print(f"shop API on {running.url}", flush=True)
        running._thread.join()
