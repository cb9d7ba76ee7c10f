"""Turn state + a live model -> LLM requests and their parsed results.

Two kinds of call: the ONE understanding call of a turn the rules could not settle
(intent, slot operations and tasks together, JSON, schema-checked; a reply that stays
unparsable takes the parse_error path), and agent replies, streamed. Messages are laid
out as: instructions + context block + summary as the system prompt, the recent raw
history, and the user's message last, exactly once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.compiler.compiled import CompiledFlow, CompiledService
from engine.compiler.filters import GLOBALS
from engine.compiler.rendering import Compiled
from engine.providers.base import ChatMessage, ChatRequest
from engine.runtime.understanding.echo import fence
from engine.runtime.understanding.understand import SlotOp

UNDERSTANDING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "intent": {"type": ["string", "null"]},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "operations": {"type": "array", "items": {
            "type": "object",
            "properties": {"op": {"enum": ["set", "clear", "cancel_flow", "confirm"]},
                           "slot": {"type": "string"}},
            "required": ["op"]}},
        "tasks": {"type": "array", "items": {"type": "object"}},
        "alternatives": {"type": "array", "items": {
            "type": "object",
            "properties": {"intent": {"type": "string"},
                           "confidence": {"type": "number", "minimum": 0, "maximum": 1}},
            "required": ["intent", "confidence"]}},
    },
    "required": ["operations"],
}
HISTORY_MESSAGES = 8
TURN_STARTS = "\ue000"
"""Where the understanding prompt's per-turn part begins (``{{ turn_starts }}``, removed
from what is sent): everything before it is the same on every turn, and cacheable."""
_VALUE = {"type": ["string", "number", "boolean", "null"]}


def understanding_schema(service: CompiledService, flows: Iterable[CompiledFlow]
                         ) -> dict[str, Any]:
    """The JSON Schema of one understanding reply, from the flow: the service's intents (or
    null), the slots a model may fill, the operations. In strict mode's shape — every object
    closed, every field required, null where there is nothing — so a provider that
    constrains decoding to it (OpenAI ``json_schema``, an Anthropic tool, llama.cpp's
    grammar) can only produce a reply the runtime can use. The runtime still checks it."""
    intents: list[str | None] = [*sorted(service.intent_names), None]
    slots = model_slots(service, flows)
    slot = {"type": ["string", "null"], "enum": [*slots, None]} if slots else {"type": "null"}
    return _closed({
        "intent": {"type": ["string", "null"], "enum": intents},
        "confidence": {"type": "number"},
        "alternatives": {"type": "array", "items": _closed({
            "intent": {"type": "string", "enum": intents[:-1] or [""]},
            "confidence": {"type": "number"}})},
        "operations": {"type": "array", "items": _closed({
            "op": {"type": "string", "enum": ["set", "clear", "cancel_flow"]},
            "slot": slot, "value": _VALUE})},
        "tasks": {"type": "array", "items": _closed({name: _VALUE for name in slots})},
    })


def with_message(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with the reply's ``message`` as its last field (the turn's one call)."""
    return _closed({**schema["properties"], "message": {"type": "string"}})


def _closed(properties: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": dict(properties), "required": list(properties),
            "additionalProperties": False}


@dataclass
class LlmUnderstanding:
    intent: str | None = None
    confidence: float = 0.0
    ops: list[SlotOp] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)
    cancel: bool = False
    parse_error: bool = False
    ignored: list[str] = field(default_factory=list)
    """Operations the runtime refused (e.g. `confirm`: only code confirms)."""
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    """Other intents the message may mean, with their confidence (a client's
    alternative_intents)."""


@lru_cache(maxsize=1)
def _builtin_prompt() -> Compiled:
    from engine.compiler.templates import compile_template  # jinja2: its loops need it

    path = Path(__file__).resolve().parents[2] / "data" / "understand.j2"
    return compile_template(path.read_text(encoding="utf-8"))


def history_messages(raw_history: Sequence[Mapping[str, str]]) -> tuple[ChatMessage, ...]:
    recent = raw_history[-HISTORY_MESSAGES:]
    return tuple(ChatMessage(role="assistant" if h.get("role") == "assistant" else "user",
                             content=str(h.get("content", ""))) for h in recent)


def understanding_request(service: CompiledService, flows: Sequence[CompiledFlow], *,
                          current: CompiledFlow | None, stage: str | None,
                          slots: Mapping[str, Any], message: str, today: str,
                          raw_history: Sequence[Mapping[str, str]],
                          prompt: Compiled | None = None) -> ChatRequest:
    intents = {name: service.spec.intents[name] for name in service.intent_names}
    by_flow = {flow: intent for intent, flow in service.routes.items()}
    template = prompt or _builtin_prompt()
    ctx = {**GLOBALS, "service": service.name, "description": service.description,
           "today": today, "intents": intents if current is None or len(flows) > 1 else {},
           "current": current.name if current else None, "stage": stage,
           "current_intent": by_flow.get(current.name) if current else None,
           "flows": [_flow_view(service, f, by_flow.get(f.name), slots if f is current else {})
                     for f in flows]}
    system = template.render({**ctx, "turn_starts": TURN_STARTS})
    head, found, tail = system.partition(TURN_STARTS)
    messages = (*history_messages(raw_history), ChatMessage(role="user", content=message))
    return ChatRequest(system=head + tail if found else system, messages=messages,
                       json_output=True, schema=understanding_schema(service, flows),
                       schema_name="understanding", cache_prefix=len(head) if found else 0)


def model_slots(service: CompiledService, flows: Iterable[CompiledFlow]) -> list[str]:
    """The slots of ``flows`` a model may fill (not those marked ``extract: {llm: false}``)."""
    names = dict.fromkeys(n for f in flows for n in f.slots)
    return [n for n in names if _model_fills(service, n)]


def _model_fills(service: CompiledService, name: str) -> bool:
    extract = service.slots[name].spec.extract
    return extract is None or extract.llm


def _flow_view(service: CompiledService, flow: CompiledFlow, intent: str | None,
               values: Mapping[str, Any]) -> dict[str, Any]:
    slots = []
    for name in filter(lambda n: _model_fills(service, n), flow.slots):
        spec = service.slots[name].spec
        value = values.get(name)
        slots.append({"name": name, "type": spec.type, "description": spec.description,
                      "choices": list(spec.values or {}), "value": value,
                      "value_json": json.dumps(value, ensure_ascii=False, default=str)})
    return {"name": flow.name, "intent": intent, "slots": slots}


def parse_understanding(obj: Mapping[str, Any], slot_names: Sequence[str]) -> LlmUnderstanding:
    known = set(slot_names)
    result = LlmUnderstanding(intent=obj.get("intent") or None,
                              confidence=float(obj.get("confidence", 0.9) or 0.0))
    for op in obj.get("operations", []):
        kind, slot = op.get("op"), op.get("slot")
        if kind == "cancel_flow":
            result.cancel = True
        elif kind in ("set", "clear") and slot in known:
            result.ops.append(SlotOp(kind, slot, op.get("value")))
        else:
            result.ignored.append(json.dumps(op, ensure_ascii=False))
    tasks = [{k: v for k, v in t.items() if k in known} for t in obj.get("tasks", [])]
    result.tasks = [t for t in tasks if t]
    result.alternatives = [(str(a["intent"]), float(a["confidence"]))
                           for a in obj.get("alternatives", []) if a.get("intent")]
    return result


def agent_request(system: str, *, context_block: str, summary: str,
                  raw_history: Sequence[Mapping[str, str]], message: str,
                  json_output: bool, tools: tuple[Any, ...] = (),
                  schema: Mapping[str, Any] | None = None) -> ChatRequest:
    """Instructions, the turn's context and the summary in the system prompt; then the raw
    history; the message last."""
    parts = [system.strip(), context_block.strip()]
    if summary:
        parts.append(f"Summary of earlier conversation:\n{summary}")
    messages = (*history_messages(raw_history), ChatMessage(role="user", content=message))
    return ChatRequest(system="\n\n".join(p for p in parts if p), messages=messages,
                       tools=tools, json_output=json_output,
                       schema=schema if json_output else None)


def context_block(ctx: Mapping[str, Any]) -> str:
    """The turn's state for an agent, as compact JSON (data, never template source), fenced
    as internal state so a model that echoes it is caught (``echo.EchoGuard``)."""
    state = {"flow": ctx.get("flow"), "stage": ctx.get("stage"), "slots": ctx.get("slots"),
             "missing": ctx.get("missing"), "slot_errors": ctx.get("errors"),
             "completed": [{"flow": t.get("flow"), "outcome": t.get("outcome"),
                            "slots": t.get("slots")} for t in (ctx.get("completed") or [])[-10:]]}
    return fence(json.dumps(state, ensure_ascii=False, default=str))
