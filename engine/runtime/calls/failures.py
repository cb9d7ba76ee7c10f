"""An exception that failed a turn -> what kind of failure it was (``_trace.error_kind``).

A failed turn answers with the flow's ``turn_failed`` text and ``_trace.error`` =
``turn_failed``, whatever happened; the kind tells an operator where to look without the
log: the session store, a template (a message, prompt or condition reading a name that is
not there), an action (a `call` step's action failing with no `error` route, its result
missing a field), a declared tool, the understanding of the message, a flow's validator, or
the engine itself (``internal``). It is read from the exception's type first, then from
the innermost frame of the traceback that lies in the engine or in the flow's own code.
"""

from __future__ import annotations

import sqlite3
import sysconfig
from pathlib import Path
from types import TracebackType

from engine.compiler.rendering import template_failed
from engine.compiler.validators import BadVerdict
from engine.runtime.calls.actions import ActionFailed

KINDS = ("store", "template", "action", "tool", "understanding", "validator", "internal")
_ENGINE = Path(__file__).resolve().parents[2]
_INSTALLED = tuple(Path(sysconfig.get_paths()[k]).resolve()
                   for k in ("stdlib", "platstdlib", "purelib", "platlib"))
_BY_MODULE = (
    ("store/", "store"),
    ("compiler/templates.py", "template"), ("compiler/rendering.py", "template"),
    ("compiler/readers.py", "template"), ("compiler/sandbox.py", "template"),
    ("compiler/filters.py", "template"),
    ("runtime/calls/actions.py", "action"), ("runtime/calls/local.py", "action"),
    ("workspace/", "action"), ("runtime/steps/dispatch.py", "action"),
    ("runtime/calls/toolbox.py", "tool"), ("runtime/calls/mcp.py", "tool"),
    ("runtime/calls/gateway.py", "tool"), ("providers/tools.py", "tool"),
    ("runtime/understanding/understand.py", "understanding"),
    ("runtime/understanding/llm.py", "understanding"),
    ("runtime/understanding/onecall.py", "understanding"),
    ("runtime/understanding/routing.py", "understanding"),
    ("nlu/", "understanding"),
)


def failure_kind(err: BaseException) -> str:
    """One of ``KINDS`` for the exception that failed a turn."""
    if template_failed(err):
        return "template"
    if isinstance(err, ActionFailed):
        return "action"
    if isinstance(err, BadVerdict):
        return "validator"
    if isinstance(err, sqlite3.Error) or type(err).__module__.startswith("psycopg"):
        return "store"
    for where in reversed(_frames(err.__traceback__)):
        if where.is_relative_to(_ENGINE):
            inside = where.relative_to(_ENGINE).as_posix()
            kind = next((k for prefix, k in _BY_MODULE if inside.startswith(prefix)), None)
            if kind is not None:
                return kind
        elif where.suffix == ".py" and not any(map(where.is_relative_to, _INSTALLED)):
            return "validator"  # the flow's own Python: a slot or agent validator
    return "internal"


def _frames(tb: TracebackType | None) -> list[Path]:
    files = []
    while tb is not None:
        files.append(Path(tb.tb_frame.f_code.co_filename).resolve())
        tb = tb.tb_next
    return files


__all__ = ["KINDS", "failure_kind"]
