"""The service-level checks around a turn: the request ``context`` schema and the ``guard``.

Both are compiled once here (a bad schema, regex, condition or message name is a located
finding); the runtime's ``runtime/conversation/guard.py`` applies them on every turn.
"""

from __future__ import annotations

from typing import Any

from engine.compiler import compiled as c
from engine.compiler.resolve import Resolver
from engine.dsl import spec as s


def context_schema(spec: s.ServiceSpec, r: Resolver) -> dict[str, Any] | None:
    """The request context's JSON Schema, checked against Draft 2020-12."""
    if spec.context is None:
        return None
    from jsonschema import Draft202012Validator  # only a flow with a context schema needs it
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(spec.context)
    except SchemaError as err:
        path = ("context", *err.path)
        r.error(path, f"invalid JSON Schema: {err.message}", "FL019")
        return None
    return dict(spec.context)


def agent_steps(spec: s.ServiceSpec) -> frozenset[str]:
    """Every agent step's name: each has a result later steps may read (``agents.<name>``)."""
    return frozenset(step.agent for _, _, _, step in s.service_steps(spec)
                     if isinstance(step, s.AgentStep))


def agent_outputs(spec: s.ServiceSpec) -> frozenset[str]:
    """Agent steps whose validated JSON output later steps may read as ``agents.<name>``:
    ``json_output`` steps whose model declares an ``output_schema``."""
    out = set()
    for _, _, _, step in s.service_steps(spec):
        if isinstance(step, s.AgentStep) and step.json_output and step.model is not None:
            model = spec.models.get(step.model)
            if model is not None and model.output_schema is not None:
                out.add(step.agent)
    return frozenset(out)


def confidence_bands(spec: s.ServiceSpec, r: Resolver) -> dict[str, tuple[float, float]]:
    """Intent -> (act, confirm): the intent's own bounds, else the service's."""
    bands = spec.patterns.confidence
    path = ("patterns", "confidence")
    if bands is None:
        for name, intent in spec.intents.items():
            for key in ("act", "confirm"):
                if getattr(intent, key) is not None:
                    r.error(("intents", name, key), f"`{key}` needs `patterns.confidence`",
                            "FL016", hint="declare the service's bands under "
                            "`patterns.confidence`")
        return {}
    r.exists(bands.confirm_ask, spec.messages, (*path, "confirm_ask"), "message", "FL020")
    r.exists(bands.clarify_ask, spec.messages, (*path, "clarify_ask"), "message", "FL020")
    out = {}
    for name, intent in spec.intents.items():
        act = bands.act if intent.act is None else intent.act
        confirm = bands.confirm if intent.confirm is None else intent.confirm
        if confirm > act:
            r.error(("intents", name), f"intent `{name}` confirms from {confirm}, above "
                    f"where it acts ({act})", "FL016", hint="keep `confirm` <= `act`")
        out[name] = (act, confirm)
    return out


def guard_rules(spec: s.ServiceSpec, r: Resolver) -> tuple[c.GuardRule, ...]:
    rules = []
    for i, rule in enumerate(spec.guard.rules):
        path = ("guard", "rules", i)
        r.exists(rule.say, spec.messages, (*path, "say"), "message", "FL020")
        patterns = [r.regex(p, (*path, "patterns", j)) for j, p in enumerate(rule.patterns)]
        when = r.expression(rule.when, (*path, "when")) if rule.when else None
        rules.append(c.GuardRule(
            keywords=tuple(k.casefold() for k in rule.keywords),
            patterns=tuple(p for p in patterns if p is not None), when=when,
            say=rule.say, tag=rule.tag))
    return tuple(rules)


__all__ = ["agent_outputs", "agent_steps", "confidence_bands", "context_schema", "guard_rules"]
