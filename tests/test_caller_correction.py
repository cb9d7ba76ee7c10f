"""A value of the flow that called the current one can be changed while the called one runs.

flows/pizza.yaml's order calls the payment flow once the order is confirmed. A message that
changes the order ("small instead" while the payment asks card or cash) leaves the payment
(nothing was charged), applies the change to the order and takes it back to its
confirmation, which is asked again with the new value: what was confirmed with the old
value is never paid. Anything else — the payment's own answer, a question, the value the
order already has — stays with the payment. New members of the class; the shipped
conversation test is flows/pizza.test.yaml's "a change to the order while its payment...".
"""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT

PAYING = ["I want a large pizza", "yes", "place it"]


async def paying() -> Engine:
    engine = Engine(compile_file(ROOT / "flows" / "pizza.yaml"), store=MemoryStore())
    for message in PAYING:
        await engine.reply("s", message)
    return engine


@pytest.mark.parametrize("message, slots", [
    ("small instead", {"size": "small", "cheese": True}),
    ("hmm, go with medium", {"size": "medium", "cheese": True}),
    ("no extra cheese after all", {"size": "large", "cheese": False}),
])
async def test_a_change_to_the_caller_goes_back_to_its_confirmation(
        message: str, slots: dict[str, object]) -> None:
    engine = await paying()
    done = await engine.reply("s", message)
    snap = done.state_snapshot
    assert (snap["flow"], snap["stage"], snap["stack"]) == ("order", "READY", [])
    assert snap["slots"] == slots and done.next_action == "CONFIRM"
    assert done.trace["stack"][0] == {"op": "pop", "flow": "payment",
                                      "reason": "caller corrected"}
    again = await engine.reply("s", "place it")  # confirmed anew, then paid as before
    assert (again.state_snapshot["flow"], again.state_snapshot["stage"]) == ("payment",
                                                                             "FILLING")


@pytest.mark.parametrize("message", ["cash", "is medium cheaper?", "large", "hello"])
async def test_anything_else_stays_with_the_called_flow(message: str) -> None:
    engine = await paying()
    done = await engine.reply("s", message)
    assert done.state_snapshot["flow"] in ("payment", "chat")
    assert [f["flow"] for f in done.state_snapshot["stack"]][:1] == ["order"]
    assert done.state_snapshot["stack"][0]["slots"] == {"size": "large", "cheese": True}
