"""A knowledge directory -> its markdown files -> heading-sized chunks with their sources.

The directory is named by the flow file, relative to it, and must stay inside the flow's
directory tree: no absolute path, no ``..``, and no file reached through a symbolic link
that points outside. A chunk is the text under one heading (split further at blank lines
when long), with its heading path ("배송 > 제주·도서산간") and its first line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

SUFFIXES = (".md", ".markdown")
MAX_CHUNK_CHARS = 1500
HEADING_SEPARATOR = " > "


class KnowledgeDirError(ValueError):
    """A knowledge directory that is not allowed or not there; the message says why."""


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A markdown file of a knowledge directory, as its index remembers it."""

    name: str
    """Its path relative to the knowledge directory, with ``/`` (``policies/refund.md``)."""
    path: Path
    size: int


@dataclass(frozen=True, slots=True)
class Chunk:
    source: str
    heading: str
    text: str
    line: int
    """The 1-based line of the file where the chunk starts."""


def knowledge_dir(base: Path, written: str) -> Path:
    """The directory ``written`` names relative to the flow's directory ``base``; raises
    KnowledgeDirError when it is absolute, leaves ``base`` or is not a directory."""
    pure = PurePosixPath(written.replace("\\", "/"))
    if pure.is_absolute() or (written[1:2] == ":"):
        raise KnowledgeDirError("an absolute path is not allowed; name a directory relative "
                                "to the flow file")
    if ".." in pure.parts:
        raise KnowledgeDirError("`..` is not allowed; the knowledge must be inside the flow "
                                "file's directory")
    root = base.resolve()
    found = (root / pure).resolve()
    if not found.is_relative_to(root):
        raise KnowledgeDirError("it leads outside the flow file's directory (a symbolic link)")
    if not found.is_dir():
        raise KnowledgeDirError("no such directory")
    return found


def source_files(directory: Path, base: Path) -> list[SourceFile]:
    """The markdown files under ``directory`` in name order; files and directories whose
    name starts with a dot, and links leading outside ``base``, are left out."""
    root = base.resolve()
    out = []
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.suffix.lower() not in SUFFIXES or not path.is_file():
            continue
        if not path.resolve().is_relative_to(root):
            continue
        out.append(SourceFile(relative.as_posix(), path, path.stat().st_size))
    return out


def read_chunks(files: Iterable[SourceFile]) -> Iterator[Chunk]:
    """Every chunk of ``files``, in file and line order."""
    from markdown_it import MarkdownIt  # only when indexing: a server never parses markdown

    parser = MarkdownIt("commonmark").disable("inline")  # blocks are enough: 4x faster
    for file in files:
        text = file.path.read_text(encoding="utf-8", errors="replace")
        yield from _file_chunks(parser, file.name, text)


def _file_chunks(parser: MarkdownIt, source: str, text: str) -> Iterator[Chunk]:
    lines = text.splitlines()
    headings = _headings(parser, text)  # (line index, level, title)
    starts = [(0, 0, "")] + headings if not headings or headings[0][0] > 0 else headings
    trail: list[tuple[int, str]] = []
    for i, (start, level, title) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(lines)
        if level:
            trail = [(lv, t) for lv, t in trail if lv < level] + [(level, title)]
        body_start = start + 1 if level else start
        heading = HEADING_SEPARATOR.join(t for _, t in trail)
        for offset, part in _parts(lines[body_start:end]):
            yield Chunk(source, heading, part, body_start + offset + 1)


def _headings(parser: MarkdownIt, text: str) -> list[tuple[int, int, str]]:
    """(line index, level, title) of every heading (not ``#`` lines inside code blocks)."""
    tokens = parser.parse(text)
    out = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.map is not None:
            title = tokens[i + 1].content.strip() if i + 1 < len(tokens) else ""  # as written
            out.append((token.map[0], int(token.tag[1:]), title))
    return out


def _parts(lines: list[str]) -> Iterator[tuple[int, str]]:
    """The text of ``lines`` in pieces of at most MAX_CHUNK_CHARS, cut at a blank line
    once a piece is half full; (line offset, text), empty pieces left out."""
    piece: list[str] = []
    first, size = 0, 0
    for i, line in enumerate(lines):
        blank = not line.strip()
        if not piece and blank:
            continue
        if not piece:
            first = i
        if (blank and size >= MAX_CHUNK_CHARS // 2) or size + len(line) >= MAX_CHUNK_CHARS:
            yield first, "\n".join(piece).strip()[:MAX_CHUNK_CHARS]
            piece, size, first = ([], 0, i) if blank else ([line], len(line) + 1, i)
            continue
        piece.append(line)
        size += len(line) + 1
    if "\n".join(piece).strip():
        yield first, "\n".join(piece).strip()[:MAX_CHUNK_CHARS]


__all__ = ["HEADING_SEPARATOR", "MAX_CHUNK_CHARS", "SUFFIXES", "Chunk", "KnowledgeDirError",
           "SourceFile", "knowledge_dir", "read_chunks", "source_files"]
