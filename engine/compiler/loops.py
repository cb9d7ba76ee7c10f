"""Loop steps and workspace/command actions -> their compiled forms, located findings.

A loop body is a run of steps that may not move the stage (no ``trigger``, no ``call``
with ``ok``/``error``, no flow ``call`` or ``link``: FL117) nor hold another loop (FL119);
the loop's own ``ok``/``exhausted`` triggers are its only way out. A command's literal
argv text may not hold shell operators (FL115) and a workspace glob must stay inside the
root (FL116): what the runtime refuses anyway is refused before the flow ever runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.compiler import compiled as c
from engine.compiler.resolve import Resolver
from engine.dsl import spec as s
from engine.precompiled import re_compile
from engine.source import Path
from engine.workspace.command import SHELL_OPERATORS
from engine.workspace.files import WorkspaceError, check_glob

_JINJA = re_compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
CompileSteps = Callable[[list[s.Step], Path], tuple[c.Step, ...]]


def loop_step(step: s.LoopStep, path: Path, r: Resolver,
              compile_steps: CompileSteps) -> c.LoopStep:
    spec, here = step.loop, (*path, "loop")
    _check_body(spec.steps, (*here, "steps"), r)
    limit: c.Value | None = c.Const(spec.max_attempts) if isinstance(spec.max_attempts, int) \
        else r.expression(spec.max_attempts, (*here, "max_attempts"))
    until = r.expression(spec.until, (*here, "until")) if spec.until else None
    feedback = r.template(spec.feedback, (*here, "feedback")) if spec.feedback else None
    return c.LoopStep(compile_steps(spec.steps, (*here, "steps")), limit or c.Const(1),
                      until, feedback, spec.ok, spec.exhausted)


def _check_body(steps: list[s.Step], path: Path, r: Resolver) -> None:
    for i, step in enumerate(steps):
        where = (*path, i)
        if isinstance(step, s.TriggerStep | s.LinkStep):
            kind = "trigger" if isinstance(step, s.TriggerStep) else "link"
            r.error((*where, kind), f"a loop body cannot `{kind}`: it would leave the loop "
                    "half-way", "FL117", hint="use the loop's `ok` and `exhausted` triggers")
        elif isinstance(step, s.CallStep) and (step.ok or step.error):
            key = "ok" if step.ok else "error"
            r.error((*where, key), "a `call` in a loop body has no `ok`/`error` trigger: a "
                    "failed action ends the attempt, and the next one sees `loop.error`",
                    "FL117", hint="remove it and use the loop's `ok` and `exhausted` triggers")
        elif isinstance(step, s.LoopStep):
            r.error((*where, "loop"), "loops do not nest", "FL119",
                    hint="move the inner loop's steps into the outer body, or into a stage")
        elif isinstance(step, s.IfStep):
            _check_body(step.then, (*where, "then"), r)
            _check_body(step.else_, (*where, "else"), r)


def local_action(name: str, action: s.WorkspaceAction | s.CommandAction,
                 r: Resolver) -> c.CompiledAction:
    path = ("actions", name)
    if isinstance(action, s.CommandAction):
        return _command(name, action, path, r)
    for i, pattern in enumerate(action.files):
        try:
            check_glob(pattern)
        except WorkspaceError as err:
            r.error((*path, "files", i), str(err), "FL116",
                    hint="write globs relative to the workspace root, e.g. `src/**/*.py`")
    args: tuple[tuple[str, c.Value], ...] = ()
    if action.workspace == "read" and not action.files:
        r.error((*path, "workspace"), "a `read` action names no `files`", "FL116",
                hint="add `files: [\"src/*.py\"]` (globs relative to the workspace root)")
    if action.paths is not None and action.workspace != "read":
        r.error((*path, "paths"), "`paths` chooses files to read; an `apply` action writes "
                "what `changes` gives", "FL116", hint="remove `paths`")
    elif action.paths is not None and (paths := r.expression(action.paths,
                                                             (*path, "paths"))) is not None:
        args = (("paths", paths),)
    if action.workspace == "apply":
        if action.changes is None:
            r.error((*path, "workspace"), "an `apply` action has no `changes`", "FL116",
                    hint="add `changes: agents.dev.changes` (a list of {path, content})")
        elif (changes := r.expression(action.changes, (*path, "changes"))) is not None:
            args = (("changes", changes),)
    return c.CompiledAction(name=name, kind=action.workspace, tool=None, args=args,
                            label=action.label, irreversible=False, timeout_sec=60.0,
                            retries=0, files=tuple(action.files),
                            limits=(action.max_files, action.max_bytes))


def _command(name: str, action: s.CommandAction, path: Path, r: Resolver) -> c.CompiledAction:
    argv = []
    for i, item in enumerate(action.command):
        bad = sorted(SHELL_OPERATORS.intersection(_JINJA.sub("", item)))
        if bad:
            shown = ", ".join(f"`{c}`" for c in bad)
            r.error((*path, "command", i), f"`{item}` holds the shell operator {shown}, but a "
                    "command runs without a shell", "FL115",
                    hint="give each argument as its own list item, with no ; & | > < ` or $")
        elif (compiled := r.template(item, (*path, "command", i))) is not None:
            argv.append(compiled)
    args: tuple[tuple[str, c.Value], ...] = (("argv", c.Argv(tuple(argv))),)
    if action.argv is not None and (chosen := r.expression(action.argv,
                                                           (*path, "argv"))) is not None:
        args += (("chosen", chosen),)
    # the whole run is bounded by the command's own timeout (the runner kills its group),
    # so the action's timeout only adds a margin for starting and reaping the process
    return c.CompiledAction(name=name, kind="command", tool=None, args=args, label=action.label,
                            irreversible=False, timeout_sec=action.timeout_sec + 10.0,
                            retries=0, limits=(0, action.output_tail))


__all__ = ["local_action", "loop_step"]
