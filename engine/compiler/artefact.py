"""A flow compiled ahead of time: what ``flowctl build`` writes and ``flowctl serve`` loads.

An artefact is one header line and the compiled service with its trained intent model,
pickled. Loading it skips reading the YAML, the schema, the compiler's checks and training
the model; templates and expressions come back from their plans (``engine.compiler.fast``)
or from the code jinja2 compiled them to, stage machines from their stages and edges. The
header names the flow, a key over everything the compile read, and the engine that built
it: another engine refuses the file instead of misreading it.

``serve`` builds on the fly: the artefact is kept under ``.flowctl/build/`` beside the flow,
named by that key (the flow file, every file in its directory tree, the ``prompts/``
directory above it, the engine), so an edit anywhere a flow can read from builds anew.

An artefact is code, as a flow's validators are: load only the ones you built.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import pickle
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from engine.compiler.compiled import CompiledService
from engine.dsl.records import reduce_model
from engine.errors import FlowRuntimeError
from engine.nlu.intents import given, model_of

MAGIC = b"flowctl-build 1\n"
SUFFIX = ".flowc"
CACHE_VARIABLE = "FLOWCTL_BUILD_CACHE"
"""``0``/``false``/``off``: ``serve`` compiles the flow each start and keeps nothing."""
MAX_FILES, MAX_BYTES = 2000, 64 << 20
"""A flow's directory tree larger than this is not hashed per start: no cache then."""
_SKIPPED = frozenset({".flowctl", "__pycache__", ".git", ".venv", "node_modules"})

log = logging.getLogger("flowctl.build")


class ArtefactError(FlowRuntimeError):
    """A file that is no artefact of this engine (said in one line)."""


@dataclass(frozen=True, slots=True)
class Header:
    flow: str
    key: str
    engine: str


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """The engine's code as it is installed: its files' sizes and times, and Python's
    version. A changed engine reads no artefact of another."""
    root = str(Path(__file__).resolve().parents[1])
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                found.append(f"{folder[len(root):]}/{name}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join([sys.version, *sorted(found)]).encode()).hexdigest()[:16]


def inputs_key(flow: Path) -> str | None:
    """A hash of what compiling ``flow`` can read — the flow's directory tree (validators,
    prompts, knowledge, fixtures), the ``prompts/`` beside that directory, the knowledge
    indexes in use — and the engine; None when the tree is too large to hash each start."""
    flow = flow.resolve()
    digest = hashlib.sha256(f"{flow}\n{engine_fingerprint()}\n".encode())
    files, size = 0, 0
    for path in _inputs(flow.parent):
        files += 1
        size += path.stat().st_size
        if files > MAX_FILES or size > MAX_BYTES:
            return None
        digest.update(f"{path}\n".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    for index in sorted((flow.parent / ".flowctl" / "index").glob("*.sqlite")):
        stat = index.stat()  # rebuilt by `flowctl index`: what the compile loads changed
        digest.update(f"{index}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:24]


def _inputs(base: Path) -> Iterator[Path]:
    yield from _tree(base)
    above = base.parent / "prompts"
    if above.is_dir() and above != base:
        yield from _tree(above)


def _tree(root: Path) -> Iterator[Path]:
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not d.startswith("."))
        for name in sorted(names):
            path = Path(folder, name)
            if path.is_file():
                yield path


class _BuildPickler(pickle.Pickler):
    """Pickles the flow language's models as records (``engine.dsl.records``): a server
    loading the build never creates their pydantic classes."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, BaseModel) and type(obj).__module__.startswith("engine.dsl."):
            return reduce_model(obj)
        return NotImplemented


def write(service: CompiledService, out: Path, flow: Path, key: str) -> None:
    """Write the artefact of ``service`` to ``out`` at once (aside, then renamed)."""
    header = json.dumps({"flow": str(flow.resolve()), "key": key,
                         "engine": engine_fingerprint()}).encode()
    buffer = io.BytesIO()
    _BuildPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(
        (service, model_of(service.intents)))
    body = buffer.getvalue()
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, aside = tempfile.mkstemp(dir=out.parent, prefix=out.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(MAGIC + header + b"\n" + body)
        os.replace(aside, out)
    except BaseException:
        Path(aside).unlink(missing_ok=True)
        raise


def is_artefact(path: str | Path) -> bool:
    try:
        with open(path, "rb") as file:
            return file.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def read(path: Path) -> tuple[Header, CompiledService]:
    """The header and service of the artefact at ``path``; ArtefactError when it is none,
    or another engine built it."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ArtefactError(f"{path}: cannot read: {err.strerror}") from None
    if not data.startswith(MAGIC):
        raise ArtefactError(f"{path}: not a flowctl build")
    line, _, body = data[len(MAGIC):].partition(b"\n")
    try:
        header = Header(**json.loads(line))
    except (ValueError, TypeError):
        raise ArtefactError(f"{path}: its header is damaged: build it again") from None
    if header.engine != engine_fingerprint():
        raise ArtefactError(f"{path}: built by another version of flowctl: run "
                            f"`flowctl build {header.flow}` again")
    try:
        service, model = pickle.loads(body)  # noqa: S301 - our own build (module's note)
    except Exception as err:  # a damaged body, or a validator that no longer imports
        raise ArtefactError(f"{path}: cannot be loaded ({type(err).__name__}: {err}): "
                            f"build it again") from None
    if not isinstance(service, CompiledService):
        raise ArtefactError(f"{path}: not a flowctl build")
    given(service.intents, model)  # trained when it was built: a server need not train it
    return header, service


def build(flow: Path, out: Path | None = None) -> Path:
    """Compile ``flow`` (FlowDefinitionError with every finding when it is invalid) and
    write its artefact to ``out`` (default: beside the flow, ``.flowc``)."""
    from engine.compiler import compile_file

    service = compile_file(flow)
    target = out or flow.with_suffix(SUFFIX)
    write(service, target, flow, inputs_key(flow) or "")
    return target


def load(flow: Path, env: Mapping[str, str] | None = None) -> CompiledService:
    """The compiled service of ``flow``: ``prebuilt``, else compiled now (and kept)."""
    return prebuilt(flow, env) or compile_kept(flow, env)


def prebuilt(flow: Path, env: Mapping[str, str] | None = None) -> CompiledService | None:
    """An artefact as it is, or a flow file's artefact under ``.flowctl/build/`` when one
    was built from the same inputs; None for neither."""
    if is_artefact(flow):
        header, service = read(flow)
        _warn_if_changed(flow, header)
        return service
    cached = _kept(flow, env)
    if cached is None or not cached.is_file():
        return None
    try:
        return read(cached)[1]
    except ArtefactError as err:
        log.warning("%s; compiling the flow instead", err)
        return None


def compile_kept(flow: Path, env: Mapping[str, str] | None = None) -> CompiledService:
    """Compile ``flow`` (FlowDefinitionError when it is invalid) and keep its artefact under
    ``.flowctl/build/`` for the next start, unless ``FLOWCTL_BUILD_CACHE`` is off or the
    directory cannot be written."""
    from engine.compiler import compile_file

    service = compile_file(flow)
    cached = _kept(flow, env)
    if cached is None:
        return service
    try:
        write(service, cached, flow, cached.stem.rpartition("-")[2])
        for old in cached.parent.glob(f"{flow.stem}-*{SUFFIX}"):
            if old != cached:
                old.unlink(missing_ok=True)
    except OSError as err:
        log.info("the build of %s is not kept: %s", flow, err)
    return service


def _kept(flow: Path, env: Mapping[str, str] | None) -> Path | None:
    """Where the build of ``flow`` from its present inputs is kept; None: not kept."""
    variables = os.environ if env is None else env
    if variables.get(CACHE_VARIABLE, "").strip().lower() in {"0", "false", "off", "no"}:
        return None
    key = inputs_key(flow)
    if key is None:
        return None
    return _cache_dir(flow) / f"{flow.stem}-{key}{SUFFIX}"


def _cache_dir(flow: Path) -> Path:
    return flow.resolve().parent / ".flowctl" / "build"


def _warn_if_changed(artefact: Path, header: Header) -> None:
    source = Path(header.flow)
    if header.key and source.is_file() and inputs_key(source) not in {None, header.key}:
        log.warning("%s was built before %s (or a file beside it) changed: it serves the "
                    "flow as built; run `flowctl build` to take the change", artefact, source)


__all__ = ["SUFFIX", "ArtefactError", "Header", "build", "compile_kept", "engine_fingerprint",
           "inputs_key", "is_artefact", "load", "prebuilt", "read"]
