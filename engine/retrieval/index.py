"""Markdown chunks -> a SQLite FTS5 index file -> an in-memory copy that answers queries.

``flowctl index FLOW`` (or the compiler, when a flow's index is missing) builds the index
into ``.flowctl/index/`` beside the flow file, atomically (written aside, then renamed), so
a server reading the old one is never disturbed. The index remembers a hash of each source
file, so lint can say when it is older than its sources. A compiled service searches an
in-memory copy: a query does no file I/O and takes well under a millisecond on a catalogue
of a few hundred chunks.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.precompiled import re_compile
from engine.retrieval.analyzer import analysed, match_expression
from engine.retrieval.documents import HEADING_SEPARATOR, SourceFile, read_chunks, source_files

FORMAT = "flowctl-knowledge-2"
"""Changes whenever the analyzer or the tables change: an index of another format is
rebuilt, never read."""
MAX_BYTES = 1024 * 1024
"""Beyond this, lint warns (FL108): the index is built at compile time (about 1.2 s per
MiB) and kept in memory (about 4 MiB per MiB of markdown; bench/retrieval_ko.py)."""
HEADING_WEIGHT, FACTS_WEIGHT, BODY_WEIGHT = 3.0, 3.0, 1.0
"""How much a query's term counts in a chunk's heading, in its facts (list items that name
a field: "- 카테고리: 노트북") and in the rest of it: a laptop's category outranks a power
bank's "노트북도 충전" (bm25 measures a chunk's length over all three, so a fact must weigh
as a heading does for a long document to outrank a short one that only mentions it)."""
_FACT = re_compile(r"^[ \t]*[-*+][ \t]+[^:\n]{1,40}:[ \t]*\S.*$", re.MULTILINE)

_SCHEMA = (
    "CREATE VIRTUAL TABLE chunks USING fts5(h, f, b, source UNINDEXED, heading UNINDEXED, "
    "text UNINDEXED, line UNINDEXED, tokenize = 'unicode61 remove_diacritics 0')",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


@dataclass(frozen=True, slots=True)
class Hit:
    """One retrieved chunk; templates see it as a mapping with these keys."""

    text: str
    source: str
    heading: str
    score: float
    line: int

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "source": self.source, "heading": self.heading,
                "score": self.score, "line": self.line}


def index_path(base: Path, directory: Path) -> Path:
    """Where the index of knowledge ``directory`` (inside ``base``) is kept."""
    relative = directory.resolve().relative_to(base.resolve()).as_posix()
    name = "_root" if relative == "." else relative.replace("/", "__")
    return base / ".flowctl" / "index" / f"{name}.sqlite"


def build_index(files: Iterable[SourceFile], target: Path) -> int:
    """Write the index of ``files`` to ``target`` (replacing it atomically); the number of
    chunks. Raises OSError when ``target``'s directory cannot be written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=".index-", suffix=".tmp", dir=target.parent)
    os.close(handle)
    try:
        conn = sqlite3.connect(temp)
        try:
            count = _fill(conn, list(files))
        finally:
            conn.close()
        os.chmod(temp, 0o644)  # mkstemp's 0600 would hide it from a server of another user
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return count


def _fill(conn: sqlite3.Connection, files: list[SourceFile]) -> int:
    with conn:
        for statement in _SCHEMA:
            conn.execute(statement)
        rows = [(analysed(c.heading), *_fields(c.text), c.source, c.heading, c.text, c.line)
                for c in read_chunks(files)]
        conn.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        conn.executemany("INSERT INTO meta VALUES (?, ?)", [
            ("format", FORMAT), ("sources", json.dumps(_listing(files)))])
        conn.execute("INSERT INTO chunks(chunks) VALUES ('optimize')")
    return len(rows)


def _fields(text: str) -> tuple[str, str]:
    """A chunk's facts and the rest of its text, each as index terms.

    >>> _fields("- 카테고리: 노트북\\n\\n노트북도 충전")
    ('카테 테고 고리 노트 트북', '노트 트북 북도 충전')
    """
    facts = "\n".join(m.group() for m in _FACT.finditer(text))
    return analysed(facts), analysed(_FACT.sub("", text))


def _listing(files: Iterable[SourceFile]) -> dict[str, str]:
    """Each file's content hash: a copy or a fresh checkout (new modification times) of the
    same documents is not stale."""
    return {f.name: hashlib.sha256(f.path.read_bytes()).hexdigest() for f in files}


def _meta(conn: sqlite3.Connection) -> dict[str, str]:
    try:
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError:
        return {}


def _read_meta(path: Path) -> dict[str, str] | None:
    """The index file's meta table; None when there is no readable index of this format."""
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        meta = _meta(conn)
    finally:
        conn.close()
    return meta if meta.get("format") == FORMAT else None


def staleness(path: Path, files: Iterable[SourceFile]) -> str | None:
    """Why the index at ``path`` does not match ``files`` (None: it does)."""
    meta = _read_meta(path)
    if meta is None:
        return "it has not been built yet"
    stored: dict[str, str] = json.loads(meta.get("sources", "{}"))
    now = _listing(files)
    changed = sorted(n for n in now if n in stored and stored[n] != now[n])
    added = sorted(set(now) - set(stored))
    removed = sorted(set(stored) - set(now))
    parts = [f"{what} {', '.join(names[:3])}" + (f" and {len(names) - 3} more"
                                                  if len(names) > 3 else "")
             for names, what in ((changed, "changed"), (added, "added"), (removed, "removed"))
             if names]
    return "; ".join(parts) or None


class KnowledgeIndex:
    """An index loaded into memory; ``search`` is safe from any thread."""

    __slots__ = ("_conn", "_lock", "chunks")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self.chunks: int = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]

    def __reduce__(self) -> tuple[Callable[[bytes], KnowledgeIndex], tuple[bytes]]:
        """Pickled as the database's bytes (a built flow carries its indexes)."""
        with self._lock:
            return _from_bytes, (self._conn.serialize(),)

    @classmethod
    def load(cls, path: Path) -> KnowledgeIndex:
        """A copy in memory of the index file at ``path``."""
        memory = sqlite3.connect(":memory:", check_same_thread=False)
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            source.backup(memory)
        finally:
            source.close()
        return cls(memory)

    @classmethod
    def of(cls, files: Iterable[SourceFile]) -> KnowledgeIndex:
        """An index built in memory only (when the flow's directory cannot be written)."""
        memory = sqlite3.connect(":memory:", check_same_thread=False)
        _fill(memory, list(files))
        return cls(memory)

    def titles(self) -> list[str]:
        """Each document's title (the first heading of its first chunk), in file order."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT source, heading FROM chunks ORDER BY rowid").fetchall()
        first: dict[str, str] = {}
        for source, heading in rows:
            first.setdefault(source, heading.split(HEADING_SEPARATOR)[0].strip())
        return [title for title in first.values() if title]

    def search(self, query: str, top_k: int) -> list[Hit]:
        """The ``top_k`` best chunks for ``query`` by bm25 (headings weigh most, then facts)."""
        expression = match_expression(query)
        if expression is None or top_k < 1:
            return []
        with self._lock:
            rows = self._conn.execute(
                "SELECT text, source, heading, bm25(chunks, ?, ?, ?) AS rank, line FROM chunks "
                "WHERE chunks MATCH ? ORDER BY rank LIMIT ?",
                (HEADING_WEIGHT, FACTS_WEIGHT, BODY_WEIGHT, expression, top_k)).fetchall()
        return [Hit(text, source, heading, round(-rank, 4), int(line))
                for text, source, heading, rank, line in rows]


def _from_bytes(data: bytes) -> KnowledgeIndex:
    memory = sqlite3.connect(":memory:", check_same_thread=False)
    memory.deserialize(data)
    return KnowledgeIndex(memory)


def ensure_index(directory: Path, base: Path) -> KnowledgeIndex:
    """The index of ``directory``: the file as it is when one exists (lint says when it is
    stale), else built now; in memory only when the file cannot be written."""
    path = index_path(base, directory)
    if _read_meta(path) is None:
        files = source_files(directory, base)
        try:
            build_index(files, path)
        except OSError:
            return KnowledgeIndex.of(files)
    return KnowledgeIndex.load(path)


__all__ = ["BODY_WEIGHT", "FACTS_WEIGHT", "FORMAT", "HEADING_WEIGHT", "MAX_BYTES", "Hit",
           "KnowledgeIndex", "build_index", "ensure_index", "index_path",
           "staleness"]
