"""(a file's old text, its new text) -> a unified diff, cut to a bounded size.

A workspace ``apply`` reports what each write changed as a unified diff (``difflib``), so
a run's log and the playground's Runs panel show a change as a diff rather than a whole
file. A diff is data a browser renders and a run's log keeps for ever, so it is bounded:
at most ``MAX_DIFF_CHARS`` characters per file and ``MAX_DIFFS_CHARS`` for one change set;
a longer one is cut at a line and ends with a line saying so.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from pathlib import Path

MAX_DIFF_CHARS = 8 * 1024
"""Most characters of one file's diff."""
MAX_DIFFS_CHARS = 32 * 1024
"""Most characters of all the diffs of one change set together."""
CONTEXT_LINES = 3
CUT = (f"... (diff cut: at most {MAX_DIFF_CHARS} characters of a file's diff and "
       f"{MAX_DIFFS_CHARS} of a change set's are shown)\n")
NEW_FILE = "/dev/null"


def unified_diff(path: str, old: str | None, new: str, *, limit: int = MAX_DIFF_CHARS) -> str:
    """The diff of ``path`` from ``old`` (None: the file is new) to ``new``; ``""`` when
    nothing changed.

    >>> print(unified_diff("calc.py", "return a - b\\n", "return a + b\\n"), end="")
    --- a/calc.py
    +++ b/calc.py
    @@ -1 +1 @@
    -return a - b
    +return a + b
    """
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True), new.splitlines(keepends=True),
        fromfile=NEW_FILE if old is None else f"a/{path}", tofile=f"b/{path}",
        n=CONTEXT_LINES)
    return _bounded(lines, limit)


def _bounded(lines: Iterable[str], limit: int) -> str:
    """The lines joined (each ending in a newline), cut at a line before ``limit``."""
    kept: list[str] = []
    size = 0
    for line in lines:
        text = line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n"
        if size + len(text) > limit:
            kept.append(CUT)
            break
        kept.append(text)
        size += len(text)
    return "".join(kept)


def read_old(path: Path, max_bytes: int) -> str | None:
    """The text ``path`` holds before a write (None when there is no file), read without
    following a symlink; a file over ``max_bytes`` is not compared line by line."""
    try:
        with open(path, "rb", opener=_no_follow) as old:
            data = old.read(max_bytes + 1)
    except FileNotFoundError:
        return None
    except OSError:
        return ""  # not a readable file (a directory, a symlink): the write says why
    if len(data) > max_bytes:
        return f"(more than {max_bytes} bytes before this change: not compared)\n"
    return data.decode("utf-8", errors="replace")


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))


__all__ = ["CUT", "MAX_DIFFS_CHARS", "MAX_DIFF_CHARS", "read_old", "unified_diff"]
