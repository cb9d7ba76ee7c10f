"""A compiled ``loop`` step -> its attempts' events, ``loop`` in the view, and the trigger
its outcome picks.

Each attempt announces itself with TASK_PROGRESS ``{index: attempt, total: max_attempts}``
and runs the body; its steps' own events (AGENT_START/AGENT_DONE, LLM_DONE) follow. An
attempt fails when an action in it failed (the rest of the body is skipped and
``loop.error`` says which and why) or when ``until`` does not hold; the loop's
``feedback`` is then rendered and read by the next attempt as ``loop.feedback``. When the
attempts run out, ``loop.outcome`` is ``exhausted`` and ``loop.summary`` holds the last
feedback. The attempts are steps of one stage, so the turn's stage-move limit does not
count them.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, assert_never

from engine.compiler.compiled import LoopStep, Step, shown
from engine.errors import FlowRuntimeError
from engine.registry import MAX_LOOP_ATTEMPTS
from engine.runtime.values.control import (
    AttemptFailed,
    CallFlow,
    Fire,
    Halt,
    Link,
    Next,
    Proceed,
    firing,
)
from engine.runtime.values.events import TaskProgress

if TYPE_CHECKING:
    from engine.runtime.turn.run import Turn

RunSteps = Callable[["Turn", tuple[Step, ...]], Coroutine[Any, Any, Next]]


async def run_loop(run: Turn, step: LoopStep, run_steps: RunSteps) -> Next:
    """The loop's attempts; its ``ok`` or ``exhausted`` trigger (or a halt: an irreversible
    action in the body waits for its answer, and the task stops there)."""
    state = run.state
    limit = attempts_of(step.max_attempts.render(state.view()))
    feedback, outcome, attempt = "", "exhausted", 0
    for attempt in range(1, limit + 1):
        state.set_loop(attempt=attempt, max_attempts=limit, feedback=feedback, error=None,
                       outcome=None, attempts=attempt)
        run.emit(TaskProgress(attempt, limit, shown(state.slot_values(), run.service.sensitive)))
        match await run_steps(run, step.steps):
            case AttemptFailed(error):
                state.set_loop(error=error)
            case Proceed():
                pass
            case Halt() | Fire() | CallFlow() | Link() as stop:  # a body cannot fire (FL117)
                return stop
            case other:
                assert_never(other)
        if passed(run, step):
            outcome = "success"
            break
        feedback = _feedback(run, step, attempt)
    state.set_loop(outcome=outcome, attempts=attempt,
                   summary=feedback if outcome == "exhausted" else "")
    return firing(step.ok if outcome == "success" else step.exhausted)


def passed(run: Turn, step: LoopStep) -> bool:
    """The attempt ran every step and ``until`` (if any) holds."""
    if run.state.loop["error"] is not None:
        return False
    return step.until is None or bool(step.until.render(run.state.view()))


def attempts_of(raw: Any) -> int:
    """``max_attempts`` as evaluated: a whole number from 1, capped at MAX_LOOP_ATTEMPTS."""
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise FlowRuntimeError(f"a loop's max_attempts is {raw!r}, not a whole number")
    try:
        number = int(raw)
    except ValueError:
        raise FlowRuntimeError(f"a loop's max_attempts is {raw!r}, not a whole number") from None
    if number < 1:
        raise FlowRuntimeError(f"a loop's max_attempts is {number}; it must be at least 1")
    return min(number, MAX_LOOP_ATTEMPTS)


def _feedback(run: Turn, step: LoopStep, attempt: int) -> str:
    error = run.state.loop["error"]
    if error is not None:  # the body stopped half-way: what the template reads may be unset
        return f"Attempt {attempt} failed: {error}"
    if step.feedback is None:
        return f"Attempt {attempt} failed."
    return str(step.feedback.render(run.state.view()))


def in_loop(run: Turn) -> bool:
    """A loop's attempt is running (its body's failed actions end the attempt)."""
    loop = run.state.loop
    return loop["attempt"] > 0 and loop["outcome"] is None


__all__ = ["attempts_of", "in_loop", "run_loop"]
