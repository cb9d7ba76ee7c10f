"""Knowledge bases, ``retrieve`` and ``respond`` steps -> their compiled forms.

A knowledge base's directory is checked (relative, inside the flow's directory tree, with
markdown in it: FL106) and its index loaded, built first when it is missing. A ``retrieve``
step names a declared knowledge base (FL105); a ``respond`` step names declared messages
(FL020) and compiles its conditions.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import TYPE_CHECKING

from engine.compiler import compiled as c
from engine.compiler.resolve import Resolver
from engine.dsl import spec as s
from engine.source import Path

if TYPE_CHECKING:
    from engine.retrieval import KnowledgeIndex

__all__ = ["Indexed", "knowledge_bases", "rebuild_indexes", "respond_step", "retrieval_names",
           "retrieve_step"]


def knowledge_bases(spec: s.ServiceSpec, base: FilePath,
                    r: Resolver) -> dict[str, KnowledgeIndex]:
    """Knowledge base -> its loaded index; a directory that is not allowed, not there or
    empty is FL106."""
    if not spec.knowledge:
        return {}  # a flow without knowledge bases never imports engine.retrieval
    from engine.retrieval import KnowledgeDirError, ensure_index, knowledge_dir
    from engine.retrieval.documents import SUFFIXES, source_files

    out = {}
    for name, knowledge in spec.knowledge.items():
        path: Path = ("knowledge", name, "dir")
        try:
            directory = knowledge_dir(base, knowledge.dir)
            if not source_files(directory, base):
                raise KnowledgeDirError(f"it holds no markdown file ({', '.join(SUFFIXES)})")
            out[name] = ensure_index(directory, base)
        except KnowledgeDirError as err:
            r.error(path, f"knowledge `{name}`: `{knowledge.dir}`: {err}", "FL106",
                    hint="name a directory of markdown files under the flow file's directory")
        except (OSError, sqlite3.Error) as err:
            r.error(path, f"knowledge `{name}` cannot be indexed: {err}", "FL106",
                    hint=f"check the files under `{knowledge.dir}`")
    return out


def retrieval_names(spec: s.ServiceSpec) -> frozenset[str]:
    """The names ``retrieve`` steps put their hits under (``retrieved.<name>``)."""
    return frozenset(step.as_ or step.retrieve for _, _, _, step in s.service_steps(spec)
                     if isinstance(step, s.RetrieveStep))


def retrieve_step(step: s.RetrieveStep, spec: s.ServiceSpec, path: Path,
                  r: Resolver) -> c.RetrieveStep:
    r.exists(step.retrieve, spec.knowledge, (*path, "retrieve"), "knowledge base", "FL105")
    query = r.template(step.query, (*path, "query")) if step.query is not None else None
    return c.RetrieveStep(step.retrieve, step.as_ or step.retrieve, query, step.top_k,
                          step.label)


def respond_step(step: s.RespondStep, spec: s.ServiceSpec, path: Path,
                 r: Resolver) -> c.RespondStep:
    body = step.respond
    where: Path = (*path, "respond")
    for key in ("summary", "fallback"):
        r.exists(getattr(body, key), spec.messages, (*where, key), "message", "FL020")
    confirm = body.requires_confirmation
    required: c.Value | None = (c.Const(confirm) if isinstance(confirm, bool) else
                                r.expression(confirm, (*where, "requires_confirmation")))
    return c.RespondStep(
        body.summary, _lines(body.actions, spec, (*where, "actions"), r),
        _lines(body.caveats, spec, (*where, "caveats"), r),
        required if required is not None else c.Const(False),
        _lines(body.next, spec, (*where, "next"), r), body.fallback)


def _lines(lines: list[str | s.RespondLine], spec: s.ServiceSpec, path: Path,
           r: Resolver) -> tuple[c.ResponseLine, ...]:
    out = []
    for i, line in enumerate(lines):
        if isinstance(line, str):
            line = s.RespondLine(say=line)
            at: Path = (*path, i)
        else:
            at = (*path, i, "say")
        r.exists(line.say, spec.messages, at, "message", "FL020")
        each = r.expression(line.each, (*path, i, "each")) if line.each else None
        when = r.expression(line.when, (*path, i, "when")) if line.when else None
        out.append(c.ResponseLine(line.say, each, when))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Indexed:
    """One knowledge base ``flowctl index`` rebuilt."""

    name: str
    files: int
    chunks: int
    path: FilePath


def rebuild_indexes(service: c.CompiledService) -> list[Indexed]:
    """Rebuild the index of every knowledge base of ``service`` from its documents now;
    raises OSError when an index cannot be written."""
    from engine.retrieval import build_index, index_path, knowledge_dir, source_files

    out = []
    for name, knowledge in service.spec.knowledge.items():
        directory = knowledge_dir(service.base_dir, knowledge.dir)  # compiled: it is valid
        files = source_files(directory, service.base_dir)
        target = index_path(service.base_dir, directory)
        out.append(Indexed(name, len(files), build_index(files, target), target))
    return out
