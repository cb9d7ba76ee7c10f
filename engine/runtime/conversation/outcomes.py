"""What the user must hear of an irreversible action, whatever happened to the reply.

A turn that settles an irreversible action (it ran, or definitely failed) keeps its reply in
the session as *untold* when its transport reports delivery (``reporting_delivery``); the
transport clears it once the DONE reached the client (``Done.delivered``). A reply lost on
the way — the client timed out, the connection dropped, the process died after the commit —
is therefore told first on the session's next turn, whatever that message is.

An outcome that stays unknown traps nothing: a message asking for another flow starts it on
top of the waiting task (``PENDING``), whose target is asked again when that flow is done —
never "go on?" first, so no answer can cancel a task that may have run.

A request that repeats a task which ran moments ago (same flow, same values) is asked about
before anything else: the user who did not see the first answer must not pay twice by
asking again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from engine.compiler.compiled import scrubbed, shown
from engine.nlu import yes_no
from engine.runtime.calls.memory import remember
from engine.runtime.conversation.unwind import unwind
from engine.runtime.turn.stack import PENDING
from engine.runtime.understanding import routing

if TYPE_CHECKING:
    from engine.compiler.compiled import CompiledFlow
    from engine.runtime.turn.run import Turn
    from engine.runtime.understanding.understand import Intent
    from engine.runtime.values.session import SessionState

REPEAT_WINDOW = dt.timedelta(minutes=10)
"""How long after a task ran the same request is asked about before it is confirmed."""

reporting_delivery: ContextVar[bool] = ContextVar("flowctl_reporting_delivery", default=False)
"""True inside a transport's turn when it awaits ``Done.delivered`` after sending the DONE;
in-process callers (``flowctl test``, ``flowctl chat``) see every DONE they are given."""

__all__ = ["REPEAT_WINDOW", "acted", "ask_about_repeat", "kept_despite", "reporting_delivery",
           "settle_first", "settle_pending", "tell_untold"]


async def settle_first(run: Turn, active: CompiledFlow | None) -> bool:
    """Settle an unknown outcome before anything else: the current task's (``settle_pending``)
    or, in a turn nobody sent (the background rounds, a restart), that of a task waiting
    under a flow begun meanwhile (``_settle_under``); True when the turn was that."""
    session = run.state.session
    if active is not None and session.pending():
        await settle_pending(run, active)
        return True
    if not run.state.message and any(f.get("cause") == PENDING for f in session.stack):
        await _settle_under(run)
        return True
    return False


async def settle_pending(run: Turn, active: CompiledFlow) -> None:
    """A process died around an irreversible call, or its target gave no answer that
    settles it: finish that task before anything else, by running its stage again (the
    call repeats with the same key), and say how it ended — or that it is still unknown,
    and, to a cancel, that what may have happened cannot be taken back."""
    state, session = run.state, run.state.session
    state.enter(active)
    await run.settle(True)
    other = _meanwhile(run, active) if session.pending() else None
    if other is None or not await _begin_meanwhile(run, other):
        await unwind(run)  # a called flow's caller goes on with it
    if session.pending() and yes_no(state.message, run.service.words) == "cancel":
        run.reply.parts.append(run.engine.text("pending_not_cancelled"))
    if state.message:
        remember(session, state.message, run.reply.text(), run.engine.memory)
    elif not session.pending():  # settled with nobody listening: said on the next turn
        session.notice = run.reply.text()
        session.raw_history.append({"role": "assistant", "content": session.notice})


async def _settle_under(run: Turn) -> None:
    """Ask again the target of the task waiting under the flow on top: that task is taken
    up for the call alone, then the flow on top is put back as it was — with the outcome,
    once known, said on the user's next turn."""
    state, session = run.state, run.state.session
    index = max(i for i, f in enumerate(session.stack) if f.get("cause") == PENDING)
    waiting = session.stack.pop(index)
    session.push("interrupted", tuple(session.slots))  # the flow on top, all it holds
    session.restore(waiting)
    state.enter(run.service.flows[waiting["flow"]])
    await run.settle(True)
    if session.pending():  # still unknown: back under the flow on top
        session.push("interrupted", state.flow.slots)
        again = session.stack.pop()
        again["cause"] = PENDING
        _put_back(run)
        session.stack.insert(index, again)
        return
    _put_back(run)
    session.notice = f"{session.notice} {run.reply.text()}".strip()
    session.raw_history.append({"role": "assistant", "content": run.reply.text()})


def _put_back(run: Turn) -> None:
    """The flow on top, with exactly the slots it had (none of the waiting task's)."""
    session = run.state.session
    session.slots = {}
    session.restore(session.stack.pop())
    run.state.enter(run.service.flows[session.flow or ""])


def _meanwhile(run: Turn, active: CompiledFlow) -> Intent | None:
    """Another flow's intent in a message sent while an outcome is unknown (never a
    decision: a yes or a cancel is about the waiting task)."""
    message = run.state.message
    if not message or run.stack.full() or yes_no(message, run.service.words) is not None:
        return None
    return routing.other_intent(message, run.service, active)


async def _begin_meanwhile(run: Turn, intent: Intent) -> bool:
    """Start ``intent``'s flow on top of the task whose outcome is unknown; False (nothing
    changed) when its guard refuses it."""
    service, session = run.service, run.state.session
    parts, waiting = run.reply.parts, run.engine.text("action_pending")
    if parts and parts[-1] == waiting:
        parts[-1] = run.engine.text("pending_meanwhile")
    run.stack.push("interrupted", PENDING)
    session.stack[-1]["asked_in"] = run.turn_id  # its target was asked in this turn
    flow = service.flows[service.routes.get(intent.name or "") or service.default_flow]
    if not run.stack.start(flow, intent, "intent"):
        session.restore(session.stack.pop())  # refused: the task stays on top, as it was
        return False
    await run.work(run.state.message)
    await unwind(run)
    return True


def kept_despite(run: Turn, before: SessionState) -> tuple[str, dict[str, Any]] | None:
    """The turn failed (its flow's own mistake: a message reading a field the action's
    result lacks, say) after an irreversible action settled in it. The outcome must not be
    lost with the turn: ``before`` (the session as stored, the action journalled pending)
    gets the settled journal entries, the task is recorded as the action left it and ended
    (its stages would only fail again), and the turn says how it went — (that text, the
    completed task's record) — or None when no irreversible action settled."""
    journal = run.state.session.journal
    settled = [journal[name] for name in dict.fromkeys(run.settled) if name in journal]
    if not settled:
        return None
    failed = any(entry["status"] == "failed" for entry in settled)
    say = run.engine.text("action_failed_unshown" if failed else "action_done_unshown")
    before.journal.update({entry["action"]: entry for entry in settled})
    values = run.state.slot_values()
    record = {"flow": run.state.flow.name, "outcome": "ACTION_FAILED" if failed else
              "ACTION_DONE", "slots": shown(values, run.service.sensitive),
              "at": run.engine.clock().isoformat(timespec="seconds"),
              "task": before.tasks_started,
              "result": scrubbed(settled[-1]["result"], run.state.secrets())}
    before.done.append({**record, **acted(before, values)})
    before.reset()
    before.journal = {}
    if run.state.message:
        remember(before, run.state.message, say, run.engine.memory)
    return say, record


def tell_untold(session: SessionState, say: str) -> None:
    """Make an outcome whose reply may have been lost the first thing this turn says
    (``say``: the ``untold_outcome`` text for it, rendered by the caller)."""
    session.untold = None
    session.notice = f"{session.notice} {say}" if session.notice else say


def acted(session: SessionState, values: Mapping[str, Any]) -> dict[str, Any]:
    """What a completed task's record keeps for ``ask_about_repeat``: the irreversible
    actions it carried out and a fingerprint of its values (the record itself shows
    sensitive values masked, and two masked values look alike); {} when nothing ran."""
    names = [name for name, entry in session.journal.items() if entry["status"] == "done"]
    return {"acted": names, "values": fingerprint(values)} if names else {}


def fingerprint(values: Mapping[str, Any]) -> str:
    """A short digest of a task's slot values: equal values, equal fingerprints."""
    text = json.dumps(values, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def ask_about_repeat(run: Turn) -> None:
    """Before a confirmation of a task identical to one that ran within ``REPEAT_WINDOW``,
    say so: the user decides again knowing it already happened."""
    state = run.state
    if state.stage.next_action != "CONFIRM" or state.session.meta.get("awaiting"):
        return
    values = fingerprint(state.slot_values())
    now = run.engine.clock()
    for record in reversed(state.session.done):
        if record.get("acted") and record["flow"] == state.flow.name:
            if record.get("values") == values and _recent(record, now):
                parts = run.reply.parts  # just before the question it asks
                parts.insert(max(len(parts) - 1, 0), run.engine.text("repeated_request"))
            return


def _recent(record: dict[str, Any], now: dt.datetime) -> bool:
    try:
        at = dt.datetime.fromisoformat(str(record["at"]))
    except (KeyError, ValueError):
        return False
    if (at.tzinfo is None) != (now.tzinfo is None):
        return False
    return dt.timedelta(0) <= now - at <= REPEAT_WINDOW
