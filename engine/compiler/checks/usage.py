"""Names declared but never used, and names that collide -> FL060–FL068, FL070, FL088.

Unused-name warnings need the whole file: they stay silent after lint repaired part of it.
An intent without a route is *handled* when a template or condition compares
``turn.intent`` with it (the default flow answers it); only otherwise is it reported.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.compiler.checks.context import Context
from engine.compiler.checks.knowledge import respond_messages
from engine.compiler.checks.reads import reads
from engine.compiler.checks.stack import handovers
from engine.compiler.resolve import suggest
from engine.dsl import spec as s
from engine.nlu import IntentRule, classify, normalise
from engine.registry import is_provider, provider_names
from engine.texts import TEXTS

BUILTIN_AGENTS = ("intent", "understand")


def check(ctx: Context) -> None:
    _providers(ctx)
    _intent_collisions(ctx)
    _agent_ids(ctx)
    if ctx.complete:
        _unused(ctx)
        _unrouted_intents(ctx)
        _unreachable_flows(ctx)


def _providers(ctx: Context) -> None:
    for name, model in ctx.spec.models.items():
        if not is_provider(model.provider):
            known = provider_names()
            ctx.add(("models", name, "provider"), "FL068", f"unknown provider "
                    f"`{model.provider}` in model `{name}`",
                    hint=suggest(model.provider, known) or f"known: {', '.join(known)}")
    summary = ctx.spec.memory.summary_model
    if summary is not None and summary not in ctx.spec.models:
        ctx.add(("memory", "summary_model"), "FL027", f"unknown model `{summary}`",
                hint=suggest(summary, ctx.spec.models) or "declare it under `models`")


def _texts(ctx: Context) -> Iterator[str]:
    """Every template and expression text of the service."""
    yield from ctx.spec.messages.values()
    for flow in ctx.spec.flows.values():
        yield from (t.when for t in flow.transitions if t.when)
    for _, _, _, step in ctx.steps():
        if isinstance(step, s.IfStep):
            yield step.if_


def _referenced_messages(ctx: Context) -> set[str]:
    used = set(TEXTS["en"])  # a message named like a built-in text overrides it
    for slot in ctx.spec.slots.values():
        used.update(n for n in (slot.ask, slot.error) if n)
    for flow in ctx.spec.flows.values():
        for stage in flow.stages.values():
            used.update(n for n in (stage.say, stage.reprompt) if n)
        used.update(n for n in (flow.refused, flow.confirm_corrections, flow.correction_denied,
                                flow.resume.ask if flow.resume else None) if n)
        used.update(flow.ask.values())
    patterns = ctx.spec.patterns
    used.update(n for n in (patterns.completed, patterns.clarify.ask) if n)
    used.update(rule.say for rule in ctx.spec.guard.rules)
    if patterns.confidence is not None:
        used.update((patterns.confidence.confirm_ask, patterns.confidence.clarify_ask))
    for _, _, _, step in ctx.steps():
        if isinstance(step, s.SayStep):
            used.add(step.say)
        elif isinstance(step, s.AgentStep):
            used.add(step.fallback)
        elif isinstance(step, s.RespondStep):
            used.update(respond_messages(step.respond))
    return used


def _unused(ctx: Context) -> None:
    spec = ctx.spec
    collected = {n for flow in spec.flows.values() for n in flow.slots}
    for name in spec.slots:
        if name not in collected:
            ctx.add(("slots", name), "FL060", f"slot `{name}` is not collected by any flow",
                    key=True, hint="add it to a flow's `slots`, or remove it")
    used = _referenced_messages(ctx)
    for name in spec.messages:
        if name not in used:
            ctx.add(("messages", name), "FL061", f"message `{name}` is never said", key=True,
                    hint="say it from a stage or step, or remove it")
    called = {step.call for _, _, _, step in ctx.steps() if isinstance(step, s.CallStep)}
    for name in spec.actions:
        if name not in called:
            ctx.add(("actions", name), "FL065", f"action `{name}` is never called", key=True,
                    hint="run it with a `call` step, or remove it")
    _unused_tools(ctx)
    models = {step.model for _, _, _, step in ctx.steps() if isinstance(step, s.AgentStep)}
    models.add(spec.memory.summary_model)
    models.add(getattr(getattr(spec, "understand", None), "model", None))
    for name in spec.models:
        if name not in models:
            ctx.add(("models", name), "FL066", f"model `{name}` is never used", key=True,
                    hint="name it in an agent step's `model`, or remove it")


def _unused_tools(ctx: Context) -> None:
    used = {t for _, _, _, step in ctx.steps() if isinstance(step, s.AgentStep)
            for t in step.tools}
    used.update(a.tool for a in ctx.spec.actions.values() if isinstance(a, s.ToolAction))
    for name in ctx.spec.tools:
        if name not in used:
            ctx.add(("tools", name), "FL088", f"tool `{name}` is never used", key=True,
                    hint="offer it to an agent step (`tools: [name]`), run it from an "
                         "action (`tool: name`), or remove it")


def _unrouted_intents(ctx: Context) -> None:
    handled = {i for text in _texts(ctx) for i in reads(text).intents | reads(
        text, expression=True).intents}
    for name in ctx.spec.intents:
        if name not in ctx.spec.routes and name not in handled:
            ctx.add(("intents", name), "FL063", f"intent `{name}` has no route: a message "
                    f"with it goes to the default flow `{ctx.spec.default_flow}` like any "
                    f"other", key=True, hint=f"add `{name}: <flow>` under `routes`, handle it "
                    f"with `turn.intent == '{name}'`, or remove it")


def _unreachable_flows(ctx: Context) -> None:
    spec = ctx.spec
    targets = {spec.default_flow, *spec.routes.values(), spec.patterns.chitchat,
               spec.patterns.clarify.handoff}
    actions = frozenset(spec.actions)
    targets |= {t for flow in spec.flows.values() for _, t in handovers(flow, actions)}
    for name in ctx.spec.flows:
        if name not in targets:
            ctx.add(("flows", name), "FL067", f"flow `{name}` is never entered: it is neither "
                    "the default flow nor the target of a route", key=True,
                    hint=f"route an intent to it (`routes: {{<intent>: {name}}}`), or remove it")


def _clarified(spec: s.ServiceSpec, a: str, b: str) -> bool:
    """Two intents of different flows with one priority: a message with their shared
    keyword is answered with "which one did you mean?", on purpose."""
    routes = spec.routes
    return a in routes and b in routes and routes[a] != routes[b] \
        and spec.intents[a].priority == spec.intents[b].priority


def _intent_collisions(ctx: Context) -> None:
    intents = ctx.spec.intents
    owner: dict[str, str] = {}
    for name, intent in intents.items():
        for i, keyword in enumerate(intent.keywords):
            first = owner.setdefault(normalise(keyword), name)
            if first != name and not _clarified(ctx.spec, first, name):
                ctx.add(("intents", name, "keywords", i), "FL064", f"keyword `{keyword}` of "
                        f"intent `{name}` is also a keyword of `{first}`",
                        hint="keep each keyword in one intent")
    keyword_rules = {n: IntentRule(n, tuple(i.keywords)) for n, i in intents.items()}
    for name, intent in intents.items():
        for i, example in enumerate(intent.examples):
            if classify(example, [keyword_rules[name]]):
                continue  # its own keyword settles it
            for other, rule in keyword_rules.items():
                hits = classify(example, [rule]) if other != name else []
                if hits:
                    ctx.add(("intents", name, "examples", i), "FL064", f"example {example!r} "
                            f"of intent `{name}` has {hits[0].reason} of intent `{other}`: "
                            f"messages like it are classified as `{other}`",
                            hint=f"give `{name}` a keyword found in the example, or remove "
                            f"the colliding keyword from `{other}`")
                    break


def _agent_ids(ctx: Context) -> None:
    seen: dict[str, tuple[str, str | None]] = {}
    for _, _, path, step in ctx.steps():
        if not isinstance(step, s.AgentStep):
            continue
        clash = (f"the built-in `{step.agent}` agent" if step.agent in BUILTIN_AGENTS else
                 f"action `{step.agent}`" if step.agent in ctx.spec.actions else None)
        first = seen.setdefault(step.agent, (step.prompt, step.model))
        if clash is None and first != (step.prompt, step.model):
            clash = f"another agent step with prompt `{first[0]}`"
        if clash is not None:
            ctx.add((*path, "agent"), "FL070", f"agent `{step.agent}` has the same name as "
                    f"{clash}: events and the trace cannot tell them apart",
                    hint="give each agent step its own name")
