"""A ``respond`` step + the turn's data -> one reply: summary, numbered actions, caveats;
and DONE's ``requires_confirmation`` and ``next_suggested_actions``.

A synthesised response reads "[summary] -> [concrete actions] -> [caveats]". Each part is
a message of the flow file, said only when its condition holds; ``each`` turns a list (an
agent's suggested actions, the retrieved hits) into one line per item. If any part fails to
render (a missing field under StrictUndefined, a wrong type), nothing of it is said: the
step's fallback is, and the turn carries the failure tag RESPONSE_SYNTHESIS_FAILED.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.compiler.compiled import RespondStep, ResponseLine
from engine.compiler.rendering import template_failed

if TYPE_CHECKING:
    from engine.runtime.turn.run import Turn

_DATA_ERRORS = (TypeError, ValueError, LookupError, AttributeError, ArithmeticError)
"""What Python raises from filters and operators on data of an unexpected shape."""


def render_failed(err: Exception) -> bool:
    """Whether a template over the turn's data failed on it: jinja2's own errors, and
    Python's ``_DATA_ERRORS``."""
    return isinstance(err, _DATA_ERRORS) or template_failed(err)


def respond(run: Turn, step: RespondStep) -> None:
    """Say the synthesised response, or the fallback with its failure tag."""
    try:
        text, confirm, suggested = _render(run, step)
    except Exception as err:
        if not render_failed(err):
            raise
        run.tracer.tag("RESPONSE_SYNTHESIS_FAILED")
        run.reply.parts.append(_fallback(run, step))
        return
    if text:
        run.reply.parts.append(text)
    run.synthesis.requires_confirmation = confirm
    run.synthesis.next_suggested_actions = suggested


def _render(run: Turn, step: RespondStep) -> tuple[str, bool, list[str]]:
    view = run.state.view()
    summary = _message(run, step.summary, view) if step.summary else ""
    actions = _lines(run, step.actions, view)
    caveats = _lines(run, step.caveats, view)
    blocks = [summary, "\n".join(f"{i}. {a}" for i, a in enumerate(actions, 1)),
              "\n".join(caveats)]
    confirm = bool(step.requires_confirmation.render(view))
    return "\n\n".join(b for b in blocks if b), confirm, _lines(run, step.next, view)


def _lines(run: Turn, lines: tuple[ResponseLine, ...], view: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if line.when is not None and not line.when.render(view):
            continue
        if line.each is None:
            out.append(_message(run, line.message, view))
            continue
        items = line.each.render(view)
        if items is None:
            continue
        if isinstance(items, str | bytes) or not hasattr(items, "__iter__"):
            raise TypeError(f"`each` gave {type(items).__name__}, not a list")
        out += [_message(run, line.message, view, item) if line.message else str(item)
                for item in items]
    return [text for text in out if text]


def _message(run: Turn, name: str | None, view: dict[str, Any], value: Any = None) -> str:
    assert name is not None
    template = run.service.messages[name]
    return str(template.render(view if value is None else {**view, "value": value}))


def _fallback(run: Turn, step: RespondStep) -> str:
    if step.fallback is not None:
        try:
            return run.reply.render(step.fallback)
        except Exception as err:
            if not render_failed(err):
                raise
    return run.engine.text("synthesis_failed")


__all__ = ["render_failed", "respond"]
