"""ServiceSpec -> CompiledService: names resolved, templates and machines built once.

The compiler's back half; ``engine.compiler.compile_file`` runs it after loading and
before the semantic checks.
Names that do not exist, templates that do not parse or read what no turn provides, bad
regular expressions and validators that do not import are located findings here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Any, TypedDict

from engine.compiler import compiled as c
from engine.compiler.knowledge import (
    knowledge_bases,
    respond_step,
    retrieval_names,
    retrieve_step,
)
from engine.compiler.loops import local_action, loop_step
from engine.compiler.machine import Edge, StageMachine
from engine.compiler.patterns import call_step, flow_patterns, service_patterns
from engine.compiler.policy import (
    agent_outputs,
    agent_steps,
    context_schema,
    guard_rules,
)
from engine.compiler.prompt_files import compile_prompts
from engine.compiler.resolve import Resolver, suggest
from engine.compiler.templates import Compiled
from engine.compiler.tools import (
    check_irreversible,
    compile_rules,
    compile_tools,
    resolve_tool,
)
from engine.compiler.validators import import_validator
from engine.compiler.verbs import acts, flow_verbs
from engine.dsl import spec as s
from engine.errors import FlowDefinitionError
from engine.nlu import IntentRule, YesNoWords, default_words
from engine.registry import ACTION_TOOLS, AGENT_TOOLS, BUILTIN_TEXTS
from engine.source import Path, SourceMap

if TYPE_CHECKING:
    from engine.retrieval import KnowledgeIndex



__all__ = ["build_service"]


def build_service(spec: s.ServiceSpec, source: SourceMap, *,
                    base_dir: FilePath | None = None) -> c.CompiledService:
    base = base_dir or FilePath.cwd()
    r = Resolver(source, frozenset(spec.slots), agent_outputs=agent_outputs(spec),
                 agent_steps=agent_steps(spec),
                 retrievals=retrieval_names(spec), base=base)
    knowledge = knowledge_bases(spec, base, r)
    messages = _messages(spec, r)
    prompts = compile_prompts(spec, base, r)
    slots = {name: _slot(name, slot, spec, base, r, knowledge)
             for name, slot in spec.slots.items()}
    tools = compile_tools(spec, r)
    check_irreversible(spec, r)
    actions = {name: _action(name, action, spec, r) for name, action in spec.actions.items()}
    flows = {name: _flow(name, flow, spec, prompts, slots, r) for name, flow in spec.flows.items()}
    _routes(spec, r)
    patterns = service_patterns(spec, _words(spec), r)
    _fixtures(spec, base, r)
    r.exists(spec.understand.model, spec.models, ("understand", "model"), "model", "FL027")
    r.exists(spec.memory.summary_model, spec.models, ("memory", "summary_model"), "model",
             "FL027")
    schema, guard = context_schema(spec, r), guard_rules(spec, r)
    if r.findings:
        raise FlowDefinitionError(r.findings)
    return c.CompiledService(
        spec=spec, source=source, base_dir=base, name=spec.service, locale=spec.locale,
        flows=flows, default_flow=spec.default_flow, routes=dict(spec.routes),
        intents=tuple(IntentRule(n, tuple(i.keywords), tuple(i.examples), i.priority,
                                 acts=acts(spec.routes.get(n), spec),
                                 description=i.description or "", unless=tuple(i.unless))
                      for n, i in spec.intents.items()),
        intent_thresholds={n: i.threshold for n, i in spec.intents.items()},
        slots=slots, messages=messages, actions=actions,
        prompts={k: v for k, v in prompts.items() if v is not None},
        models=dict(spec.models), words=_words(spec), description=spec.description,
        settings={str(k): v for k, v in spec.settings.items()}, memory=spec.memory,
        sensitive=frozenset(n for n, slot in spec.slots.items() if slot.sensitive),
        intent_names=tuple(spec.intents),
        understanding_model=spec.understand.model, understanding_prompt=spec.understand.prompt,
        patterns=patterns, kept=frozenset(n for n, slot in spec.slots.items() if slot.keep),
        context_schema=schema, guard=guard, agent_outputs=r.agent_outputs, tools=tools,
        knowledge=knowledge, retrievals=r.retrievals, response=spec.response,
    )


def _words(spec: s.ServiceSpec) -> YesNoWords:
    base = default_words(spec.locale)
    return YesNoWords(confirm=(*spec.words.confirm, *base.confirm),
                      cancel=(*spec.words.cancel, *base.cancel),
                      deny=(*spec.words.deny, *base.deny), objects=tuple(spec.words.objects))


def _messages(spec: s.ServiceSpec, r: Resolver) -> dict[str, Compiled]:
    out = {}
    for name, text in spec.messages.items():
        path = ("messages", name)
        if name in BUILTIN_TEXTS:  # replaces a built-in text: sees only that text's values
            compiled = r.template(text, path, only=BUILTIN_TEXTS[name])
        else:
            compiled = r.template(text, path, extra=("value",))
        if compiled is not None:
            out[name] = compiled
    return out


def _slot(name: str, slot: s.SlotSpec, spec: s.ServiceSpec, base: FilePath,
          r: Resolver, knowledge: Mapping[str, KnowledgeIndex]) -> c.CompiledSlot:
    path = ("slots", name)
    r.exists(slot.ask, spec.messages, (*path, "ask"), "message", "FL020")
    r.exists(slot.error, spec.messages, (*path, "error"), "message", "FL020")
    patterns = tuple(p for i, text in enumerate(slot.extract.patterns if slot.extract else [])
                     if (p := r.regex(text, (*path, "extract", "patterns", i))) is not None)
    full = r.regex(f"(?:{slot.pattern})\\Z", (*path, "pattern")) if slot.pattern else None
    synonyms = {value: tuple(words) for value, words in (slot.values or {}).items()}
    validator = import_validator(slot.validator, base, (*path, "validator"), r)
    required_when = None
    if isinstance(slot.required, str):
        required_when = r.expression(slot.required, (*path, "required"), only=("slots",),
                                     why="a `required` condition (true, false, or e.g. "
                                         "`slots.method == 'card'`) sees ")
    known = slot.extract.known if slot.extract else None
    r.exists(known, spec.knowledge, (*path, "extract", "known"), "knowledge base", "FL105")
    titles = tuple(knowledge[known].titles()) if known is not None and known in knowledge \
        else ()
    return c.CompiledSlot(name, slot, patterns, full, synonyms, validator, required_when,
                          titles)


def _values(items: Mapping[str, Any], path: Path, r: Resolver) -> tuple[tuple[str, c.Value], ...]:
    """Strings are expressions; other YAML values are literals."""
    out: list[tuple[str, c.Value]] = []
    for key, raw in items.items():
        value = r.expression(raw, (*path, key)) if isinstance(raw, str) else c.Const(raw)
        if value is not None:
            out.append((key, value))
    return tuple(out)


class _ActionCommon(TypedDict):
    """The fields of a CompiledAction that tool and http actions share."""

    name: str
    label: str | None
    irreversible: bool
    timeout_sec: float
    retries: int
    rules: tuple[c.CompiledRule, ...]
    returns: tuple[str, ...]


def _action(name: str, action: s.ToolAction | s.HttpAction | s.WorkspaceAction | s.CommandAction,
            spec: s.ServiceSpec,
            r: Resolver) -> c.CompiledAction:
    path = ("actions", name)
    if isinstance(action, s.WorkspaceAction | s.CommandAction):
        return local_action(name, action, r)
    common: _ActionCommon = dict(name=name, label=action.label, irreversible=action.irreversible,
                                 timeout_sec=action.timeout_sec, retries=action.retries,
                                 rules=compile_rules(action.rules, (*path, "rules"), r),
                                 returns=tuple(action.returns))
    if isinstance(action, s.ToolAction):
        resolve_tool(action.tool, ACTION_TOOLS, spec.tools, (*path, "tool"), r)
        return c.CompiledAction(kind="tool", tool=action.tool,
                                args=_values(action.args, (*path, "args"), r), **common)
    http = action.http
    url = r.template(http.url, (*path, "http", "url"), extra=("env",))
    headers = tuple((k, t) for k, v in http.headers.items()
                    if (t := r.template(v, (*path, "http", "headers", k), extra=("env",))))
    return c.CompiledAction(kind="http", tool=None, method=http.method, url=url, headers=headers,
                            args=_values(http.json_body or {}, (*path, "http", "json"), r),
                            **common)


def _flow(name: str, flow: s.FlowSpec, spec: s.ServiceSpec,
          prompts: Mapping[str, Compiled | None], slots: Mapping[str, c.CompiledSlot],
          r: Resolver) -> c.CompiledFlow:
    path: Path = ("flows", name)
    stages = list(flow.stages)
    if not stages:
        r.error((*path, "stages"), f"flow `{name}` has no stages", "FL011",
                hint="declare at least its initial stage")
        stages = [flow.initial]  # a stand-in, so the rest of the flow can still be checked
    else:
        r.exists(flow.initial, stages, (*path, "initial"), "stage", "FL022")
    for i, slot in enumerate(flow.slots):
        r.exists(slot, spec.slots, (*path, "slots", i), "slot", "FL023")
    verbs, doing = flow_verbs(name, spec)
    compiled_stages = {sname: _stage(sname, stage, spec, prompts, (*path, "stages", sname), r,
                                     verbs=verbs, doing=doing)
                       for sname, stage in flow.stages.items()}
    edges = _edges(flow, (*path, "transitions"), r)
    _check_fired_triggers(flow, {e.trigger for e in edges}, path, r)
    machine = StageMachine(stages, flow.initial if flow.initial in stages else stages[0], edges)
    required = tuple(n for n in flow.slots if n in spec.slots and spec.slots[n].required)
    extraction = c.extraction_order([slots[n] for n in flow.slots if n in slots])
    numbers = [s.spec.type for s in extraction if s.spec.type in ("money", "integer", "number")]
    return c.CompiledFlow(name, flow.description, tuple(flow.slots), required, flow.initial,
                          flow.batch, flow.max_fill_turns, compiled_stages, machine, extraction,
                          tuple(n for n, st in flow.stages.items() if st.terminal),
                          amount_verbs=verbs if numbers == ["money"] else (),
                          **flow_patterns(flow, spec, slots, path, required, r))


def _edges(flow: s.FlowSpec, path: Path, r: Resolver) -> list[Edge]:
    stages = list(flow.stages)
    open_stages = tuple(n for n, st in flow.stages.items() if not st.terminal)
    edges = []
    for i, t in enumerate(flow.transitions):
        tpath = (*path, i)
        raw = [t.source] if isinstance(t.source, str) else t.source
        sources: list[str] = []
        for j, src in enumerate(raw):
            if src == "*":
                sources.extend(open_stages)
            elif r.exists(src, stages, (*tpath, "source") if isinstance(t.source, str)
                          else (*tpath, "source", j), "stage", "FL022"):
                sources.append(src)
        if not r.exists(t.dest, stages, (*tpath, "dest"), "stage", "FL022"):
            continue
        cond = r.expression(t.when, (*tpath, "when")) if t.when else None
        edges.append(Edge(t.trigger, tuple(dict.fromkeys(sources)), t.dest,
                          cond, t.when))
    return edges


def _check_fired_triggers(flow: s.FlowSpec, defined: set[str], path: Path, r: Resolver) -> None:
    """A trigger a step fires must have a transition, or the task would silently stall."""
    for sname, stage in flow.stages.items():
        for tpath, trigger in _step_triggers(stage.steps, (*path, "stages", sname, "steps")):
            if trigger == "confirm":
                r.error(tpath, "a step cannot fire `confirm`; only the user's own yes at a "
                        "`decide: confirm` stage confirms", "FL035",
                        hint="name the step's trigger differently, e.g. `done`")
            elif trigger not in defined:
                r.error(tpath, f"trigger `{trigger}` has no transition in flow `{path[1]}`",
                        "FL024", hint=_trigger_hint(trigger, defined))


def _trigger_hint(trigger: str, defined: set[str]) -> str:
    return suggest(trigger, defined) or f"add a transition with `trigger: {trigger}`"


def _step_triggers(steps: list[s.Step], path: Path) -> Iterable[tuple[Path, str]]:
    for i, step in enumerate(steps):
        if isinstance(step, s.TriggerStep):
            yield (*path, i, "trigger"), step.trigger
        elif isinstance(step, s.CallStep):
            for key in ("ok", "error"):
                if (value := getattr(step, key)) is not None:
                    yield (*path, i, key), value
        elif isinstance(step, s.IfStep):
            yield from _step_triggers(step.then, (*path, i, "then"))
            yield from _step_triggers(step.else_, (*path, i, "else"))
        elif isinstance(step, s.LoopStep):
            for key in ("ok", "exhausted"):
                if (value := getattr(step.loop, key)) is not None:
                    yield (*path, i, "loop", key), value


def _stage(name: str, stage: s.StageSpec, spec: s.ServiceSpec,
           prompts: Mapping[str, Compiled | None], path: Path, r: Resolver, *,
           verbs: tuple[str, ...] = (), doing: tuple[str, ...] = ()) -> c.CompiledStage:
    r.exists(stage.say, spec.messages, (*path, "say"), "message", "FL020")
    r.exists(stage.reprompt, spec.messages, (*path, "reprompt"), "message", "FL020")
    default_action = "DONE" if stage.terminal else ("CONFIRM" if stage.decide else "ASK")
    steps = _steps(stage.steps, spec, prompts, (*path, "steps"), r)
    words = None
    if stage.words is not None:
        own = stage.words
        words = _words(spec).merge(YesNoWords(confirm=tuple(own.confirm),
                                              cancel=tuple(own.cancel), deny=tuple(own.deny),
                                              objects=tuple(own.objects)))
    if verbs and not stage.terminal:
        words = (words or _words(spec)).merge(YesNoWords(act=verbs, doing=doing))
    return c.CompiledStage(name, stage.terminal, stage.say, stage.reprompt,
                           stage.next_action or default_action, tuple(stage.buttons),
                           stage.decide, steps, words, background=stage.background,
                           failed=stage.failed)


def _steps(steps: list[s.Step], spec: s.ServiceSpec, prompts: Mapping[str, Compiled | None],
           path: Path, r: Resolver) -> tuple[c.Step, ...]:
    return tuple(out for i, step in enumerate(steps)
                 if (out := _step(step, spec, prompts, (*path, i), r)) is not None)


def _step(step: s.Step, spec: s.ServiceSpec, prompts: Mapping[str, Compiled | None],
          path: Path, r: Resolver) -> c.Step | None:
    match step:
        case s.SayStep(say=message):
            r.exists(message, spec.messages, (*path, "say"), "message", "FL020")
            return c.SayStep(message)
        case s.SetStep():
            for slot in step.set:
                r.exists(slot, spec.slots, (*path, "set", slot), "slot", "FL023")
            return c.SetStep(_values(step.set, (*path, "set"), r))
        case s.TriggerStep(trigger=trigger):
            return c.TriggerStep(trigger)
        case s.CallStep():
            return call_step(step, spec, path, r)
        case s.LinkStep(link=flow):
            r.exists(flow, spec.flows, (*path, "link"), "flow", "FL028")
            return c.LinkStep(flow)
        case s.EmitStep():
            return c.EmitStep(step.emit, _values(step.data, (*path, "data"), r))
        case s.AgentStep():
            return _agent_step(step, spec, prompts, path, r)
        case s.RetrieveStep():
            return retrieve_step(step, spec, path, r)
        case s.RespondStep():
            return respond_step(step, spec, path, r)
        case s.IfStep():
            cond = r.expression(step.if_, (*path, "if"))
            then = _steps(step.then, spec, prompts, (*path, "then"), r)
            otherwise = _steps(step.else_, spec, prompts, (*path, "else"), r)
            return c.IfStep(cond, then, otherwise) if cond else None
        case s.LoopStep():
            return loop_step(step, path, r,
                             lambda body, where: _steps(body, spec, prompts, where, r))
    raise AssertionError(f"unhandled step {step!r}")


def _agent_step(step: s.AgentStep, spec: s.ServiceSpec, prompts: Mapping[str, Compiled | None],
                path: Path, r: Resolver) -> c.AgentStep:
    if step.prompt not in prompts:  # None: the file exists and its own problems are reported
        r.error((*path, "prompt"), f"prompt `{step.prompt}` not found",
                "FL026", hint=f"create prompts/{step.prompt}.j2 beside or above the flow file")
    r.exists(step.model, spec.models, (*path, "model"), "model", "FL027")
    r.exists(step.fallback, spec.messages, (*path, "fallback"), "message", "FL020")
    for i, tool in enumerate(step.tools):
        resolve_tool(tool, AGENT_TOOLS, spec.tools, (*path, "tools", i), r)
    validator = None
    if step.validator is not None and not step.json_output:
        r.error((*path, "validator"), f"agent step `{step.agent}` has a validator but no "
                "`json_output`: a validator checks a JSON reply", "FL034",
                hint="add `json_output: true`, or check the reply in a later step")
    elif step.validator is not None:
        validator = import_validator(step.validator, r.base or FilePath.cwd(),
                                     (*path, "validator"), r)
    return c.AgentStep(step.agent, step.prompt, step.model, step.label, step.fallback,
                       step.json_output, tuple(step.tools), step.max_rounds, validator,
                       step.last_n_turns)


def _fixtures(spec: s.ServiceSpec, base: FilePath, r: Resolver) -> None:
    """A scripted model plays its replies file: the file must be there before any turn."""
    for name, model in spec.models.items():
        if model.provider != "scripted":
            continue
        if model.fixture is None:
            r.error(("models", name, "provider"), f"scripted model `{name}` has no replies file",
                    "FL036", hint="add `fixture: path/to/replies.yaml` (relative to the flow)")
        elif not (base / model.fixture).is_file():
            r.error(("models", name, "fixture"), f"replies file `{model.fixture}` of model "
                    f"`{name}` not found", "FL036",
                    hint="create it, or fix the path (relative to the flow file)")


def _routes(spec: s.ServiceSpec, r: Resolver) -> None:
    r.exists(spec.default_flow, spec.flows, ("default_flow",), "flow", "FL028")
    for intent, flow in spec.routes.items():
        r.exists(intent, spec.intents, ("routes", intent), "intent", "FL029")
        r.exists(flow, spec.flows, ("routes", intent), "flow", "FL028")


