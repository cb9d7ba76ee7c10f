"""Message + known names (a catalogue's titles) -> the one name the message mentions.

A name is found when the message holds a run of its words, in order: the whole name, or
two or more of its words that make at least half of it ("로지텍 MX Keys" for "로지텍 MX
Keys Mini", "에어팟 프로" for "애플 에어팟 프로 2"). Words compare casefolded; a Korean
particle glued to a message word is left out ("에어팟 프로를"). The name with the longest
run wins; two names found by runs as long give nothing ("로지텍 MX" is two products), nor
do two names said apart ("갤럭시 버즈3하고 소니 WF-1000XM5": which one?).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.precompiled import re_compile

from .spans import Match
from .words import normalise

_WORD = re_compile(r"\S+")
_PARTICLE = re_compile(r"(?:은|는|이|가|을|를|도|만|으로|로|와|과|랑|이랑|하고|하구|요|이요)$")


def find_known(text: str, names: Sequence[str]) -> list[Match]:
    """The known name ``text`` mentions (at most one), as a Match over the words it used.

    >>> [m.value for m in find_known("로지텍 MX Keys 1개 담아줘", ["로지텍 MX Keys Mini",
    ...                                                        "로지텍 MX Master 3S"])]
    ['로지텍 MX Keys Mini']
    >>> find_known("로지텍 MX 담아줘", ["로지텍 MX Keys Mini", "로지텍 MX Master 3S"])
    []
    >>> find_known("갤럭시 버즈3하고 소니 WF-1000XM5", ["갤럭시 버즈3", "소니 WF-1000XM5"])
    []
    """
    words = [(m.start(), m.end(), part) for m in _WORD.finditer(text)
             for part in normalise(m.group()).split()]  # "WF-1000XM5": wf, 1000xm5
    best: list[tuple[int, str, int, int]] = []  # (run length, name, start, end)
    for name in names:
        parts = normalise(name).split()
        run = _longest_run(words, parts)
        if run is None:
            continue
        length, start, end = run
        if length == len(parts) or (length >= 2 and 2 * length >= len(parts)):
            best.append((length, name, start, end))
    if not best:
        return []
    top = max(b[0] for b in best)
    found = [b for b in best if b[0] == top]
    if len(found) > 1:
        return []
    _, name, start, end = found[0]
    if any(e <= start or end <= s for _, _, s, e in best):
        return []  # another name said apart from it: "버즈3하고 소니 WF-1000XM5", which one?
    return [Match(name, start, end, text[start:end])]


def _longest_run(words: list[tuple[int, int, str]],
                 parts: list[str]) -> tuple[int, int, int] | None:
    """(words, start, end) of the longest run of ``parts`` said in order in ``words``."""
    best: tuple[int, int, int] | None = None
    for i in range(len(words)):
        for j in range(len(parts)):
            k = 0
            while i + k < len(words) and j + k < len(parts) and \
                    _same(words[i + k][2], parts[j + k], last=j + k == len(parts) - 1 or
                          i + k == len(words) - 1):
                k += 1
            if k and (best is None or k > best[0]):
                best = (k, words[i][0], words[i + k - 1][1])
    return best


def _same(said: str, part: str, *, last: bool) -> bool:
    """A word of the message is the name's word, or it with a particle glued on."""
    if said == part:
        return True
    return last and said.startswith(part) and bool(_PARTICLE.fullmatch(said[len(part):]))
