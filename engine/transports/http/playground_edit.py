"""A slot value the playground changes -> a new session holding that change for the user's yes.

``POST /v1/agent/playground/edit`` (FLOWCTL_DEV_MODE only, behind the same gate as the rest of the
API) never writes the session it is given. It copies that session, as the caller owns it,
into a fresh one (the way ``flowctl test`` presets a conversation's slots: a record
committed before the session's first turn) in which the new value is *held as a
correction*, exactly as the engine holds one a message made in a flow that confirms
corrections (``meta.awaiting == "correction"``). The fork's first turn is the user's answer,
and the engine's own rules take it from there: a yes sets the value through the engine's
validation and fires ``update`` on the stage machine (at a confirmation stage the
confirmation is asked again, with the new value); a no keeps the old one; a cancel cancels.

The value is checked here first, with the engine's validator, only to refuse a hopeless one
at once (422); the engine checks it again when the yes applies it. A session whose task ran
(or is running) an action, or that waits for another answer, is not forked (409): its
journal belongs to that task, and nothing already done may look undone.
"""

from __future__ import annotations

import copy
import secrets
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from engine.compiler.compiled import shown
from engine.runtime.serving import TurnEngine
from engine.runtime.understanding.context import hold_correction
from engine.runtime.understanding.slots import Rejected, validate
from engine.runtime.values.session import owned_key
from engine.store.base import JSON
from engine.transports.http.edge import PREFIX, principal
from engine.transports.http.errors import error
from engine.transports.http.schemas import AUTH_ERRORS, SessionId, error_doc

EDIT = f"{PREFIX}/playground/edit"

__all__ = ["EDIT", "EditRequest", "Forked", "install"]


class EditRequest(BaseModel):
    session_id: SessionId
    slot: str = Field(min_length=1, max_length=128)
    value: str | int | float | bool = Field(description="The new value, as a user would "
                                                        "give it (\"3만원\", 30000).")


class Forked(BaseModel):
    session_id: str = Field(description="The new session: the old one with the change held.")
    flow: str
    stage: str
    slot: str
    value: Any = Field(description="The new value as DONE shows values (a sensitive slot's "
                                   "masked).")
    buttons: list[str] = Field(description="What to answer: the first applies the change.")


def install(app: FastAPI, engine: TurnEngine) -> None:
    """Add ``POST /v1/agent/playground/edit`` to ``app`` (in FLOWCTL_DEV_MODE only)."""
    if not engine.settings.dev_mode:
        return

    @app.post(EDIT, status_code=201, response_model=Forked,
              tags=["playground (FLOWCTL_DEV_MODE only)"],
              responses={409: error_doc(), 422: error_doc(),
                         **AUTH_ERRORS})
    async def edit(request: Request, body: EditRequest) -> Response:
        """Fork the session with one slot changed, the change waiting for the user's yes."""
        who = principal(request.scope)
        record = await engine.store.load(owned_key(body.session_id, who))
        if record is None or record.data.get("owner") != who:
            return error(404, "not_found", f"no session {body.session_id!r}")
        checked = check(engine, record.data, body)
        if not isinstance(checked, Held):
            return checked
        fork_id = secrets.token_urlsafe(24)
        await engine.store.commit(owned_key(fork_id, who),
                                  forked(record.data, body.slot, checked.value),
                                  expected_version=0)
        flow = engine.service.flows[record.data["flow"]]
        stage = flow.stages[record.data["stage"]]
        words = stage.words or engine.service.words
        buttons = list(stage.buttons) or [words.confirm[0], (words.deny or words.cancel)[0]]
        value = shown({body.slot: checked.value}, engine.service.sensitive)[body.slot]
        return JSONResponse(Forked(session_id=fork_id, flow=flow.name, stage=stage.name,
                                   slot=body.slot, value=value, buttons=buttons).model_dump(),
                            status_code=201)


@dataclass(frozen=True, slots=True)
class Held:
    """The new value, validated: the change the fork holds."""

    value: Any


def check(engine: TurnEngine, data: JSON, body: EditRequest) -> Held | JSONResponse:
    """The change ``body`` asks of the stored session ``data``, or why it cannot fork it."""
    flow = engine.service.flows.get(data.get("flow") or "")
    if flow is None or not flow.in_progress(data.get("stage")):
        return error(409, "no_task", "no task is in progress: there is no value to change")
    if data.get("journal") or (data.get("meta") or {}).get("awaiting") or data.get("clarify"):
        return error(409, "busy", "the task ran an action or waits for another answer: "
                                  "it cannot be forked with a change")
    slot = engine.service.slots.get(body.slot)
    if slot is None or body.slot not in flow.slots:
        return error(422, "unknown_slot", f"flow {flow.name!r} has no slot {body.slot!r}",
                     slots=list(flow.slots))
    slots = data.get("slots") or {}
    value = validate(slot, body.value, slots, today=engine.clock().date())
    if isinstance(value, Rejected):
        return error(422, "invalid_value", value.reason or engine.text("slot_invalid"))
    if slots.get(body.slot) == value:
        return error(422, "unchanged", f"{body.slot} already has that value")
    return Held(value)


def forked(data: JSON, slot: str, new: Any) -> JSON:
    """A copy of the stored session ``data`` with ``slot``'s change to ``new`` held for the
    user's yes, as the engine holds a correction (``context.hold_correction``)."""
    fork = copy.deepcopy(data)
    old = (fork.get("slots") or {}).get(slot)
    meta = fork.setdefault("meta", {})
    hold_correction(meta, slot, old, new)
    meta["slot_errors"] = {}
    for gone in ("untold", "stream", "run_context"):  # the original's, not the fork's
        fork.pop(gone, None)
    fork["task_id"] = secrets.token_hex(16)  # its actions' idempotency keys are its own
    return fork
