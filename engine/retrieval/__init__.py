"""A service's knowledge: markdown files -> a SQLite FTS5 index -> ranked hits for a query.

``documents`` reads a knowledge directory (confined to the flow's directory tree) into
heading-sized chunks; ``analyzer`` turns text into index terms (character bigrams for
Korean and other CJK text, words otherwise); ``index`` builds, checks and searches the
index. Imports nothing from the compiler or the runtime: both use it.
"""

from engine.retrieval.documents import (
    Chunk,
    KnowledgeDirError,
    SourceFile,
    knowledge_dir,
    read_chunks,
    source_files,
)
from engine.retrieval.index import (
    MAX_BYTES,
    Hit,
    KnowledgeIndex,
    build_index,
    ensure_index,
    index_path,
    staleness,
)

__all__ = ["MAX_BYTES", "Chunk", "Hit", "KnowledgeDirError", "KnowledgeIndex",
           "SourceFile", "build_index", "ensure_index", "index_path", "knowledge_dir",
           "read_chunks", "source_files", "staleness"]
