"""Text -> index terms: character bigrams inside runs of CJK characters, lower-cased words
elsewhere; a query -> an FTS5 ``MATCH`` expression over the same terms.

Korean attaches particles and endings to words ("노트북을", "환불은", "추천해줘"), and many
Korean nouns are two syllables ("가방", "환불"). A word tokenizer then misses most matches,
and FTS5's ``trigram`` tokenizer cannot match a two-syllable word at all. Overlapping
bigrams match both (bench/retrieval_ko.py measures the three; docs/performance.md).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

from engine.precompiled import re_compile

# Hangul syllables and jamo, kana, CJK ideographs: scripts written without spaces between
# the parts of a phrase, indexed as overlapping character pairs
_CJK = re_compile(r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
                  r"\uac00-\ud7af\uf900-\ufaff]+")
_WORD = re_compile(r"[^\W_]+")
MAX_QUERY_TERMS = 64


def terms(text: str) -> Iterator[str]:
    """The index terms of ``text``, in order.

    >>> list(terms("노트북을 추천 USB-C"))
    ['노트', '트북', '북을', '추천', 'usb', 'c']
    """
    for word in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        position = 0
        for run in _CJK.finditer(word):
            if run.start() > position:
                yield word[position:run.start()]
            yield from _bigrams(run.group())
            position = run.end()
        if position < len(word):
            yield word[position:]


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


def analysed(text: str) -> str:
    """``text`` as the space-separated terms the index stores."""
    return " ".join(terms(text))


def match_expression(query: str) -> str | None:
    """An FTS5 query matching any of ``query``'s terms (bm25 ranks those with more and
    rarer terms first); None when the query has no terms. Each term is quoted, so nothing
    a user types is read as FTS5 syntax.

    >>> match_expression('환불 "AND" 기간')
    '"환불" OR "and" OR "기간"'
    """
    unique = list(dict.fromkeys(terms(query)))[:MAX_QUERY_TERMS]
    if not unique:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in unique)


__all__ = ["MAX_QUERY_TERMS", "analysed", "match_expression", "terms"]
