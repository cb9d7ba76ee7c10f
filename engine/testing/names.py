"""A test file and the flow it tests -> FL091 for every name the test uses that the flow lacks.

A test that names a stage, flow, slot, hook, agent, intent or event the service does not
define could never pass; these checks work on the ``ServiceSpec`` (not the compiled
service), so lint can run them on a flow that does not compile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.compiler.compiled import CompiledService
from engine.compiler.resolve import suggest
from engine.dsl.spec import AgentStep, EmitStep, IfStep, LoopStep, RetrieveStep, ServiceSpec
from engine.errors import Finding, FlowDefinitionError
from engine.registry import EVENT_NAMES, FAILURE_TAGS
from engine.source import Path, SourceMap
from engine.testing.spec import TestFileSpec, TurnSpec

Problem = tuple[Path, str, str | None]
"""(path inside the turn, message, hint) of one unknown name."""


def check_names(spec: TestFileSpec, source: SourceMap, service: CompiledService) -> None:
    """Stages, slots and flows a test names must exist, or the test could never pass."""
    findings = name_findings(spec, source, service.spec)
    if findings:
        raise FlowDefinitionError(findings)


def name_findings(spec: TestFileSpec, source: SourceMap, service: ServiceSpec) -> list[Finding]:
    """FL091 for every stage, flow, slot, intent, agent, hook or event name a test file uses
    that the service does not define (works on the spec, so lint can run it on a flow that
    does not compile)."""
    names = _Names(service)
    findings: list[Finding] = []
    for c, conv in enumerate(spec.conversations):
        for key, known, what in (("slots", service.slots, "slot"),
                                 ("stubs", {**service.actions, **service.tools},
                                  "action or tool")):
            findings += [source.finding(("conversations", c, key, name), f"{what} `{name}` "
                                        "is not declared in the flow", code="FL091", key=True,
                                        hint=f"use one of: {', '.join(known) or 'none'}")
                         for name in getattr(conv, key) if name not in known]
        for t, turn in enumerate(conv.turns):
            found = names.turn(turn, turn.flow if turn.flow in service.flows else None)
            findings += [source.finding(("conversations", c, "turns", t, *where), message,
                                        code="FL091", hint=hint)
                         for where, message, hint in found]
    return findings


class _Names:
    """The names a service defines, and what a turn of a test names that is not among them."""

    def __init__(self, service: ServiceSpec) -> None:
        self.service = service
        self.stages = {s for f in service.flows.values() for s in f.stages}
        self.hooks: set[str] = set()
        self.agents = {"intent", "understand", *service.actions}
        for flow in service.flows.values():
            for stage in flow.stages.values():
                self._collect(stage.steps)

    def _collect(self, steps: Sequence[Any]) -> None:
        for step in steps:
            if isinstance(step, EmitStep):
                self.hooks.add(step.emit)
            elif isinstance(step, AgentStep):
                self.agents.add(step.agent)
            elif isinstance(step, RetrieveStep):  # its events carry its `as` name
                self.agents.add(step.as_ or step.retrieve)
            elif isinstance(step, IfStep):
                self._collect(step.then)
                self._collect(step.else_)
            elif isinstance(step, LoopStep):
                self._collect(step.loop.steps)

    def turn(self, turn: TurnSpec, flow: str | None) -> list[Problem]:
        """Every unknown name of ``turn``; ``flow`` is the flow it names, if that exists."""
        flows = self.service.flows
        stacked = [(("slots_of", f), f"unknown flow `{f}`", suggest(f, flows))
                   for f in turn.slots_of or {} if f not in flows]
        return [*self._stage(turn.stage, flow), *self._flow(turn.flow), *self._slots(turn),
                *stacked,
                *self._hooks(turn.hooks or []), *self._events(turn.events or []),
                *((("failure_tags", i), f"unknown failure tag `{t}`", suggest(t, FAILURE_TAGS))
                  for i, t in enumerate(turn.failure_tags or []) if t not in FAILURE_TAGS)]

    def _stage(self, stage: str | None, flow: str | None) -> list[Problem]:
        if stage is None:
            return []
        stages = set(self.service.flows[flow].stages) if flow else self.stages
        if stage in stages:
            return []
        where = f" in flow `{flow}`" if flow and stage in self.stages else ""
        return [(("stage",), f"unknown stage `{stage}`{where}", suggest(stage, stages))]

    def _flow(self, flow: str | None) -> list[Problem]:
        flows = self.service.flows
        if flow is None or flow in flows:
            return []
        return [(("flow",), f"unknown flow `{flow}`", suggest(flow, flows))]

    def _slots(self, turn: TurnSpec) -> list[Problem]:
        slots: list[tuple[Path, str]] = [(("slots", n), n) for n in turn.slots or {}]
        slots += [(("slots_of", f, n), n) for f, values in (turn.slots_of or {}).items()
                  for n in values]
        slots += [(("unmasked", n), n) for n in turn.unmasked or {}]
        slots += [(("missing", i), n) for i, n in enumerate(turn.missing or [])]
        slots += [(("errors", n), n) for n in turn.errors or {} if not n.startswith("_")]
        known = self.service.slots
        return [(where, f"unknown slot `{n}`", suggest(n, known))
                for where, n in slots if n not in known]

    def _hooks(self, hooks: Sequence[str]) -> list[Problem]:
        return [(("hooks", i), f"unknown hook `{h}`", suggest(h, self.hooks))
                for i, h in enumerate(hooks) if h not in self.hooks]

    def _events(self, events: Sequence[str | dict[str, Any]]) -> list[Problem]:
        return [(("events", i, *where), message, hint)
                for i, event in enumerate(events) for where, message, hint in self._event(event)]

    def _event(self, event: str | dict[str, Any]) -> list[Problem]:
        name, payload = (event, None) if isinstance(event, str) else next(iter(event.items()))
        if name not in EVENT_NAMES:
            return [((), f"unknown event `{name}`", suggest(name, EVENT_NAMES))]
        if not isinstance(payload, dict):
            return []
        return [((name, *where), message, hint) for where, message, hint in self._payload(payload)]

    def _payload(self, payload: dict[str, Any]) -> Iterable[Problem]:
        """Unknown agent, intent (an ``intent`` agent's result) or stage in an event payload."""
        agent, result, stage = payload.get("agent"), payload.get("result"), payload.get("stage")
        if agent is not None and agent not in self.agents:
            yield ("agent",), f"unknown agent `{agent}`", suggest(str(agent), self.agents)
        if agent == "intent" and isinstance(result, str) and result not in self.service.intents:
            yield ("result",), f"unknown intent `{result}`", suggest(result, self.service.intents)
        if isinstance(stage, str) and stage not in self.stages:
            yield ("stage",), f"unknown stage `{stage}`", suggest(stage, self.stages)
