"""Knowledge bases -> FL108 (more documents than an in-memory index should hold) and FL109
(an index older than its documents, with the command that rebuilds it).

Only warnings: the compiler already rejects a directory that is not allowed or not there
(FL106), and builds an index that is missing.
"""

from __future__ import annotations

from engine.compiler.checks.context import Context
from engine.dsl import spec as s


def check(ctx: Context) -> None:
    if not ctx.spec.knowledge:
        return  # a flow without knowledge bases never imports engine.retrieval
    from engine.retrieval import (
        MAX_BYTES,
        KnowledgeDirError,
        index_path,
        knowledge_dir,
        source_files,
        staleness,
    )

    for name, knowledge in ctx.spec.knowledge.items():
        try:
            directory = knowledge_dir(ctx.base_dir, knowledge.dir)
        except KnowledgeDirError:
            continue  # FL106, from the compiler
        files = source_files(directory, ctx.base_dir)
        path = ("knowledge", name, "dir")
        size = sum(f.size for f in files)
        if size > MAX_BYTES:
            ctx.add(path, "FL108", f"knowledge `{name}` holds {size / 1024 / 1024:.1f} MiB of "
                    f"markdown in {_files(len(files))}; flowctl indexes it when the flow is "
                    f"compiled and keeps the index in memory, and warns above "
                    f"{MAX_BYTES // 1024 // 1024} MiB",
                    hint="split it into smaller knowledge bases, or keep only what the "
                         "service answers from")
        if files and (why := staleness(index_path(ctx.base_dir, directory), files)):
            ctx.add(path, "FL109", f"the index of knowledge `{name}` is older than its "
                    f"documents: {why}",
                    hint=f"run `flowctl index {ctx.source.file}`")


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def respond_messages(body: s.SynthesisSpec) -> set[str]:
    """Every message a ``respond`` step can say."""
    names = {n for n in (body.summary, body.fallback) if n}
    for line in (*body.actions, *body.caveats, *body.next):
        name = line if isinstance(line, str) else line.say
        if name:
            names.add(name)
    return names


__all__ = ["check", "respond_messages"]
