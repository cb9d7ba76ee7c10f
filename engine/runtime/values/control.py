"""A stage's steps -> one value saying what the turn does next (``Next``).

Steps never move the turn themselves: each returns ``PROCEED`` (the next step runs) or the
value that stops the stage, and ``TurnRun.settle`` matches on it, ending in
``assert_never``, so a new kind of outcome cannot be forgotten there.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Proceed:
    """Every step ran: the stage speaks and the turn rests (or its terminal stage ends the
    task)."""


@dataclass(frozen=True, slots=True)
class Fire:
    """Fire ``trigger`` once the stage has spoken (a ``trigger`` step, an action's or a
    loop's outcome)."""

    trigger: str


@dataclass(frozen=True, slots=True)
class CallFlow:
    """Start ``flow`` on top; the caller waits under it and fires ``ok`` when it ends."""

    flow: str
    ok: str | None


@dataclass(frozen=True, slots=True)
class Link:
    """Hand the conversation to ``flow``: the current task ends where it stands."""

    flow: str


@dataclass(frozen=True, slots=True)
class Halt:
    """An irreversible action got no answer that settles it: the task waits where it is
    (the next turn asks its target again, with the same key)."""


@dataclass(frozen=True, slots=True)
class AttemptFailed:
    """An action failed inside a loop's attempt: the rest of the body is skipped and the
    loop decides what next (only a loop sees this value)."""

    error: str


Next = Proceed | Fire | CallFlow | Link | Halt | AttemptFailed
PROCEED = Proceed()
HALT = Halt()


def firing(trigger: str | None) -> Fire | Proceed:
    """``trigger`` fired once the stage has spoken; no trigger: the next step runs."""
    return PROCEED if trigger is None else Fire(trigger)


__all__ = ["HALT", "PROCEED", "AttemptFailed", "CallFlow", "Fire", "Halt", "Link", "Next",
           "Proceed", "firing"]
