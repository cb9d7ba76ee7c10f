"""Slot values -> FL053 (compared with a value the slot can never hold), FL054 (``set`` of a
literal validation rejects), FL055 (a required slot nothing asks for), FL056 (an enum
synonym claimed by two values).

What a slot can hold is what ``engine/runtime/understanding/slots.py`` lets through: numbers for
integer/number/money, ISO date strings for dates, the canonical value (not a synonym)
for enums, true/false for booleans.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any, assert_never

from engine.compiler.checks.context import Context
from engine.compiler.checks.dataflow import (
    Site,
    action_reads,
    condition_sites,
    program,
    stage_program,
)
from engine.compiler.checks.reads import Reads, reads
from engine.compiler.resolve import suggest
from engine.dsl import spec as s
from engine.nlu import enum_conflicts
from engine.nlu.times import parse_time


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _iso_date(value: Any) -> bool:
    try:
        dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        return False
    return isinstance(value, str)


def rejects(slot: s.SlotSpec, value: Any) -> str | None:
    """Why the slot can never hold ``value`` (None when it can)."""
    match slot.type:
        case "integer":
            ok = _number(value) and float(value).is_integer()
            return None if ok else "it holds whole numbers"
        case "number" | "money":
            return None if _number(value) else "it holds numbers"
        case "string":
            return None if isinstance(value, str) else "it holds text"
        case "date":
            return None if _iso_date(value) else "it holds ISO dates such as '2026-01-31'"
        case "time":
            ok = isinstance(value, str) and parse_time(value) == value
            return None if ok else "it holds times of day such as '19:30'"
        case "boolean":
            return None if isinstance(value, bool) else "it holds true or false"
        case "enum":
            values = list(slot.values or {})
            return None if value in values else f"its values are {', '.join(values)}"
        case "list":
            return None if isinstance(value, list) else "it holds lists"
        case _:
            assert_never(slot.type)


def _bounds(slot: s.SlotSpec, value: Any) -> str | None:
    if _number(value) and slot.minimum is not None and value < slot.minimum:
        return f"it is below the minimum {slot.minimum:g}"
    if _number(value) and slot.maximum is not None and value > slot.maximum:
        return f"it is above the maximum {slot.maximum:g}"
    return None


def _enum_hint(slot: s.SlotSpec, value: Any) -> str | None:
    for canonical, synonyms in (slot.values or {}).items():
        if isinstance(value, str) and value.lower() in {w.lower() for w in [canonical,
                                                                            *synonyms]}:
            return f"the slot holds the value `{canonical}`, not its synonym"
    return suggest(str(value), list(slot.values or {}))


# -- FL053 --------------------------------------------------------------------------------

def _sites(ctx: Context) -> Iterator[Site]:
    for name, text in ctx.spec.messages.items():
        yield Site(("messages", name), reads(text), f"message `{name}`")
    for m in ctx.flows.values():
        yield from condition_sites(m).values()
        for stage in m.flow.stages:
            yield from _expression_sites(stage_program(ctx, m, stage))
    for name, action in ctx.spec.actions.items():
        yield Site(("actions", name), action_reads(action), f"action `{name}`")


def _expression_sites(ops: list[Any]) -> Iterator[Site]:
    for op in ops:
        if op[0] == "read" and not op[1].what.startswith(("message", "prompt")):
            yield op[1]
        elif op[0] == "if":
            yield op[1]
            yield from _expression_sites(op[2])
            yield from _expression_sites(op[3])


def _comparisons(ctx: Context) -> None:
    for site in _sites(ctx):
        for c in site.reads.comparisons:
            slot = ctx.spec.slots.get(c.slot)
            if slot is None or c.value is None or slot.type == "list":
                continue
            why = rejects(slot, c.value)
            if why is not None:
                ctx.add(site.path, "FL053", f"{site.what} compares `slots.{c.slot}` with "
                        f"{c.value!r}, a value it can never hold: {why}",
                        hint=_enum_hint(slot, c.value) if slot.type == "enum" else None)


# -- FL054 --------------------------------------------------------------------------------

def _literal(raw: Any) -> tuple[bool, Any]:
    if not isinstance(raw, str):
        return True, raw
    found: Reads = reads(raw, expression=True)
    return found.is_constant, found.constant


def _sets(ctx: Context) -> None:
    for _, _, path, step in ctx.steps():
        if not isinstance(step, s.SetStep):
            continue
        for name, raw in step.set.items():
            slot = ctx.spec.slots.get(name)
            known, value = _literal(raw)
            if slot is None or not known or value is None or slot.type == "list":
                continue  # `set: {slot: null}` clears the slot
            why = rejects(slot, value) or _bounds(slot, value)
            if why is not None:
                ctx.add((*path, "set", name), "FL054", f"`set` gives `{name}` ({slot.type}) "
                        f"the value {value!r}, which it can never hold: {why}",
                        hint=_enum_hint(slot, value) if slot.type == "enum" else
                        "strings in `set` are expressions: quote text twice, e.g. \"'KRW'\"")


# -- FL055 --------------------------------------------------------------------------------

def _asked(ctx: Context, flow: s.FlowSpec, fname: str) -> tuple[set[str], bool]:
    """(messages the flow says, whether any of them asks for a computed slot)."""
    said: set[str] = set()
    for sname, stage in flow.stages.items():
        said.update(n for n in (stage.say, stage.reprompt) if n)
        ops = program(ctx, flow, stage.steps, ("flows", fname, "stages", sname, "steps"))
        said.update(op[1].what.split("`")[1] for op in _flat(ops)
                    if op[1].what.startswith("message `"))
    asks = [a for name in said for a in reads(ctx.spec.messages.get(name, "")).asks]
    literal = {a for a in asks if a is not None}
    return said | {f"ask:{a}" for a in literal}, None in asks


def _flat(ops: list[Any]) -> Iterator[Any]:
    for op in ops:
        if op[0] == "read":
            yield op
        elif op[0] == "if":
            yield from _flat(op[2])
            yield from _flat(op[3])


def _never_asked(ctx: Context) -> None:
    for fname, flow in ctx.spec.flows.items():
        said, computed = _asked(ctx, flow, fname)
        for i, name in enumerate(flow.slots):
            slot = ctx.spec.slots.get(name)
            if slot is None or not slot.required or computed or f"ask:{name}" in said \
                    or (slot.ask and slot.ask in said):
                continue
            ctx.add(("flows", fname, "slots", i), "FL055", f"required slot `{name}` is never "
                    f"asked for in flow `{fname}`: no message it says calls `ask()` or says "
                    f"the slot's `ask` message", hint="say a message with "
                    "`{{ ask(missing[0]) }}` in the stage that collects slots, and give the "
                    "slot an `ask:` message")


# -- FL056 --------------------------------------------------------------------------------

def _enum_conflicts(ctx: Context) -> None:
    for name, slot in ctx.spec.slots.items():
        for synonym, first, other in enum_conflicts(slot.values or {}):
            ctx.add(("slots", name, "values", other), "FL056", f"synonym `{synonym}` of slot "
                    f"`{name}` maps to both `{first}` and `{other}`", key=True,
                    hint="keep it under one value")


def check(ctx: Context) -> None:
    _comparisons(ctx)
    _sets(ctx)
    _never_asked(ctx)
    _enum_conflicts(ctx)
