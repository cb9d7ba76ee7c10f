"""The service's request context, guard and ranking -> FL075 (``context`` read while the
service declares no context schema, so it is always empty), FL076 (a guard pattern that
matches the empty text and so blocks every message), FL123 (ranking by priority with
one priority for every routed intent) and FL124 (a slot only steps fill, open to the
understanding model)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from engine.compiler.checks.context import Context
from engine.compiler.checks.reads import reads
from engine.dsl import spec as s
from engine.precompiled import re_compile
from engine.source import Path


def _texts(spec: s.ServiceSpec) -> Iterator[tuple[Path, str, bool]]:
    """(path, text, is_expression) of every message and condition of ``spec``."""
    for name, text in spec.messages.items():
        yield ("messages", name), text, False
    for i, rule in enumerate(spec.guard.rules):
        if rule.when:
            yield ("guard", "rules", i, "when"), rule.when, True
    for fname, flow in spec.flows.items():
        if flow.if_:
            yield ("flows", fname, "if"), flow.if_, True
        for j, t in enumerate(flow.transitions):
            if t.when:
                yield ("flows", fname, "transitions", j, "when"), t.when, True
    for _, _, path, step in s.service_steps(spec):
        if isinstance(step, s.IfStep):
            yield (*path, "if"), step.if_, True
        elif isinstance(step, s.SetStep):
            for slot, raw in step.set.items():
                if isinstance(raw, str):
                    yield (*path, "set", slot), raw, True


def check(ctx: Context) -> None:
    spec = ctx.spec
    if spec.context is None:
        for path, text, expression in _texts(spec):
            if "context" in reads(text, expression=expression).names:
                ctx.add(path, "FL075", "this reads `context`, but the service declares no "
                        "`context` schema: a request may carry none, so it is always empty",
                        hint="declare the request context's JSON Schema under `context:`")
    for i, rule in enumerate(spec.guard.rules):
        for j, pattern in enumerate(rule.patterns):
            try:
                empty = re.search(pattern, "") is not None
            except re.error:
                continue  # the compiler reports it (FL033)
            if empty:
                ctx.add(("guard", "rules", i, "patterns", j), "FL076", f"pattern `{pattern}` "
                        "matches the empty text, so this rule blocks every message",
                        hint="make the pattern require at least one character")
    _ranking(ctx)
    _open_to_model(ctx)
    _particle_pairs(ctx)


_PAIRS = {"을(를)": "을", "를(을)": "을", "이(가)": "이", "가(이)": "이", "은(는)": "은",
          "는(은)": "은", "과(와)": "과", "와(과)": "과", "(으)로": "으로", "(이)나": "이나",
          "(이)랑": "이랑"}
_PAIR_AFTER_VALUE = re_compile(r"\}\}[\"'”’)\]]?\s?(?P<pair>" +
                               "|".join(map(re.escape, _PAIRS)) + ")")


def _particle_pairs(ctx: Context) -> None:
    """FL125: "{{ item }}을(를)" in a message, where `josa` picks the form."""
    for name, text in ctx.spec.messages.items():
        found = _PAIR_AFTER_VALUE.search(text)
        if found is not None:
            pair = found["pair"]
            ctx.add(("messages", name), "FL125", f"message `{name}` writes `{pair}` after a "
                    "value: users read both forms of the particle, as on a paper form",
                    hint=f"let the value pick it: {{{{ value | josa('{_PAIRS[pair]}') }}}}")


def _open_to_model(ctx: Context) -> None:
    """FL124: a slot a `set` step fills and no one is asked for, which a model may set too."""
    spec, warned = ctx.spec, set[str]()
    if spec.understand.model is None:
        return  # only the rules read messages
    for _, _, _, step in ctx.steps():
        if not isinstance(step, s.SetStep):
            continue
        for name in step.set:
            slot = spec.slots.get(name)
            if slot is None or name in warned or slot.ask is not None or slot.required \
                    or (slot.extract is not None and not slot.extract.llm):
                continue
            warned.add(name)
            ctx.add(("slots", name), "FL124", f"slot `{name}` is filled by a `set` step and "
                    "never asked for, but the understanding model may set it too: what a "
                    "user says could change a value the flow takes from a system",
                    hint="mark it `extract: {llm: false}` so only steps and the rules fill it")


def _ranking(ctx: Context) -> None:
    spec = ctx.spec
    priorities = {spec.intents[i].priority for i in spec.routes if i in spec.intents}
    if spec.patterns.ranking == "priority" and len(priorities) <= 1:
        ctx.add(("patterns", "ranking"), "FL123", "intents are ranked by priority, but every "
                "routed intent has the same `priority`, so the ranking changes nothing",
                hint="give the intents that must win a higher `priority`, or drop `ranking`")


__all__ = ["check"]
