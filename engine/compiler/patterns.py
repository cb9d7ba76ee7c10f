"""The flow stack and conversation patterns of a ServiceSpec, compiled (part of build.py).

Service-wide patterns (digressions, "which one?", resume words, confidence bands, what is
said after a flow ends), each flow's guard, resume question, corrections, question
overrides and slot lifetimes, and `call:` naming an action or a flow.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from engine.compiler import compiled as c
from engine.compiler.policy import confidence_bands
from engine.compiler.resolve import Resolver
from engine.compiler.templates import Compiled
from engine.dsl import spec as s
from engine.nlu import YesNoWords
from engine.nlu.words import resume_words
from engine.source import Path


def service_patterns(spec: s.ServiceSpec, words: YesNoWords, r: Resolver) -> c.Patterns:
    """The service's conversation patterns: digressions, clarification, resume words,
    confidence bands, what is said after a flow ends."""
    p, path = spec.patterns, ("patterns",)
    chitchat = (p.chitchat or spec.default_flow) if p.digressions else None
    r.exists(p.chitchat, spec.flows, (*path, "chitchat"), "flow", "FL028")
    r.exists(p.clarify.handoff, spec.flows, (*path, "clarify", "handoff"), "flow", "FL028")
    r.exists(p.clarify.ask, spec.messages, (*path, "clarify", "ask"), "message", "FL020")
    r.exists(p.completed, spec.messages, (*path, "completed"), "message", "FL020")
    labels = {}
    for intent in spec.intents:
        examples = spec.intents[intent].examples
        labels[intent] = p.labels.get(intent) or (examples[0] if examples else intent)
    for intent in p.labels:
        r.exists(intent, spec.intents, (*path, "labels", intent), "intent", "FL029")
    prefer = {}
    for intent, condition in p.clarify.prefer.items():
        where = (*path, "clarify", "prefer", intent)
        r.exists(intent, spec.intents, where, "intent", "FL029")
        compiled = r.expression(condition, where)
        if compiled is not None:
            prefer[intent] = compiled
    resume = YesNoWords(confirm=(*spec.words.resume, *resume_words(spec.locale),
                                 *words.confirm), cancel=words.cancel, deny=words.deny)
    bands = confidence_bands(spec, r)
    return c.Patterns(chitchat=chitchat, clarify_ask=p.clarify.ask,
                      clarify_margin=p.clarify.margin, clarify_limit=p.clarify.limit,
                      clarify_alternatives=p.clarify.alternatives, clarify_prefer=prefer,
                      by_priority=p.ranking == "priority",
                      handoff=p.clarify.handoff, completed=p.completed, labels=labels,
                      resume=resume, bands=bands,
                      confirm_ask=p.confidence.confirm_ask if p.confidence else None,
                      low_confidence=p.confidence.clarify_ask if p.confidence else None,
                      clarify_unmatched=bool(p.confidence and
                                             p.confidence.unmatched == "clarify"))


class FlowPatterns(TypedDict):
    """The flow-stack fields of a CompiledFlow."""

    guard: Compiled | None
    refused: str | None
    interruptible: bool
    resume_ask: str | None
    resume_buttons: tuple[str, ...]
    resume_after_digression: str
    confirm_corrections: str | None
    correction_denied: str | None
    ask: dict[str, str]
    required_when: dict[str, Compiled]
    fresh: tuple[str, ...]
    initial_values: dict[str, Any]


def flow_patterns(flow: s.FlowSpec, spec: s.ServiceSpec, slots: Mapping[str, c.CompiledSlot],
                   path: Path, required: tuple[str, ...], r: Resolver) -> FlowPatterns:
    """The flow's guard, resume question, corrections and question overrides, resolved."""
    guard = r.expression(flow.if_, (*path, "if")) if flow.if_ else None
    r.exists(flow.refused, spec.messages, (*path, "refused"), "message", "FL020")
    if flow.resume is not None:
        r.exists(flow.resume.ask, spec.messages, (*path, "resume", "ask"), "message", "FL020")
    r.exists(flow.confirm_corrections, spec.messages, (*path, "confirm_corrections"),
             "message", "FL020")
    r.exists(flow.correction_denied, spec.messages, (*path, "correction_denied"),
             "message", "FL020")
    for slot, message in flow.ask.items():
        r.exists(slot, flow.slots, (*path, "ask", slot), "slot of this flow", "FL023")
        r.exists(message, spec.messages, (*path, "ask", slot), "message", "FL020")
    conditions = {n: cond for n in required if (cond := slots[n].required_when) is not None}
    return FlowPatterns(guard=guard, refused=flow.refused, interruptible=flow.interruptible,
                         resume_ask=flow.resume.ask if flow.resume else None,
                         resume_buttons=tuple(flow.resume.buttons) if flow.resume else (),
                         resume_after_digression=(flow.resume.after_digression if flow.resume
                                                  else "reask"),
                         confirm_corrections=flow.confirm_corrections,
                         correction_denied=flow.correction_denied, ask=dict(flow.ask),
                         required_when=conditions,
                         fresh=tuple(n for n in flow.slots if n in spec.slots
                                     and (not spec.slots[n].keep or spec.slots[n].always_ask)),
                         initial_values={n: spec.slots[n].initial for n in flow.slots
                                         if n in spec.slots and spec.slots[n].initial is not None})


def call_step(step: s.CallStep, spec: s.ServiceSpec, path: Path,
               r: Resolver) -> c.CallActionStep | c.CallFlowStep:
    """`call:` runs an action of that name, or calls the flow of that name; a name that is
    both is refused (which one runs would be a guess)."""
    if step.call in spec.actions and step.call in spec.flows:
        r.error((*path, "call"), f"`{step.call}` is both an action and a flow, so `call: "
                f"{step.call}` could mean either", "FL038",
                hint="rename the action or the flow so that each name means one thing")
        return c.CallActionStep(step.call, step.ok, step.error)
    if step.call not in spec.actions and step.call in spec.flows:
        if step.error is not None:
            r.error((*path, "error"), "a called flow has no `error` trigger", "FL025",
                    hint="use `ok` and branch on `result.outcome` in the transitions' `when`")
        if step.ok is None:
            r.error((*path, "call"), f"calling flow `{step.call}` needs an `ok` trigger",
                    "FL025", hint="add `ok: TRIGGER`, fired in this flow when the called one ends")
        return c.CallFlowStep(step.call, step.ok)
    r.exists(step.call, [*spec.actions, *spec.flows], (*path, "call"), "action or flow", "FL025")
    return c.CallActionStep(step.call, step.ok, step.error)


__all__ = ["FlowPatterns", "call_step", "flow_patterns", "service_patterns"]
