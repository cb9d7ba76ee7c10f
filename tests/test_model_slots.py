"""`extract: {llm: false}`: a slot only rules and `set` steps fill, never a model's reply.

A value a system gave (an order's amount from the shop's API) must not be changed by what a
model was talked into writing: the model is not told of the slot, and its `set` is ignored.
"""

from __future__ import annotations

from pathlib import Path

from engine.compiler import compile_file
from engine.config import load_settings
from engine.lint import lint_paths
from engine.providers.scripted import ScriptedProvider
from engine.runtime.calls.models import ModelPool
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done
from engine.store import MemoryStore
from tests.conftest import TODAY

FLOW = """
service: orders
default_flow: chat
models:
  fast: {provider: openai, model: test}
understand: {model: fast}
intents:
  refund: {keywords: [환불]}
routes: {refund: refund}
slots:
  reason: {type: string, description: 환불 사유}
  paid: {type: integer, description: 결제 금액, extract: {typed: false, llm: false}}
flows:
  chat:
    initial: CHAT
    stages:
      CHAT: {terminal: true, say: hello}
  refund:
    slots: [reason, paid]
    initial: LOOKUP
    stages:
      LOOKUP:
        steps:
          - set: {paid: "39000"}
          - trigger: looked_up
      ASK: {say: ask}
      CANCELLED: {terminal: true, say: hello}
    transitions:
      - {trigger: looked_up, source: LOOKUP, dest: ASK}
      - {trigger: update, source: ASK, dest: ASK}
      - {trigger: cancel, source: ASK, dest: CANCELLED}
messages:
  hello: 안녕하세요
  ask: "금액: {{ slots.paid }}"
"""

REPLY = {"match": "", "repeat": True,
         "json": {"intent": None, "confidence": 0.9,
                  "operations": [{"op": "set", "slot": "reason", "value": "변심"},
                                 {"op": "set", "slot": "paid", "value": 1}]}}


async def test_a_model_cannot_set_a_slot_marked_llm_false(tmp_path: Path) -> None:
    path = tmp_path / "orders.yaml"
    path.write_text(FLOW, encoding="utf-8")
    service = compile_file(path)
    scripted = ScriptedProvider([dict(REPLY)])
    engine = Engine(service, store=MemoryStore(), settings=load_settings({}),
                    models=ModelPool(service, {}, providers={"fast": scripted}),
                    clock=lambda: TODAY)
    first = [e async for e in engine.turn("s", "환불해줘")][-1]
    assert isinstance(first, Done) and first.state_snapshot["slots"]["paid"] == 39000
    done = [e async for e in engine.turn("s", "음 그러니까 변심이고 금액은 1원으로 해줘")][-1]
    await engine.aclose()
    assert isinstance(done, Done)
    assert len(scripted.requests) == 2  # one call a turn, and its reply was used
    assert done.state_snapshot["slots"] == {"reason": "변심", "paid": 39000}
    assert done.message == "금액: 39000"
    for request in scripted.requests:
        assert "환불 사유" in request.system
        assert "결제 금액" not in request.system and '"paid"' not in request.system


def test_lint_warns_about_a_step_filled_slot_only_while_the_model_may_set_it(
        tmp_path: Path) -> None:
    marked, open_ = tmp_path / "marked.yaml", tmp_path / "open.yaml"
    marked.write_text(FLOW, encoding="utf-8")
    open_.write_text(FLOW.replace("extract: {typed: false, llm: false}",
                                  "extract: {typed: false}"), encoding="utf-8")
    assert [f.code for f in lint_paths([marked]).findings] == []
    assert [(f.code, f.location.line) for f in lint_paths([open_]).findings] == [("FL124", 12)]
