"""Conversation test files (``*.test.yaml`` beside a flow) -> results with readable mismatches.

Each conversation runs on a fresh in-memory store with a fixed clock, turn by turn, and
every expectation a turn states is compared with what the turn produced. The file format
is documented in docs/testing.md.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.compiler.machine import StageMachine
from engine.compiler.resolve import suggest
from engine.config import load_settings
from engine.dsl.load import load_file
from engine.dsl.spec import AgentStep, EmitStep, IfStep, ServiceSpec
from engine.errors import Finding, FlowDefinitionError, SourceLocation
from engine.runtime.engine import Engine
from engine.runtime.events import Done, Event, wire
from engine.source import Path, SourceMap
from engine.store import MemoryStore

TEST_SUFFIX = ".test.yaml"


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TurnSpec(_Spec):
    user: str = Field(description="What the user says.")
    stage: str | None = None
    flow: str | None = None
    next_action: str | None = None
    slots: dict[str, Any] | None = Field(None, description="Expected values of these slots.")
    say: str | list[str] | None = Field(None, description="Substring(s) of the reply.")
    not_say: str | list[str] | None = Field(None, description="Substring(s) it must not have.")
    buttons: list[str] | None = None
    missing: list[str] | None = None
    errors: dict[str, str] | None = Field(
        None, description="Slot -> substring of its error; {} for none.")
    events: list[str | dict[str, Any]] | None = Field(
        None, description="Event names (or {NAME: payload subset}) in order.")
    hooks: list[str] | None = Field(None, description="Hook types sent in DONE.")
    queue: int | None = Field(None, description="Tasks waiting in the batch queue.")
    completed: int | None = Field(None, description="Completed tasks in the session so far.")


class ConversationSpec(_Spec):
    name: str
    turns: list[TurnSpec]


class TestFileSpec(_Spec):
    flow: str | None = Field(None, description="Flow file beside this one; default: same name.")
    today: dt.date = Field(dt.date(2026, 1, 5), description="Relative dates resolve against it.")
    env: dict[str, str] = Field(default_factory=dict, description="Settings, as env variables.")
    conversations: list[ConversationSpec]


@dataclass(frozen=True, slots=True)
class Mismatch:
    turn: int
    user: str
    field: str
    expected: Any
    actual: Any
    location: SourceLocation


@dataclass(slots=True)
class ConversationResult:
    file: str
    name: str
    location: SourceLocation
    mismatches: list[Mismatch] = field(default_factory=list)
    stages: set[str] = field(default_factory=set)
    flow_file: str = ""
    """The flow file the conversation ran against (coverage groups results by it)."""
    visited: set[tuple[str, str]] = field(default_factory=set)
    """(flow, stage) pairs the conversation entered or left."""
    transitions: set[tuple[str, int]] = field(default_factory=set)
    """(flow, index in the flow's ``transitions``) of every transition that fired."""
    slot_branches: set[tuple[str, str, str]] = field(default_factory=set)
    """(flow, slot, "filled" | "rejected" | "corrected") the conversation exercised."""

    @property
    def passed(self) -> bool:
        return not self.mismatches


def find_test_files(paths: Sequence[str | FilePath]) -> list[FilePath]:
    """``*.test.yaml`` files in the given files/dirs; a flow file stands for its tests."""
    found: list[FilePath] = []
    for raw in paths:
        path = FilePath(raw)
        if path.is_dir():
            found.extend(sorted(path.rglob(f"*{TEST_SUFFIX}")))
        elif path.name.endswith(TEST_SUFFIX):
            found.append(path)
        else:
            sibling = path.with_name(path.name.removesuffix(".yaml").removesuffix(".yml")
                                     + TEST_SUFFIX)
            if sibling.exists():
                found.append(sibling)
    return found


def load_tests(path: FilePath) -> tuple[TestFileSpec, SourceMap, FilePath]:
    data, source = load_file(path)
    try:
        spec = TestFileSpec.model_validate(data)
    except ValidationError as err:
        raise FlowDefinitionError(_finding(source, e) for e in err.errors()) from None
    flow = path.parent / (spec.flow or path.name.removesuffix(TEST_SUFFIX) + ".yaml")
    return spec, source, flow


def _finding(source: SourceMap, error: Any) -> Any:
    loc = tuple(error["loc"])
    if error["type"] == "extra_forbidden":
        return source.finding(loc, f"unknown key `{loc[-1]}`", code="FL090", key=True,
                              hint="see docs/testing.md for the keys a turn takes")
    raw = source.yaml11_bools.get(loc)
    hint = f"YAML reads an unquoted `{raw}` as a boolean; write '{raw}' in quotes" if raw else None
    return source.finding(loc, f"{'.'.join(map(str, loc))}: {error['msg']}", code="FL090",
                          hint=hint)


def check_names(spec: TestFileSpec, source: SourceMap, service: CompiledService) -> None:
    """Stages, slots and flows a test names must exist, or the test could never pass."""
    findings = name_findings(spec, source, service.spec)
    if findings:
        raise FlowDefinitionError(findings)


EVENT_NAMES = ("AGENT_START", "LLM_TOKEN", "LLM_DONE", "AGENT_DONE", "TASK_PROGRESS", "DONE")


def name_findings(spec: TestFileSpec, source: SourceMap, service: ServiceSpec) -> list[Finding]:
    """FL091 for every stage, flow, slot, intent, agent, hook or event name a test file uses
    that the service does not define (works on the spec, so lint can run it on a flow that
    does not compile)."""
    names = _Names(service)
    findings: list[Finding] = []
    for c, conv in enumerate(spec.conversations):
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
            elif isinstance(step, IfStep):
                self._collect(step.then)
                self._collect(step.else_)

    def turn(self, turn: TurnSpec, flow: str | None) -> list[tuple[Path, str, str | None]]:
        service = self.service
        out: list[tuple[Path, str, str | None]] = []
        if turn.stage is not None:
            stages = set(service.flows[flow].stages) if flow else self.stages
            if turn.stage not in stages:
                where = f" in flow `{flow}`" if flow and turn.stage in self.stages else ""
                out.append((("stage",), f"unknown stage `{turn.stage}`{where}",
                            suggest(turn.stage, stages)))
        if turn.flow is not None and turn.flow not in service.flows:
            out.append((("flow",), f"unknown flow `{turn.flow}`", suggest(turn.flow,
                                                                          service.flows)))
        slots: list[tuple[Path, str]] = [(("slots", n), n) for n in turn.slots or {}]
        slots += [(("missing", i), n) for i, n in enumerate(turn.missing or [])]
        slots += [(("errors", n), n) for n in turn.errors or {} if not n.startswith("_")]
        out += [(where, f"unknown slot `{n}`", suggest(n, service.slots))
                for where, n in slots if n not in service.slots]
        out += [(("hooks", i), f"unknown hook `{h}`", suggest(h, self.hooks))
                for i, h in enumerate(turn.hooks or []) if h not in self.hooks]
        for i, event in enumerate(turn.events or []):
            out += [(("events", i, *where), message, hint)
                    for where, message, hint in self._event(event)]
        return out

    def _event(self, event: str | dict[str, Any]) -> list[tuple[Path, str, str | None]]:
        name, payload = (event, None) if isinstance(event, str) else next(iter(event.items()))
        if name not in EVENT_NAMES:
            return [((), f"unknown event `{name}`", suggest(name, EVENT_NAMES))]
        if not isinstance(payload, dict):
            return []
        out: list[tuple[Path, str, str | None]] = []
        agent = payload.get("agent")
        if agent is not None and agent not in self.agents:
            out.append(((name, "agent"), f"unknown agent `{agent}`", suggest(str(agent),
                                                                           self.agents)))
        result = payload.get("result")
        if agent == "intent" and isinstance(result, str) and result not in self.service.intents:
            out.append(((name, "result"), f"unknown intent `{result}`",
                        suggest(result, self.service.intents)))
        stage = payload.get("stage")
        if isinstance(stage, str) and stage not in self.stages:
            out.append(((name, "stage"), f"unknown stage `{stage}`", suggest(stage, self.stages)))
        return out


async def run_file(path: FilePath) -> list[ConversationResult]:
    spec, source, flow_path = load_tests(path)
    service = compile_file(flow_path)
    check_names(spec, source, service)
    settings = load_settings(spec.env)
    clock_time = dt.datetime.combine(spec.today, dt.time(9, 0)).astimezone()
    fired: list[tuple[str, int, str, str]] = []
    observed = _observed(service, fired)
    results = []
    for c, conversation in enumerate(spec.conversations):
        store = MemoryStore()
        engine = Engine(observed, store=store, settings=settings, clock=lambda: clock_time)
        result = ConversationResult(str(path), conversation.name,
                                    source.locate(("conversations", c)), flow_file=str(flow_path))
        before: Mapping[str, Any] = {}
        for t, turn in enumerate(conversation.turns):
            fired.clear()
            events = [e async for e in engine.turn(f"test-{c}", turn.user)]
            done = events[-1]
            assert isinstance(done, Done)
            result.stages.add(str(done.state_snapshot.get("stage")))
            location = source.locate(("conversations", c, "turns", t))
            records = await store.completed(f"test-{c}")
            completed = len(records)
            result.mismatches.extend(Mismatch(t + 1, turn.user, name, want, got, location)
                                     for name, want, got in compare(turn, events, done, completed))
            finished = records[before.get("completed", 0):]
            _note_coverage(result, fired, before, done.state_snapshot, finished)
            before = {**done.state_snapshot, "completed": completed}
        results.append(result)
    return results


class _ObservedMachine(StageMachine):
    """A flow's stage machine that notes which transition fired (test runs only).

    The runtime is untouched: the test runner hands it a copy of the compiled service whose
    machines are wrapped. The transition that fired is the first one, in file order, whose
    trigger and source match and whose condition holds — the rule the machine itself uses.
    """

    def __init__(self, flow: str, machine: StageMachine,
                 log: list[tuple[str, int, str, str]]) -> None:
        # no super().__init__(): it wraps `machine`, whose attributes __getattr__ hands out
        self._flow, self._inner, self._log = flow, machine, log

    def fire(self, stage: str, trigger: str, ctx: Mapping[str, Any]) -> str | None:
        new = self._inner.fire(stage, trigger, ctx)
        if new is not None:
            self._log.append((self._flow, self._which(stage, trigger, ctx, new), stage, new))
        return new

    def _which(self, stage: str, trigger: str, ctx: Mapping[str, Any], new: str) -> int:
        for i, edge in enumerate(self._inner.edges):
            if edge.trigger == trigger and stage in edge.sources and edge.dest == new and (
                    edge.condition is None or edge.condition(ctx)):
                return i
        return -1

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _observed(service: CompiledService, log: list[tuple[str, int, str, str]]) -> CompiledService:
    flows = {name: dataclasses.replace(flow, machine=_ObservedMachine(name, flow.machine, log))
             for name, flow in service.flows.items()}
    return dataclasses.replace(service, flows=flows)


def _note_coverage(result: ConversationResult, fired: Sequence[tuple[str, int, str, str]],
                   before: Mapping[str, Any], after: Mapping[str, Any],
                   finished: Sequence[Mapping[str, Any]]) -> None:
    """Record what one turn exercised; ``finished`` are the tasks it completed (their slots
    count too: a task that ends in the turn that filled it leaves no slots behind)."""
    flow = str(after.get("flow"))
    for name, index, source, dest in fired:
        result.transitions.add((name, index))
        result.visited.update({(name, source), (name, dest)})
    result.visited.add((flow, str(after.get("stage"))))
    errors = after.get("meta", {}).get("slot_errors") or {}
    result.slot_branches.update((flow, slot, "rejected") for slot in errors
                                if not slot.startswith("_"))
    old = before.get("slots", {}) if before.get("flow") == flow else {}
    for values in [*(task.get("slots") or {} for task in finished), after.get("slots") or {}]:
        for slot, value in values.items():
            if value is None or slot in errors:
                continue
            if old.get(slot) is None:
                result.slot_branches.add((flow, slot, "filled"))
            elif old[slot] != value:
                result.slot_branches.add((flow, slot, "corrected"))
        old = {}  # each finished task, then the one now open, started empty


def compare(turn: TurnSpec, events: Sequence[Event], done: Done,
            completed: int) -> Iterator[tuple[str, Any, Any]]:
    """(field, expected, actual) for every expectation the turn states and the turn missed."""
    snap = done.state_snapshot
    plain = {"stage": snap.get("stage"), "flow": snap.get("flow"),
             "next_action": done.next_action, "buttons": done.ui_hint.get("buttons", []),
             "missing": snap.get("missing_required"), "queue": len(snap.get("task_queue", [])),
             "hooks": [h["type"] for h in done.hooks]}
    for name, actual in plain.items():
        expected = getattr(turn, name)
        if expected is not None and expected != actual:
            yield name, expected, actual
    if turn.completed is not None and turn.completed != completed:
        yield "completed", turn.completed, completed
    for slot, expected in (turn.slots or {}).items():
        actual = snap.get("slots", {}).get(slot)
        if expected != actual:
            yield f"slots.{slot}", expected, actual
    yield from _compare_text(turn, done.message)
    yield from _compare_errors(turn, snap.get("meta", {}).get("slot_errors", {}))
    if turn.events is not None and not _subsequence(turn.events, events):
        yield "events", turn.events, [wire(e)[0] for e in events]


def _compare_text(turn: TurnSpec, message: str) -> Iterator[tuple[str, Any, Any]]:
    for part in _listify(turn.say):
        if part not in message:
            yield "say", part, message
    for part in _listify(turn.not_say):
        if part in message:
            yield "not_say", part, message


def _compare_errors(turn: TurnSpec, errors: Mapping[str, str]) -> Iterator[tuple[str, Any, Any]]:
    if turn.errors is None:
        return
    if not turn.errors and errors:
        yield "errors", {}, dict(errors)
    for slot, part in turn.errors.items():
        if part not in errors.get(slot, ""):
            yield f"errors.{slot}", part, errors.get(slot)


def _listify(value: str | list[str] | None) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else value


def _subsequence(expected: Sequence[str | Mapping[str, Any]], events: Sequence[Event]) -> bool:
    """Each expected event appears, in order; a mapping also checks a payload subset."""
    wired = iter([wire(e) for e in events])
    for want in expected:
        name, subset = (want, None) if isinstance(want, str) else next(iter(want.items()))
        if not any(n == name and _contains(payload, subset) for n, payload in wired):
            return False
    return True


def _contains(payload: Any, subset: Any) -> bool:
    if subset is None:
        return True
    if isinstance(subset, Mapping) and isinstance(payload, Mapping):
        return all(k in payload and _contains(payload[k], v) for k, v in subset.items())
    return bool(payload == subset)
