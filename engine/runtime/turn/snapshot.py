"""The session as a DONE shows it: ``state_snapshot``, with sensitive values masked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.compiler.compiled import CompiledFlow, shown
from engine.runtime.turn.reply import Reply
from engine.runtime.turn.stack import entries
from engine.runtime.understanding.context import TurnState, missing
from engine.runtime.values.events import StateSnapshot
from engine.runtime.values.session import SessionState

__all__ = ["asking", "snapshot"]


def snapshot(state: SessionState, flow: CompiledFlow | None,
             sensitive: frozenset[str] = frozenset()) -> StateSnapshot:
    """The session as DONE's ``state_snapshot`` shows it (sensitive slots masked)."""
    names = flow.slots if flow else tuple(state.slots)
    snap: StateSnapshot = {
        "flow": state.flow, "stage": state.stage,
        "slots": shown({n: state.slots.get(n) for n in names}, sensitive),
        "missing_required": missing(state, flow), "filling_turns": state.filling_turns,
        "meta": _masked_meta(state.meta, sensitive) if sensitive else
                {"slot_errors": {}, **state.meta},
        "task_queue": [shown(task, sensitive) for task in state.task_queue],
        "stack": entries(state, sensitive)}
    return snap


def _masked_meta(meta: Mapping[str, Any], sensitive: frozenset[str]) -> Any:
    """``meta`` with the old and new values of a sensitive slot's correction masked."""
    shown_meta: dict[str, Any] = {"slot_errors": {}, **meta}
    if "corrected" in meta:
        shown_meta["corrected"] = shown(meta["corrected"], sensitive)
    change = meta.get("correction")
    if change and change.get("slot") in sensitive:
        shown_meta["correction"] = {**change, **shown(
            {k: change.get(k) for k in ("old", "new")}, frozenset(("old", "new")))}
    return shown_meta




def asking(state: TurnState, reply: Reply) -> tuple[str, list[str]]:
    """DONE's next_action and buttons: the stage's, unless a pattern asks its own."""
    if state.session.clarify is not None:
        return "ASK", reply.labels(state.session.clarify["options"])
    awaiting = state.session.meta.get("awaiting")
    if awaiting == "continue":
        return "ASK_CONTINUE", list(state.flow.resume_buttons)
    if awaiting == "correction":
        return "CONFIRM", list(state.stage.buttons)
    return state.stage.next_action, list(state.stage.buttons)
