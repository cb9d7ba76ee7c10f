"""A pattern's source -> the compiled pattern, from the compiled form a previous start kept.

The rule matchers' patterns are compiled when their modules are imported, and Python's
pattern compiler is slow on Korean: a class like ``[가-힣]`` is expanded code point by code
point (eleven thousand of them, three times the work under ``re.IGNORECASE``), so the
engine's ~150 patterns took ~90 ms of every server's start. ``re_compile`` does what
``re.compile`` does, and keeps the result of the slow half — the matcher's code, which
depends only on the pattern, its flags and the Python that compiled it — in one file beside
this module's bytecode, as Python keeps bytecode. A later start builds each pattern from
that code (~2 ms for all of them); the file is written where and when bytecode is
(``PYTHONDONTWRITEBYTECODE`` keeps nothing), at the end of a process that compiled a
pattern the file did not have.

A kept pattern is only used when it compiled to the pattern ``re.compile`` gives (checked
when it is kept), for the same Python (the file is named after it), and as ``re`` itself
checks every code it is given; anything else — no file, a damaged one, a pattern it lacks —
compiles as ``re.compile`` does.

The engine's dataclasses are kept the same way (``keep_dataclass_methods``): ``dataclasses``
writes each class's ``__init__``, ``__repr__``, ``__eq__`` and the rest as Python source
and compiles it (~0.5 ms a class, ~60 ms for the engine's ~100); the compiled code of the
engine's own is kept beside too, by a digest of its source, and a later start runs it
instead. The same source compiles to the same code, so a class built from kept code is the
class ``dataclasses`` builds.
"""

from __future__ import annotations

import _sre
import atexit
import collections
import contextlib
import dataclasses
import hashlib
import importlib.util
import marshal
import os
import re
import sys
import tempfile
from array import array
from pathlib import Path

# the pattern compiler's two halves, private to `re` but stable since Python 3.11
from re import _compiler, _parser  # type: ignore[attr-defined]
from types import CodeType
from typing import Any

Code = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]
"""What ``_sre.compile`` needs besides the source: flags, code (as machine words), groups
and their names."""

MAX_KEPT = 2000
"""More patterns than this in the file (many engines sharing one installation, edited
patterns): keep only the ones the last process used."""


def _kept_path() -> Path | None:
    """The file beside this module's bytecode, named for this Python's pattern code."""
    if array("I").itemsize != _sre.CODESIZE:  # code words this module cannot write
        return None
    return _beside_bytecode(f".sre{_sre.MAGIC}-{_sre.CODESIZE}")


def _beside_bytecode(suffix: str) -> Path | None:
    """This module's bytecode file with ``suffix`` for its own (None: an interpreter without
    bytecode caching)."""
    try:
        bytecode = importlib.util.cache_from_source(__file__)
    except NotImplementedError:
        return None
    return Path(bytecode).with_suffix(suffix)


def _read(path: Path | None) -> dict[Any, Any]:
    """A kept file's dict, or an empty one (no file, a damaged one)."""
    if path is None:
        return {}
    try:
        kept = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return kept if isinstance(kept, dict) else {}


PATH = _kept_path()
"""Where this Python keeps the code (None: an interpreter without bytecode caching)."""
_kept = _read(PATH)
"""The kept code not used yet (each entry is dropped once built: ~0.3 MiB a server holds
no longer)."""
_built_here: dict[tuple[str, int], re.Pattern[str]] = {}
"""The patterns this process built from kept code."""
_fresh: dict[tuple[str, int], re.Pattern[str]] = {}
"""The patterns it compiled: their code is worked out only when it is kept."""


def re_compile(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from the code a previous process kept if it has it."""
    key = (pattern, int(flags))
    done = _built_here.get(key) or _fresh.get(key)
    if done is not None:  # patterns are immutable: one object serves every module asking
        return done
    code = _kept.pop(key, None)
    if code is not None:
        try:
            _built_here[key] = _built(pattern, code)
        except (RuntimeError, TypeError, ValueError, OverflowError):
            pass  # code this Python does not accept: compile it anew below
        else:
            return _built_here[key]
    _keep_later()
    _fresh[key] = re.compile(pattern, flags)
    return _fresh[key]


def _code_of(pattern: str, flags: int) -> Code | None:
    """What ``re``'s compiler hands ``_sre.compile`` for ``pattern`` (None if it cannot
    be had: another Python's compiler, a debugging flag)."""
    if flags & re.DEBUG:
        return None
    try:
        parsed: Any = _parser.parse(pattern, flags)
        code = array("I", _compiler._code(parsed, flags)).tobytes()
        names: dict[str, int] = dict(parsed.state.groupdict)
    except Exception:  # noqa: BLE001 — anything from `re`'s internals means: no kept code
        return None
    by_index: list[str | None] = [None] * parsed.state.groups
    for name, index in names.items():
        by_index[index] = name
    return (flags | parsed.state.flags, code, parsed.state.groups - 1, names,
            tuple(by_index))


def _built(pattern: str, code: Code) -> re.Pattern[str]:
    flags, words, groups, names, by_index = code
    built: re.Pattern[str] = _sre.compile(pattern, flags, array("I", words).tolist(), groups,
                                          names, by_index)
    return built


_exit_registered: list[bool] = []


def _keep_later() -> None:
    """Keep what this process compiles when it exits (once registered)."""
    if not _exit_registered:
        _exit_registered.append(True)
        atexit.register(_keep_at_exit)


def _keep_at_exit() -> None:
    if sys.dont_write_bytecode:
        return
    if _fresh:
        keep()
    if _fresh_methods:
        keep_methods()


def keep() -> Path | None:
    """Write the kept code now, bytecode written or not (``flowctl build`` does, for images
    run with ``PYTHONDONTWRITEBYTECODE``): what the file holds, with the code of every
    pattern this process compiled — or, past MAX_KEPT, only the patterns this process used.
    Atomic; the file, or None when its directory cannot be written."""
    if PATH is None:
        return None
    kept = _read(PATH)
    for key, compiled in _fresh.items():
        code = _code_of(*key)
        if code is not None and _built(key[0], code) == compiled:
            kept[key] = code  # what `re` compiled, to the same code: keep it
    if len(kept) > MAX_KEPT:
        kept = {key: code for key, code in kept.items() if key in _fresh or key in _built_here}
    return _write(PATH, kept)


def _write(path: Path, kept: dict[Any, Any]) -> Path | None:
    """``kept`` marshalled to ``path``, atomically; None when it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    except OSError:
        return None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(marshal.dumps(kept))
        os.chmod(tmp, 0o644)  # as bytecode is: readable by whoever runs the engine
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return None
    return path


def stats() -> dict[str, int]:
    """How this process came by its patterns: built from kept code, or compiled anew."""
    return {"kept": len(_built_here), "compiled": len(_fresh)}


def _methods_path() -> Path | None:
    """The file beside this module's bytecode, named for this Python's bytecode."""
    return _beside_bytecode(f".methods-{importlib.util.MAGIC_NUMBER.hex()}")


def _read_methods(path: Path | None) -> dict[bytes, list[Any]]:
    """The kept file: a source's digest -> [how many classes a process made with it, its
    code marshalled]."""
    return {k: [v[0], v[1]] for k, v in _read(path).items() if isinstance(k, bytes) and
            isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], int) and
            isinstance(v[1], bytes)}


METHODS_PATH = _methods_path()
_kept_methods: dict[bytes, list[Any]] = {}
"""The kept code not used up yet: an entry goes once as many classes as the process that
kept it made with it have been made (a server holds none of it once its modules are in)."""
_uses: collections.Counter[bytes] = collections.Counter()
_methods_here: set[bytes] = set()
_fresh_methods: dict[bytes, bytes] = {}


def keep_dataclass_methods() -> None:
    """From now on, build the methods of the engine's dataclasses (those of modules under
    ``engine.``) from kept code where there is some: ``dataclasses`` runs each method's
    source through the name ``exec``, which this module's ``_exec`` now answers."""
    if getattr(dataclasses, "exec", None) is not None:
        return  # already done
    _kept_methods.update(_read_methods(METHODS_PATH))
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # a module global before the builtin


def _exec(source: Any, globals: dict[str, Any] | None = None,
          locals: dict[str, Any] | None = None) -> None:
    """``exec(source, globals, locals)``; for an engine module's method source, by the code
    kept for it, else by compiling it (with no ``__future__`` flags, as ``dataclasses``'
    own ``exec`` does) and keeping that."""
    if not isinstance(source, str):
        exec(source, globals, locals)  # noqa: S102 — what dataclasses asked for, unchanged
        return
    if not str((globals or {}).get("__name__", "")).startswith("engine."):  # not kept
        exec(compile(source, "<string>", "exec", dont_inherit=True), globals, locals)  # noqa: S102
        return
    key = hashlib.blake2b(source.encode(), digest_size=16).digest()
    _uses[key] += 1
    code = _kept_code(key) or _loaded(_fresh_methods.get(key))  # classes share sources
    if code is None:
        _keep_later()
        code = compile(source, "<string>", "exec", dont_inherit=True)
        _fresh_methods[key] = marshal.dumps(code)
    exec(code, globals, locals)  # noqa: S102


def _kept_code(key: bytes) -> CodeType | None:
    entry = _kept_methods.get(key)
    if entry is None:
        return None
    entry[0] -= 1
    if entry[0] <= 0:
        del _kept_methods[key]
    code = _loaded(entry[1])
    if code is not None:
        _methods_here.add(key)
    return code


def _loaded(blob: bytes | None) -> CodeType | None:
    try:
        code = marshal.loads(blob) if blob is not None else None
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def keep_methods() -> Path | None:
    """Write the kept method code now: the file's, with what this process compiled (past
    MAX_KEPT entries, only what this process used); the file, or None."""
    if METHODS_PATH is None or not _fresh_methods:
        return METHODS_PATH if METHODS_PATH is not None and METHODS_PATH.exists() else None
    kept = {key: tuple(entry) for key, entry in _read_methods(METHODS_PATH).items()}
    kept.update({key: (_uses[key], blob) for key, blob in _fresh_methods.items()})
    if len(kept) > MAX_KEPT:
        kept = {k: v for k, v in kept.items() if k in _uses}
    return _write(METHODS_PATH, kept)


def method_stats() -> dict[str, int]:
    """How this process came by its dataclasses' methods: from kept code, or compiled."""
    return {"kept": len(_methods_here), "compiled": len(_fresh_methods)}
