"""Irreversible actions whose outcome is not known yet: asked again, listed for the operator.

An action that got no answer that settles it (timeouts, 5xx) stays pending in its session.
The server asks its target again in the background, with the same idempotency key, first
after ``FIRST_WAIT`` seconds and then, while nothing settles, twice as long each time up to
``LONGEST_WAIT``; an outcome found so is recorded and told on the session's next turn. The
operator sees what is still open at ``GET /v1/admin/pending`` (``FLOWCTL_ADMIN_KEY``) and as
the ``flowctl_actions_pending`` gauge.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from engine.runtime.serving import TurnEngine
from engine.transports.http.edge import ADMIN
from engine.transports.http.errors import error

log = logging.getLogger("flowctl.http")

FIRST_WAIT = 30.0
LONGEST_WAIT = 600.0

__all__ = ["FIRST_WAIT", "LONGEST_WAIT", "Reconciler", "admin_routes", "pending_actions"]


class Reconciler:
    """Asks every pending action's target again, with backoff; ``count`` is what is left."""

    def __init__(self, engine: TurnEngine, *, first: float = FIRST_WAIT,
                 longest: float = LONGEST_WAIT) -> None:
        self.engine = engine
        self.first = first
        self.longest = longest
        self.count = 0

    async def run(self) -> None:
        """Forever (the server cancels it at shutdown)."""
        wait = self.first
        while True:
            await asyncio.sleep(wait)
            wait = self.first if await self.once() else min(wait * 2, self.longest)

    async def once(self) -> bool:
        """One round; whether it settled anything (or nothing was pending)."""
        store = self.engine.store
        try:
            before = set(await store.pending_sessions())
            if before:
                await self.engine.finish_all_pending()
            left = set(await store.pending_sessions())
        except Exception as err:  # the store is down: try again later
            log.error("could not ask pending actions again: %s: %s", type(err).__name__, err)
            return False
        self.count = len(left)
        settled = before - left
        if settled:
            log.info("settled %d pending action(s); %d still pending", len(settled), len(left))
        return bool(settled) or not before


async def pending_actions(engine: TurnEngine) -> list[dict[str, Any]]:
    """Every pending action: its session, flow, stage, action and idempotency key."""
    found = []
    for session_id in await engine.store.pending_sessions():
        record = await engine.store.load(session_id)
        if record is None:
            continue
        data = record.data  # the current task, then those waiting under other flows
        for task in [data, *(f for f in data.get("stack") or [] if isinstance(f, dict))]:
            for entry in (task.get("journal") or {}).values():
                if entry.get("status") == "pending":
                    found.append({"session_id": session_id, "flow": task.get("flow"),
                                  "stage": task.get("stage"), "action": entry["action"],
                                  "idempotency_key": entry["key"]})
    return found


def admin_routes(app: FastAPI, engine: TurnEngine, key: str | None) -> None:
    """``GET /v1/admin/pending`` for the holder of ``key``; nothing without one."""
    if not key:
        return

    @app.get(f"{ADMIN}pending", tags=["admin"])
    async def pending(request: Request) -> JSONResponse:
        """Irreversible actions whose outcome is not known yet (the operator's key)."""
        given = request.headers.get("authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {key}".encode()):
            return error(401, "unauthorized", "send the operator's key as "
                         "'Authorization: Bearer FLOWCTL_ADMIN_KEY'")
        return JSONResponse({"pending": await pending_actions(engine)})
