"""(workspace root, relative paths or globs) -> file contents read, or file changes written.

Every path is checked before anything is read or written: it must be relative, free of
``..``, and still inside the root once symlinks are resolved; a change set is checked
whole (count, sizes, every path) before its first file is written, and files are opened
with ``O_NOFOLLOW`` so a symlink swapped in after the check is not followed either.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from engine.workspace.diffs import MAX_DIFF_CHARS, MAX_DIFFS_CHARS, read_old, unified_diff

MAX_FILES = 50
"""Most files one read returns or one change set writes."""
MAX_FILE_BYTES = 256 * 1024
"""Largest file one read returns or one change writes (UTF-8 bytes)."""


class WorkspaceError(ValueError):
    """A path or change the workspace refuses; the message says which and why."""


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str
    content: str


class Workspace:
    """Files under ``root``, read and written only through checked relative paths.

    >>> import tempfile; ws = Workspace(tempfile.mkdtemp())
    >>> ws.apply([{"path": "pkg/a.py", "content": "x = 1\\n"}])["applied"]
    ['pkg/a.py']
    >>> print(ws.apply([{"path": "pkg/a.py", "content": "x = 2\\n"}])["changes"][0]["diff"])
    --- a/pkg/a.py
    +++ b/pkg/a.py
    @@ -1 +1 @@
    -x = 1
    +x = 2
    <BLANKLINE>
    >>> ws.resolve("../outside.txt")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    WorkspaceError: path `../outside.txt` has `..`; paths stay inside the workspace root
    """

    __slots__ = ("root", "max_files", "max_bytes")

    def __init__(self, root: str | Path, *, max_files: int = MAX_FILES,
                 max_bytes: int = MAX_FILE_BYTES) -> None:
        self.root = Path(root).resolve(strict=True)
        if not self.root.is_dir():
            raise WorkspaceError(f"workspace root {root} is not a directory")
        self.max_files = min(max_files, MAX_FILES)
        self.max_bytes = min(max_bytes, MAX_FILE_BYTES)

    def resolve(self, raw: object) -> Path:
        """The absolute path of ``raw`` inside the root; WorkspaceError when it is not."""
        if not isinstance(raw, str) or not raw.strip():
            raise WorkspaceError(f"path {raw!r} is not a relative file path")
        text = raw.replace("\\", "/")
        pure = PurePosixPath(text)
        if "\0" in text or pure.is_absolute() or text.startswith("~"):
            raise WorkspaceError(f"path `{raw}` is absolute; give it relative to the "
                                 "workspace root")
        if ".." in pure.parts:
            raise WorkspaceError(f"path `{raw}` has `..`; paths stay inside the workspace root")
        resolved = (self.root / pure).resolve(strict=False)
        if not resolved.is_relative_to(self.root) or resolved == self.root:
            raise WorkspaceError(f"path `{raw}` leads out of the workspace root (through a "
                                 "symlink)")
        return resolved

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def read(self, patterns: Sequence[str]) -> list[dict[str, str]]:
        """Files matching the globs (relative to the root), sorted, each ``{path, content}``."""
        found: dict[str, Path] = {}
        for pattern in patterns:
            check_glob(pattern)
            for candidate in sorted(self.root.glob(pattern)):
                path = self.resolve(candidate.relative_to(self.root).as_posix())
                if path.is_file():
                    found.setdefault(self.relative(path), path)
        if len(found) > self.max_files:
            raise WorkspaceError(f"{len(found)} files match {list(patterns)}; at most "
                                 f"{self.max_files} are read")
        return [{"path": rel, "content": self._read_one(rel, path)}
                for rel, path in sorted(found.items())]

    def _read_one(self, rel: str, path: Path) -> str:
        size = path.stat().st_size
        if size > self.max_bytes:
            raise WorkspaceError(f"file `{rel}` has {size} bytes; at most {self.max_bytes} "
                                 "are read")
        return path.read_bytes().decode("utf-8", errors="replace")

    def apply(self, raw_changes: object, *,
              allowed: Sequence[str] = ()) -> dict[str, Any]:
        """Write every change (``[{path, content}, ...]``) after checking them all; the
        paths must match one of the ``allowed`` globs when there are any.

        The result: ``{applied: [paths], count, changes: [{path, diff}]}``, each ``diff``
        the unified diff of that write (bounded: see ``engine.workspace.diffs``)."""
        changes = self.check(raw_changes, allowed=allowed)
        budget = MAX_DIFFS_CHARS
        diffs: list[dict[str, str]] = []
        for change, path in changes:
            old = read_old(path, self.max_bytes)
            path.parent.mkdir(parents=True, exist_ok=True)
            _write(path, change.content.encode("utf-8"))
            diff = unified_diff(change.path, old, change.content,
                                limit=min(MAX_DIFF_CHARS, budget))
            budget = max(budget - len(diff), 0)
            diffs.append({"path": change.path, "diff": diff})
        return {"applied": [c.path for c, _ in changes], "count": len(changes),
                "changes": diffs}

    def check(self, raw_changes: object, *,
              allowed: Sequence[str] = ()) -> list[tuple[FileChange, Path]]:
        if not isinstance(raw_changes, list):
            raise WorkspaceError("changes must be a list of {path, content} objects, got "
                                 f"{type(raw_changes).__name__}")
        if len(raw_changes) > self.max_files:
            raise WorkspaceError(f"{len(raw_changes)} changes; at most {self.max_files} "
                                 "files are written at once")
        return [self._checked(i, raw, allowed) for i, raw in enumerate(raw_changes, 1)]

    def _checked(self, number: int, raw: object,
                 allowed: Sequence[str]) -> tuple[FileChange, Path]:
        if not isinstance(raw, dict) or not isinstance(raw.get("path"), str) \
                or not isinstance(raw.get("content"), str):
            raise WorkspaceError(f"change {number} is not a {{path, content}} object with "
                                 "text values")
        change = FileChange(raw["path"], raw["content"])
        try:
            path = self.resolve(change.path)
        except WorkspaceError as err:
            raise WorkspaceError(f"change {number}: {err}") from None
        size = len(change.content.encode("utf-8"))
        if size > self.max_bytes:
            raise WorkspaceError(f"change {number}: `{change.path}` would have {size} bytes; "
                                 f"at most {self.max_bytes} are written")
        rel = self.relative(path)
        if allowed and not any(fnmatch.fnmatchcase(rel, g) for g in allowed):
            raise WorkspaceError(f"change {number}: `{change.path}` matches none of the "
                                 f"files this action may write ({', '.join(allowed)})")
        return change, path


def check_glob(pattern: str) -> str:
    """``pattern`` when it is a relative glob without ``..``; WorkspaceError otherwise.

    The compiler runs it on a flow's globs too, so a bad one is a located finding."""
    pure = PurePosixPath(pattern.replace("\\", "/"))
    if not pattern.strip() or pure.is_absolute() or pattern.startswith("~"):
        raise WorkspaceError(f"glob `{pattern}` is not relative to the workspace root")
    if ".." in pure.parts:
        raise WorkspaceError(f"glob `{pattern}` has `..`; files stay inside the workspace root")
    return pattern


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` without following a symlink at ``path``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as err:
        raise WorkspaceError(f"cannot write `{path.name}`: {err.strerror}") from None
    with os.fdopen(fd, "wb") as out:
        out.write(data)


__all__ = ["MAX_FILES", "MAX_FILE_BYTES", "FileChange", "Workspace", "WorkspaceError",
           "check_glob"]
