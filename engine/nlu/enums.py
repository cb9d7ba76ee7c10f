"""Text + {canonical: synonyms} -> Match spans whose value is the canonical name.

Matching is case-insensitive. Each canonical name is also one of its own synonyms, so
{"KRW": ["원"]} reads "krw" as KRW. A synonym that starts or ends with an ASCII letter
must not touch another letter there ("usda" is not USD; "50usd" is), one that starts or
ends with a digit not another digit ("10" is not "1"); Hangul and other synonyms match
anywhere, because Korean glues particles and numbers on ("50달러에"), and a Hangul compound
of four syllables or more also when spaced in two ("체크 카드" for 체크카드). A Hangul synonym
of one or two syllables is the head of other nouns too ("신용" of 신용점수, "체크" of
체크포인트): glued to more Hangul, it counts only where what follows can start a particle,
an ending or a noun of asking for it ("신용으로", "체크요", "환불신청", "업무용"), 하다
only as asked for ("교환할게요", not "체크하는 편이라").
Longer synonyms are tried first ("원화" before "원").

Build an ``EnumMatcher`` once with ``compile_enum`` when the same values are used on every
turn; ``find_enum`` also takes the plain mapping and compiles it on the spot.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.precompiled import re_compile

from .keywords import participle_forms
from .spans import Match

Values = Mapping[str, Sequence[str]]


@dataclass(frozen=True, slots=True)
class EnumMatcher:
    """A compiled enum: one alternation regex plus the synonym -> canonical table."""

    pattern: re.Pattern[str] | None  # None when there are no synonyms at all
    canonical: Mapping[str, str]  # lowercased synonym -> canonical name

    def find(self, text: str) -> list[Match]:
        """Canonical names found in ``text``, sorted by start."""
        if self.pattern is None:
            return []
        return [
            Match(self.canonical.get(said := m.group().lower()) or
                  self.canonical[_SPACES.sub("", said)], m.start(), m.end(), m.group())
            for m in self.pattern.finditer(text)
        ]


_SPACES = re_compile(r"\s+")


def _synonyms(values: Values) -> list[tuple[str, str]]:
    """(lowercased synonym, canonical) pairs, the canonical name included, blanks dropped;
    an English past participle in the forms of its verb too ("cracked": "a crack in it")."""
    pairs = _written(values)
    return pairs + sorted((form, name) for syn, name in pairs
                          for form in participle_forms(syn) if form != syn)


def _written(values: Values) -> list[tuple[str, str]]:
    """(lowercased synonym, canonical) pairs as written, the canonical name included."""
    pairs = ((s.strip().lower(), name) for name, syns in values.items() for s in (name, *syns))
    return [(syn, name) for syn, name in pairs if syn]


def compile_enum(values: Values) -> EnumMatcher:
    """Build the matcher; on a synonym shared by two names the first name listed wins.

    >>> compile_enum({"USD": ["달러"]}).find("50달러")[0].value
    'USD'
    """
    canonical: dict[str, str] = {}
    for synonym, name in _synonyms(values):
        canonical.setdefault(synonym, name)
    if not canonical:
        return EnumMatcher(pattern=None, canonical={})
    ordered = sorted(canonical, key=lambda s: (-len(s), s))
    pattern = re.compile("|".join(map(_alternative, ordered)), re.IGNORECASE)
    return EnumMatcher(pattern=pattern, canonical=canonical)


def _alternative(synonym: str) -> str:
    # A letter end must not touch another letter, a digit end another digit; so "usda"
    # is not "usd" and "10" is not "1", while "50usd" and "US$5" still match.
    head, tail = _boundary(synonym[0]), _boundary(synonym[-1])
    if _SHORT_HANGUL.fullmatch(synonym):
        tail = _NOT_GLUED
    return (f"(?<!{head})" if head else "") + _spaced(synonym) + (f"(?!{tail})" if tail else "")


_SHORT_HANGUL = re_compile(r"[가-힣]{1,2}")
_GLUED_ON = ("이가은는을를으로에의도만요예입라랑와과까부처같쪽걸거것고나든면야여께밖뿐엔말짜인일"
             "지죠네보마씩쯤임냐니며였용좀쫌"  # particles, the copula's endings, 용 ("업무용"), 좀
             "하할해함합됩되돼될된받"  # done with 하다, 되다, 받다 ("교환할게요", "환불받고")
             "신접진문건창실")  # 신청, 요청, 접수, 진행, 문의, 건, 결제창; 사무실
_NOT_ASKED = r"했|하는(?!\s?(?:걸로|거로|것으로))|하면|해서|한(?!다)|하지|하던|하니"
"""하다 said of something the speaker does or did, not asked for ("체크하는 편이라": to check,
"교환했는데": done before, "환불하면": if): no value."""
_NOT_GLUED = f"(?:{_NOT_ASKED}|(?![{_GLUED_ON}])[가-힣])"
"""After a short Hangul synonym: more Hangul that starts no particle, ending or asking noun
("신용점수", "체크포인트", "회사원"), or 하다 said of something else than asking for it."""


_HANGUL_WORD = re_compile(r"[가-힣]{4,}")


def _spaced(synonym: str) -> str:
    """The synonym as a pattern; a Hangul word of four syllables or more may be said in two
    parts of two or more ("체크 카드", "보조 배터리"), as people space compounds."""
    if not _HANGUL_WORD.fullmatch(synonym):
        return re.escape(synonym)
    return synonym[:2] + "".join(rf"\s?{c}" if 2 <= i <= len(synonym) - 2 else c
                                 for i, c in enumerate(synonym[2:], start=2))


def _boundary(char: str) -> str:
    if "a" <= char.lower() <= "z":
        return "[A-Za-z]"
    return "[0-9]" if "0" <= char <= "9" else ""


_LATIN_WORD = re_compile(r"[a-z]{4,}")


def misspelt(text: str, values: Values | EnumMatcher) -> Match | None:
    """The one canonical name a short answer misspells ("lrage", "meduim", "lsot"), or None.

    A word of four or more Latin letters is one letter off a synonym of as many letters or
    more (a letter missing, added, changed, or two neighbours swapped; two off from nine
    letters on) and starts with the same letter; every such synonym must name one value.
    Only for the answer to the slot being asked: a typo elsewhere is not guessed at.

    >>> misspelt("lrage pls", {"large": ["big"], "small": []}).value
    'large'
    >>> misspelt("lage", {"large": [], "lake": []}) is None  # one letter off both
    True
    """
    matcher = values if isinstance(values, EnumMatcher) else compile_enum(values)
    found: set[str] = set()
    first: Match | None = None
    for word in _LATIN_WORD.finditer(text.lower()):
        for synonym, name in matcher.canonical.items():
            if len(synonym) >= 4 and synonym[0] == word[0][0] and synonym.isalpha() and \
                    _distance(word[0], synonym) <= (2 if len(synonym) >= 9 else 1):
                found.add(name)
                first = first or Match(name, word.start(), word.end(), word[0])
    return first if len(found) == 1 else None


def _distance(a: str, b: str) -> int:
    """Edits from ``a`` to ``b``: a letter inserted, deleted, changed, or two neighbours
    swapped (optimal string alignment)."""
    if abs(len(a) - len(b)) > 2:
        return 3
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1,
                         rows[-1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def find_enum(text: str, values: Values | EnumMatcher) -> list[Match]:
    """Canonical names mentioned in ``text``, sorted by start.

    >>> [m.value for m in find_enum("50달러 or 1000 KRW", {"KRW": ["원"], "USD": ["달러"]})]
    ['USD', 'KRW']
    """
    matcher = values if isinstance(values, EnumMatcher) else compile_enum(values)
    return matcher.find(text)


def enum_conflicts(values: Values) -> list[tuple[str, str, str]]:
    """(synonym, first canonical, other canonical) for every synonym claimed twice.

    >>> enum_conflicts({"KRW": ["원"], "JPY": ["엔", "원"]})
    [('원', 'KRW', 'JPY')]
    """
    owner: dict[str, str] = {}
    conflicts: list[tuple[str, str, str]] = []
    for synonym, name in _written(values):
        first = owner.setdefault(synonym, name)
        if first != name and (synonym, first, name) not in conflicts:
            conflicts.append((synonym, first, name))
    return conflicts
