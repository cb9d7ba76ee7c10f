"""StageMachine.fire reads the transitions machine's own table: for every flow, stage,
trigger and context it gives exactly what the library's Event.trigger gives."""

from __future__ import annotations

import itertools
from typing import Any

from engine.compiler.compiled import CompiledService
from engine.compiler.machine import Edge, StageMachine


def contexts() -> list[dict[str, Any]]:
    out = []
    # `result` as a called flow or an action hands it back (conditions read it after a call)
    results = [{"outcome": "ENOUGH", "balance": 100}, {"outcome": "SHORT", "balance": 1}]
    for missing, filling, intent, result in itertools.product(
            [[], ["amount"]], [0, 3, 9], [None, "transfer"], results):
        out.append({"missing": missing, "filling_turns": filling, "max_fill_turns": 5,
                    "slots": {"amount": 10}, "turn": {"intent": intent}, "meta": {},
                    "errors": {}, "batch": {"total": 1, "remaining": 0, "counts": {}},
                    "stage": None, "result": result})
    return out


def test_the_table_fires_as_the_library_does(transfer: CompiledService) -> None:
    checked = 0
    for flow in transfer.flows.values():
        machine = flow.machine
        for stage, trigger, ctx in itertools.product(machine.stages,
                                                     sorted(machine.triggers) + ["nope"],
                                                     contexts()):
            assert machine.fire(stage, trigger, ctx) == machine.fire_slowly(stage, trigger, ctx)
            checked += 1
    assert checked > 500


def test_first_transition_whose_condition_holds_wins() -> None:
    machine = StageMachine(["A", "B", "C"], "A", [
        Edge("go", ("A",), "B", condition=lambda ctx: ctx["x"] > 1),
        Edge("go", ("A",), "C"),
        Edge("go", ("B",), "A", condition=lambda ctx: False),
    ])
    for x in (0, 5):
        ctx = {"x": x}
        assert machine.fire("A", "go", ctx) == machine.fire_slowly("A", "go", ctx)
    assert machine.fire("A", "go", {"x": 5}) == "B"
    assert machine.fire("A", "go", {"x": 0}) == "C"
    assert machine.fire("B", "go", {"x": 0}) is None
    assert machine.fire("C", "go", {"x": 0}) is None
    assert machine.fire("A", "unknown", {"x": 0}) is None
