"""A flow file's hook handlers (``hooks:``) -> FL094 (a handler asks for a hook type no
``emit`` step sends) and FL097 (handlers declared, but nothing in the service emits a hook).

Both are warnings: the file still runs, but the handler would never be called."""

from __future__ import annotations

from engine.compiler.checks.context import Context
from engine.dsl import spec as s


def emitted(spec: s.ServiceSpec) -> set[str]:
    """The hook types the ``emit`` steps of ``spec`` send."""
    return {step.emit for _, _, _, step in s.service_steps(spec) if isinstance(step, s.EmitStep)}


def check(ctx: Context) -> None:
    spec = ctx.spec
    if not spec.hooks or not ctx.complete:
        return
    sent = emitted(spec)
    if not sent:
        ctx.add(("hooks",), "FL097", "hook handlers are declared, but no `emit` step of the "
                "service sends a hook, so they are never called", key=True,
                hint="add an `emit` step where the event happens, or remove `hooks:`")
        return
    for i, hook in enumerate(spec.hooks):
        for j, name in enumerate(hook.types):
            if name not in sent:
                ctx.add(("hooks", i, "types", j), "FL094", f"no `emit` step sends hook type "
                        f"`{name}`, so this handler never receives it",
                        hint=f"the service emits: {', '.join(sorted(sent))}")


__all__ = ["check", "emitted"]
