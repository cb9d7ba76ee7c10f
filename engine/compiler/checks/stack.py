"""Flows calling and linking flows, and the conversation patterns -> FL057, FL059, FL072–FL074.

FL057: a flow can call itself again through ``call``/``link`` steps (the stack would grow
without end). FL059: a `resume` question whose buttons are not words that answer it.
FL072: a stage's button is no decision word there.
FL073: a `refused` message without an `if` guard (or a guard with nothing to say).
FL074: a slot that is `keep: true` and collected by no flow.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.compiler.checks.context import Context
from engine.dsl import spec as s
from engine.nlu import YesNoWords, default_words, yes_no
from engine.nlu.words import resume_words
from engine.source import Path


def check(ctx: Context) -> None:
    _recursion(ctx)
    for name, flow in ctx.spec.flows.items():
        path: Path = ("flows", name)
        _resume_buttons(ctx, flow, path)
        _buttons(ctx, flow, path)
        if flow.refused and not flow.if_:
            ctx.add((*path, "refused"), "FL073", f"flow `{name}` says `{flow.refused}` when "
                    "its guard refuses, but it has no `if:` guard", key=True,
                    hint="add `if: <condition>` or remove `refused`")
        elif flow.if_ and not flow.refused:
            ctx.add((*path, "if"), "FL073", f"flow `{name}` has a guard but no `refused` "
                    "message: a refused start says nothing", key=True,
                    hint="add `refused: <message>` telling the user why")
    collected = {n for flow in ctx.spec.flows.values() for n in flow.slots}
    for name, slot in ctx.spec.slots.items():
        if slot.keep and name not in collected:
            ctx.add(("slots", name, "keep"), "FL074", f"slot `{name}` is kept across flows "
                    "but no flow collects it", key=True,
                    hint="add it to the `slots` of the flow that asks for it")


def handovers(flow: s.FlowSpec, actions: frozenset[str]) -> Iterator[tuple[Path, str]]:
    """(path, flow) of every `call` of a flow and every `link` in ``flow``'s steps (a
    `call` names an action when one has that name)."""
    for sname, stage in flow.stages.items():
        for path, step in s.walk_steps(stage.steps, ("stages", sname, "steps")):
            if isinstance(step, s.LinkStep):
                yield (*path, "link"), step.link
            elif isinstance(step, s.CallStep) and step.call not in actions:
                yield (*path, "call"), step.call


def _recursion(ctx: Context) -> None:
    flows = ctx.spec.flows
    actions = frozenset(ctx.spec.actions)
    edges = {name: [(p, t) for p, t in handovers(f, actions) if t in flows]
             for name, f in flows.items()}
    for start in flows:
        for path, target in edges[start]:
            if start in _reachable(target, edges):
                ctx.add(("flows", start, *path), "FL057", f"flow `{start}` hands over to "
                        f"`{target}`, which leads back to `{start}`: the flow stack could "
                        "grow without end", hint="break the cycle: end one of the flows "
                        "instead of calling back")


def _reachable(start: str, edges: dict[str, list[tuple[Path, str]]]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for _, nxt in edges[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _words(ctx: Context, stage: s.StageSpec | None = None) -> YesNoWords:
    spec = ctx.spec
    words = default_words(spec.locale).merge(YesNoWords(
        confirm=tuple(spec.words.confirm), cancel=tuple(spec.words.cancel),
        deny=tuple(spec.words.deny), objects=tuple(spec.words.objects)))
    if stage is not None and stage.words is not None:
        own = stage.words
        words = words.merge(YesNoWords(confirm=tuple(own.confirm), cancel=tuple(own.cancel),
                                       deny=tuple(own.deny), objects=tuple(own.objects)))
    return words


def _resume_buttons(ctx: Context, flow: s.FlowSpec, path: Path) -> None:
    if flow.resume is None:
        return
    base = _words(ctx)
    words = base.merge(YesNoWords(confirm=(*ctx.spec.words.resume,
                                           *resume_words(ctx.spec.locale))))
    for i, button in enumerate(flow.resume.buttons):
        if yes_no(button, words) is None:
            ctx.add((*path, "resume", "buttons", i), "FL059", f"button `{button}` does not "
                    "answer the resume question: it is neither a resume nor a cancel word",
                    hint="use a word such as 계속/continue or 취소/cancel, or add it to "
                    "`words.resume`")


def _buttons(ctx: Context, flow: s.FlowSpec, path: Path) -> None:
    for sname, stage in flow.stages.items():
        if stage.decide is None:
            continue
        words = _words(ctx, stage)
        for i, button in enumerate(stage.buttons):
            if yes_no(button, words) is None:
                ctx.add((*path, "stages", sname, "buttons", i), "FL072", f"button "
                        f"`{button}` of `{sname}` is no decision word there: pressing it "
                        "leaves the stage unanswered", hint=f"add it to `stages.{sname}"
                        ".words` (confirm, cancel or deny)")


__all__ = ["check", "handovers"]
