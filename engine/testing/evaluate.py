"""``*.eval.yaml`` files -> how well a flow understands labelled messages (``flowctl eval``).

An eval file holds messages as real users type them, each with the scene it is said in
(earlier turns, ``after``) and the reading a careful person expects: the intent it starts,
the slot values it gives, the decision it is, or that simple rules cannot be sure of it
(``settled: false``). Each case runs through the engine in a fresh session; the turn's
``_trace.reading`` says what was read and whether the rules or the turn's model call
settled it. Offline, a probe model that understands nothing stands in for the flow's
model, so a message the rules leave unsettled shows as ``by: model`` without any model
answering; ``live=True`` runs the flow's own configured model instead.

A **wrong settlement** is a turn the rules settled with a reading other than the expected
one; it is **harmful** when it confirmed what was not a yes or set a slot to a value the
message did not give.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path as FilePath
from typing import Any

from pydantic import ValidationError

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.dsl.load import load_file
from engine.dsl.spec import ModelSpec
from engine.errors import Finding, FlowDefinitionError
from engine.providers.scripted import ScriptedProvider
from engine.runtime.calls.actions import ActionStub
from engine.runtime.calls.models import ModelPool
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done, Reading
from engine.source import SourceMap
from engine.store import MemoryStore
from engine.testing.eval_spec import EvalCase, EvalFileSpec, Expect, Scene
from engine.testing.readings import compare, same, same_decision
from engine.testing.spec import EVAL_SUFFIX, find_files

PROBE = "__eval_probe__"
"""The model name the offline probe stands in as."""
_EMPTY_READING: dict[str, Any] = {"intent": None, "confidence": 0.0, "operations": []}


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One case: what was expected, what was read, and how the two compare."""

    case: EvalCase
    where: str
    """file:line:col of the case."""
    reading: Reading
    problems: tuple[str, ...]
    """How the reading differs from the expected one (empty: read right)."""
    misread: bool
    """Something was read wrong (not merely left unread)."""
    harmful: bool

    @property
    def right(self) -> bool:
        return not self.problems

    @property
    def by_rules(self) -> bool:
        return self.reading["by"] == "rules"

    @property
    def wrong_settlement(self) -> bool:
        return self.by_rules and self.misread


@dataclass(slots=True)
class EvalReport:
    """The scores of one eval file."""

    path: str
    flow: str
    live: bool
    results: list[CaseResult] = field(default_factory=list)

    def _share(self, hits: int, total: int) -> float | None:
        return hits / total if total else None

    @property
    def accuracy(self) -> float | None:
        return self._share(sum(r.right for r in self.results), len(self.results))

    @property
    def wrong(self) -> list[CaseResult]:
        return [r for r in self.results if r.wrong_settlement]

    @property
    def harmful(self) -> list[CaseResult]:
        return [r for r in self.results if r.harmful]

    @property
    def by_rules(self) -> float | None:
        return self._share(sum(r.by_rules for r in self.results), len(self.results))

    @property
    def intent_accuracy(self) -> float | None:
        scored = [r for r in self.results if "intent" in r.case.expect.model_fields_set]
        return self._share(sum(r.reading["intent"] == r.case.expect.intent for r in scored),
                           len(scored))

    def slot_scores(self) -> tuple[float | None, float | None]:
        """(precision, recall) of the (slot, value) pairs, over cases that expect slots."""
        said = found = right = 0
        for r in self.results:
            expected = r.case.expect.slots
            if expected is None:
                continue
            got = r.reading["slots"]
            said += len(expected)
            found += len(got)
            right += sum(1 for k, v in got.items() if k in expected and same(expected[k], v))
        return self._share(right, found), self._share(right, said)

    @property
    def decision_precision(self) -> float | None:
        """Of the decisions taken where one was expected or ruled out, the right share."""
        taken = [r for r in self.results if r.reading["decision"] is not None and
                 r.case.expect.decision is not None]
        return self._share(sum(same_decision(str(r.case.expect.decision),
                                              str(r.reading["decision"])) for r in taken),
                           len(taken))

    def confusion(self) -> dict[tuple[str, str], int]:
        """(expected intent, read intent) -> count, over cases that expect an intent."""
        counts: dict[tuple[str, str], int] = {}
        for r in self.results:
            if "intent" in r.case.expect.model_fields_set:
                key = (str(r.case.expect.intent), str(r.reading["intent"]))
                counts[key] = counts.get(key, 0) + 1
        return counts


def find_eval_files(paths: Sequence[str | FilePath]) -> list[FilePath]:
    """``*.eval.yaml`` files in the given files/dirs; a flow file stands for its eval set."""
    return find_files(paths, EVAL_SUFFIX)


def load_eval(path: FilePath) -> tuple[EvalFileSpec, SourceMap, FilePath]:
    """The eval file's model, its source map and the flow file it evaluates."""
    data, source = load_file(path)
    try:
        spec = EvalFileSpec.model_validate(data)
    except ValidationError as err:
        raise FlowDefinitionError(_finding(source, e) for e in err.errors()) from None
    flow = path.parent / (spec.flow or path.name.removesuffix(EVAL_SUFFIX) + ".yaml")
    if not flow.is_file():
        raise FlowDefinitionError([source.finding(
            ("flow",) if spec.flow else ("cases",), f"flow file {flow} not found",
            code="FL092", hint="name the flow file beside this one with `flow:`")])
    return spec, source, flow


def check_names(spec: EvalFileSpec, source: SourceMap, service: CompiledService) -> None:
    """Every intent, slot, scene and stub a file names exists in the flow (else FL092,
    located)."""
    problems = []
    for i, case in enumerate(spec.cases):
        intent = case.expect.intent
        if intent is not None and intent not in service.intent_names:
            problems.append(source.finding(("cases", i, "expect", "intent"), f"unknown intent "
                                           f"`{intent}`", code="FL092",
                                           hint=f"intents: {', '.join(service.intent_names)}"))
        problems.extend(source.finding(("cases", i, "expect", "slots", name), f"unknown slot "
                                       f"`{name}`", code="FL092", key=True,
                                       hint=f"slots: {', '.join(service.slots)}")
                        for name in case.expect.slots or {} if name not in service.slots)
        if case.at is not None and case.at.flow not in service.flows:
            problems.append(source.finding(("cases", i, "at", "flow"), f"unknown flow "
                                           f"`{case.at.flow}`", code="FL092",
                                           hint=f"flows: {', '.join(service.flows)}"))
        elif case.at is not None and case.at.stage is not None and \
                case.at.stage not in service.flows[case.at.flow].stages:
            stages = service.flows[case.at.flow].stages
            problems.append(source.finding(("cases", i, "at", "stage"), f"unknown stage "
                                           f"`{case.at.stage}` of flow `{case.at.flow}`",
                                           code="FL092", hint=f"stages: {', '.join(stages)}"))
    callable_names = {*service.actions, *(service.spec.tools or {})}
    problems.extend(source.finding(("stubs", name), f"unknown action or tool `{name}`",
                                   code="FL092", key=True,
                                   hint=f"actions and tools: {', '.join(sorted(callable_names))}")
                    for name in spec.stubs if name not in callable_names)
    if problems:
        raise FlowDefinitionError(problems)


def _finding(source: SourceMap, error: Any) -> Finding:
    loc = tuple(error["loc"])
    if error["type"] == "extra_forbidden":
        return source.finding(loc, f"unknown key `{loc[-1]}`", code="FL092", key=True,
                              hint=source.cut_at_comma(loc)
                              or "see docs/understanding.md for the keys a case takes")
    return source.finding(loc, f"{'.'.join(map(str, loc))}: {error['msg']}", code="FL092")


def probed(service: CompiledService) -> tuple[CompiledService, ModelPool]:
    """The service with a probe standing in for its understanding model: a model call is
    made wherever the rules leave a message unsettled, and the probe understands nothing."""
    probe_spec = ModelSpec(provider="scripted", model="probe")
    service = replace(service, understanding_model=PROBE,
                      models={**service.models, PROBE: probe_spec})
    probe = ScriptedProvider([{"repeat": True, "json": _EMPTY_READING}], name="probe")
    return service, ModelPool(service, {}, providers={PROBE: probe})


async def run_eval(path: FilePath, *, live: bool = False, env: Mapping[str, str] | None = None,
                   select: Callable[[EvalCase], bool] | None = None,
                   compiled: CompiledService | None = None) -> EvalReport:
    """Run every case of the eval file ``path`` (or those ``select`` accepts). Offline the
    settings are the file's ``env`` alone; ``live`` adds ``env`` (the process's: model keys).
    ``compiled``: the flow as already compiled (a build of it), instead of compiling it."""
    spec, source, flow_path = load_eval(path)
    service = compiled or compile_file(flow_path)
    check_names(spec, source, service)
    settings = load_settings({**(env or {}), **spec.env} if live else spec.env)
    models = None
    if not live:
        service, models = probed(service)
    clock_time = dt.datetime.combine(spec.today, dt.time(9, 0)).astimezone()
    stubs = {name: ActionStub(stub.result, stub.error) for name, stub in spec.stubs.items()}
    engine = Engine(service, store=MemoryStore(), settings=settings, models=models,
                    clock=lambda: clock_time, stubs=stubs)
    report = EvalReport(str(path), str(flow_path), live)
    try:
        for i, case in enumerate(spec.cases):
            if select is None or select(case):
                context = case.context if case.context is not None else spec.context
                report.results.append(await _case(engine, f"eval-{i}", case, context,
                                                  str(source.locate(("cases", i))), live=live))
    finally:
        await engine.aclose()
    return report


async def _case(engine: Engine, session: str, case: EvalCase,
                context: Mapping[str, Any] | None, where: str, *, live: bool) -> CaseResult:
    before: Done | None = None
    for earlier in case.after:
        before = await engine.reply(session, earlier, context=context)
    missed = _scene_missed(case.at, before)
    done: Done = await engine.reply(session, case.message, context=context)
    reading = done.trace.get("reading") or Reading(intent=None, slots={}, decision=None,
                                                   by="rules")
    problems, misread, harmful = compare(case.expect, reading, live=live)
    return CaseResult(case, where, reading, (*missed, *problems), misread, harmful)


def _scene_missed(scene: Scene | None, before: Done | None) -> tuple[str, ...]:
    """The case's problem when the ``after`` turns did not leave the conversation at
    ``scene`` (the message then answers another question than the one meant)."""
    if scene is None:
        return ()
    flow, stage = (before.state_snapshot["flow"], before.state_snapshot["stage"]) \
        if before is not None else (None, None)
    if flow == scene.flow and scene.stage in (None, stage):
        return ()
    meant = scene.flow + (f" at {scene.stage}" if scene.stage else "")
    return (f"scene: the earlier turns were to leave {meant}; they left "
            f"{flow or 'no flow'}{f' at {stage}' if stage else ''}",)


def tags(results: Sequence[CaseResult]) -> list[tuple[str, int, int]]:
    """(tag, cases, read right) per tag, most cases first."""
    key: Callable[[CaseResult], str] = lambda r: r.case.tag or "-"  # noqa: E731
    grouped = itertools.groupby(sorted(results, key=key), key=key)
    rows = [(tag, len(group := list(items)), sum(r.right for r in group))
            for tag, items in grouped]
    return sorted(rows, key=lambda row: (-row[1], row[0]))


def summary(report: EvalReport) -> Mapping[str, Any]:
    """The report's figures as plain data (the JSON format, and the text one's source)."""
    precision, recall = report.slot_scores()
    return {"file": report.path, "flow": report.flow, "mode": "live" if report.live else
            "offline", "total": len(report.results), "accuracy": report.accuracy,
            "intent_accuracy": report.intent_accuracy, "slot_precision": precision,
            "slot_recall": recall, "decision_precision": report.decision_precision,
            "wrong_settlements": len(report.wrong), "harmful": len(report.harmful),
            "settled_by_rules": report.by_rules}


__all__ = ["EVAL_SUFFIX", "CaseResult", "EvalCase", "EvalFileSpec", "EvalReport", "Expect",
           "compare", "find_eval_files", "load_eval", "run_eval", "summary", "tags"]
