"""Map a YAML path (``("flows", "transfer", "stages", "READY")``) to its line:column.

The loader fills a ``SourceMap`` while it builds plain Python data from YAML nodes; every
later stage (schema, spec, compiler, lint) reports problems through ``SourceMap.locate``
so the author always gets ``file:line:col`` and the offending source line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.errors import Finding, Severity, SourceLocation
from engine.precompiled import re_compile

Path = tuple[str | int, ...]


_KEY_LIKE = re_compile(r"[A-Za-z_][\w-]*")


@dataclass(slots=True)
class SourceMap:
    """Positions of the nodes of one YAML file, keyed by their path from the root."""

    file: str
    lines: list[str]
    values: dict[Path, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Path, tuple[int, int]] = field(default_factory=dict)
    yaml11_bools: dict[Path, str] = field(default_factory=dict)
    """Paths whose unquoted scalar (on/off/yes/no) YAML 1.1 turned into a boolean."""

    def locate(self, path: Path, *, key: bool = False) -> SourceLocation:
        """The position of ``path`` (its key when ``key``), or of its nearest known parent."""
        table = self.keys if key else self.values
        for end in range(len(path), -1, -1):
            prefix = path[:end]
            hit = table.get(prefix) or self.keys.get(prefix) or self.values.get(prefix)
            if hit is not None:
                return SourceLocation(self.file, hit[0], hit[1])
        return SourceLocation(self.file, 1, 1)

    def finding(
        self,
        path: Path,
        message: str,
        *,
        code: str = "FL000",
        key: bool = False,
        hint: str | None = None,
        severity: Severity = "error",
    ) -> Finding:
        """A ``Finding`` located at ``path``, carrying the source line for display."""
        location = self.locate(path, key=key)
        return Finding(location, message, code, severity, hint, self.line(location.line))

    def cut_at_comma(self, path: Path) -> str | None:
        """The hint for an unknown key at ``path`` that is no key but the rest of a value
        YAML cut at a comma inside ``{...}`` — ``{say: It costs 30,000 won}`` reads as the
        keys ``say`` and ``000 won``, ``{reprompt: Hi, there}`` as ``reprompt`` and a
        ``there`` with no colon after it — or None for what looks like a key someone meant."""
        key = path[-1] if path else None
        if not isinstance(key, str):
            return None
        if _KEY_LIKE.fullmatch(key) and self._has_colon(path, key):
            return None
        return (f"`{key}` looks like the rest of a value cut at a comma: inside {{...}} a "
                "comma separates keys, so put the whole value in quotes ('…, …')")

    def _has_colon(self, path: Path, key: str) -> bool:
        """Whether the key at ``path`` is written with a colon after it (unknown: True)."""
        hit = self.keys.get(path)
        text = self.line(hit[0]) if hit else None
        if hit is None or text is None:
            return True
        after = text[hit[1] - 1:].lstrip("'\"")
        after = after[len(key):].lstrip("'\" ") if after.startswith(key) else ":"
        return after.startswith(":")

    def line(self, number: int) -> str | None:
        """The text of line ``number`` (1-based), or None past the end."""
        return self.lines[number - 1] if 0 < number <= len(self.lines) else None


def dotted(path: Path) -> str:
    """``("flows", "transfer", "stages", 0)`` -> ``flows.transfer.stages[0]``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
