"""Stages + transitions -> one ``transitions.Machine`` per flow, shared by every session.

The only module that imports ``transitions``. Sessions carry just their stage string:
``fire(stage, trigger, ctx)`` puts it in a tiny holder, fires the trigger and returns the
new stage (or None when no transition applied). Conditions are compiled callables from
a fixed table, never strings, so YAML can never make the library import a function.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from transitions import Machine

if TYPE_CHECKING:
    from transitions.core import CallbacksArg  # a name of the library's stubs only

Condition = Callable[[Mapping[str, Any]], Any]
logging.getLogger("transitions").setLevel(logging.WARNING)


@dataclass(frozen=True, slots=True)
class Edge:
    """One compiled transition."""

    trigger: str
    sources: tuple[str, ...]
    dest: str
    condition: Condition | None = None
    when: str | None = None


class _Holder:
    __slots__ = ("state",)

    def __init__(self, state: str) -> None:
        self.state = state


class StageMachine:
    """A flow's stage graph; safe to share because a plain Machine never yields."""

    def __init__(self, stages: Sequence[str], initial: str, edges: Sequence[Edge]) -> None:
        self.stages = tuple(stages)
        self.initial = initial
        self.edges = tuple(edges)
        self._machine = Machine(model=None, states=list(stages), initial=initial,
                                auto_transitions=False, send_event=True,
                                ignore_invalid_triggers=True)
        for edge in edges:
            conditions: CallbacksArg = [_adapt(edge.condition)] if edge.condition else None
            self._machine.add_transition(edge.trigger, list(edge.sources), edge.dest,
                                         conditions=conditions)
        self.triggers = frozenset(edge.trigger for edge in edges)
        self._table = _table(self._machine)

    def __reduce__(self) -> tuple[type[StageMachine], tuple[tuple[str, ...], str,
                                                           tuple[Edge, ...]]]:
        """Pickled as its stages and edges: loading builds the machine again."""
        return StageMachine, (self.stages, self.initial, self.edges)

    def fire(self, stage: str, trigger: str,
             ctx: Mapping[str, Any] | Callable[[], Mapping[str, Any]]) -> str | None:
        """The stage after firing ``trigger`` from ``stage``, or None if nothing fired.

        Reads the machine's own transition table (built once, from ``Machine.events``): the
        first transition of ``trigger`` at ``stage`` whose conditions all hold fires, as
        ``Event.trigger`` does, without its per-call event objects and logging (~15 µs).
        ``ctx`` may be a function giving it: called only if a condition is to be read."""
        candidates = self._table.get((trigger, stage))
        if candidates is None:
            return None
        event = None
        for conditions, dest in candidates:
            if not conditions:
                return dest
            if event is None:
                event = _EventData({"ctx": ctx() if callable(ctx) else ctx})
            if all(bool(func(event)) == target for func, target in conditions):
                return dest
        return None

    def can(self, stage: str, trigger: str) -> bool:
        """Some transition of ``trigger`` leaves ``stage`` (whatever its condition)."""
        return (trigger, stage) in self._table

    def fire_slowly(self, stage: str, trigger: str, ctx: Mapping[str, Any]) -> str | None:
        """``fire`` through the library's ``Event.trigger`` (the reference the tests hold
        ``fire`` to)."""
        event = self._machine.events.get(trigger)
        if event is None:
            return None
        holder = _Holder(stage)
        return holder.state if event.trigger(holder, ctx=ctx) else None


class _EventData:
    """What a condition reads of ``transitions``' EventData (``send_event=True``)."""

    __slots__ = ("kwargs",)

    def __init__(self, kwargs: dict[str, Any]) -> None:
        self.kwargs = kwargs


Candidates = tuple[tuple[tuple[tuple[Callable[[Any], Any], bool], ...], str], ...]


def _table(machine: Machine) -> dict[tuple[str, str], Candidates]:
    """(trigger, source) -> the machine's transitions in its own order: their conditions
    (callable, expected truth) and destination."""
    table: dict[tuple[str, str], Candidates] = {}
    for name, event in machine.events.items():
        for source, transitions in event.transitions.items():
            table[(name, source)] = tuple(
                (tuple((_callable(c.func), c.target) for c in t.conditions), t.dest)
                for t in transitions if t.dest is not None)
    return table


def _callable(func: object) -> Callable[[Any], Any]:
    if not callable(func):  # conditions are compiled callables, never names to import
        raise TypeError(f"transition condition {func!r} is not a callable")
    return func


def _adapt(condition: Condition) -> Callable[[Any], bool]:
    return lambda event: bool(condition(event.kwargs["ctx"]))
