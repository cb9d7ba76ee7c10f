"""Words as a service's lexicons hold them, with the endings each takes ("확인" in "확인해
주세요", "보내" in "보내줘요"), and every way of saying "don't" with a verb ("보내지 마",
"이체하지 마세요", "안 보낼래", "don't send"): which endings a Korean word takes follows from
its last syllable (a final consonant, a final ㄹ, a vowel that takes 하다)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .endings import HADA, NEG_HADA, NEG_VOWEL, NEG_WILL, NOMINAL, VOWEL

_NEGATORS_EN = ("dont", "do not", "please dont", "please do not")
BARE_NEGATIONS = ("하지 마", "하지 마요", "하지 마세요", "하지 말아", "하지 말아요", "하지 말아줘",
                  "하지 말아 주세요", "하지 말자", "안 할래", "안 할래요", "안 할게", "안 할게요",
                  "안 할 거예요", "안 할 거야", "안 할 겁니다",
                  "안 할께요", "안 해", "안 해요", "안 합니다", "안 혀", "안 해유", "안 할란다",
                  "하지 마십시오", "안 하겠습니다", "안 하겠어요",
                  "안 할라요", "dont", "do not", "please dont",
                  "dont do it", "do not do it", "dont do that", "not now")
"""Negations with no verb ("하지 마", "don't"): a cancel when they open the message."""


def _has_final(syllable: str) -> bool:
    """Whether a Hangul syllable ends in a consonant (받침)."""
    code = ord(syllable) - 0xAC00
    return 0 <= code < 11172 and code % 28 != 0


def _final_l(syllable: str) -> bool:
    """Whether a Hangul syllable ends in ㄹ: the stem of 만들다 or 팔다 (or a noun: both read)."""
    code = ord(syllable) - 0xAC00
    return 0 <= code < 11172 and code % 28 == 8


def _with_final_l(syllable: str) -> str:
    """The syllable with ㄹ as its final consonant: 내 -> 낼, 하 -> 할."""
    code = ord(syllable) - 0xAC00
    if not 0 <= code < 11172 or code % 28 != 0:
        return syllable
    return chr(0xAC00 + code + 8)


def _takes_hada(syllable: str) -> bool:
    """A word ending in a vowel takes 하다's forms (이체해, 처리해) unless it is itself a
    verb's 아/어 form (좋아, 맞아: "좋아해" means "like it", not a yes)."""
    code = ord(syllable) - 0xAC00
    return not (0 <= code < 11172 and (code % 588) // 28 in (0, 4))


def _hangul(word: str) -> bool:
    return any("가" <= ch <= "힣" or "ㄱ" <= ch <= "ㅣ" for ch in word)


def squash(text: str) -> str:
    """Text as lexicons hold it: spaces left out ("해 주세요" and "해주세요" alike)."""
    return text.replace(" ", "")


def _set(forms: Iterable[str]) -> frozenset[str]:
    return frozenset(map(squash, forms))


_ENDINGS = {
    "latin": frozenset({""}),
    "plain": _set(("", "요", "야", "이야", "예요", "에요", "이에요", "입니다", "이요")),
    "consonant": _set(("", *NOMINAL, *HADA)),
    "vowel+hada": _set(("", *VOWEL, *HADA)),
    "vowel": _set(("", *VOWEL)),
    # a stem in ㄹ (만들다) or a noun in ㄹ: 만들어 주세요, 만들어요, and a noun's 하다 endings
    "l": _set(("", *NOMINAL, *HADA, "어", *(f"어{e}" for e in VOWEL))),
}


def _ending_class(word: str) -> str:
    """Which endings a word takes: "latin", "consonant", "l", "vowel+hada" or "vowel"."""
    if not _hangul(word):
        return "latin"
    if _has_final(word[-1]):
        return "l" if _final_l(word[-1]) else "consonant"
    return "vowel+hada" if _takes_hada(word[-1]) else "vowel"


@dataclass(frozen=True, slots=True)
class Lexicon:
    """Words with the endings each takes: ``"확인해 주세요" in Lexicon.of(["확인"])``.

    >>> yes = Lexicon.of(["확인", "네"])
    >>> [t in yes for t in ("확인해 주세요", "네", "확인해 볼게", "네이버")]
    [True, True, False, False]
    """

    stems: dict[str, tuple[tuple[str, frozenset[str]], ...]]
    """First letter -> each word starting with it (spaces left out) and the endings it
    takes (likewise), longest word first."""
    longest: int = 0
    """The longest word with its longest ending: no longer text can be in the lexicon."""

    @classmethod
    def of(cls, words: Iterable[str], *, conjugated: bool = True, plain: bool = False
           ) -> Lexicon:
        """``conjugated=False``: the words only as written (politeness, fillers);
        ``plain``: with a copula or 요 only ("별로야", "아니요")."""
        endings: dict[str, frozenset[str]] = {}
        for word in words:
            key = squash(word)
            if key:
                kind = _ending_class(word)
                own = _ENDINGS["plain" if plain and kind != "latin" else kind] if conjugated \
                    else _ENDINGS["latin"]
                had = endings.get(key)  # a word's first endings are shared, not copied
                endings[key] = own if had is None else had | own
        stems: dict[str, list[tuple[str, frozenset[str]]]] = {}
        for key in sorted(endings, key=len, reverse=True):
            stems.setdefault(key[0], []).append((key, endings[key]))
        longest = max((len(k) + max(map(len, e)) for k, e in endings.items()), default=0)
        return cls({first: tuple(group) for first, group in stems.items()}, longest)

    def __contains__(self, text: object) -> bool:
        if not isinstance(text, str) or not text:
            return False
        text = squash(text)
        if not text or len(text) > self.longest:  # nothing left once squashed ("?!")
            return False
        for stem, endings in self.stems.get(text[0], ()):
            if text.startswith(stem) and text[len(stem):] in endings:
                return True
        return False


def negations(verbs: Iterable[str]) -> frozenset[str]:
    """Every way of saying "don't" with ``verbs`` (spaces left out): 보내지 마, 이체하지
    마세요, 안 보낼래, don't send, plus the bare ones ("하지 마", "안 할래", "don't").

    >>> {"안보낼래요", "이체하지마세요", "dontsend"} <= negations(["보내", "이체", "send"])
    True
    """
    forms = set(BARE_NEGATIONS)
    for verb in verbs:
        kind = _ending_class(verb)
        if kind == "latin":
            forms.update(f"{n} {verb}" for n in _NEGATORS_EN)
            continue
        if kind != "vowel":  # a noun with 하다: 이체하지 마, 이체 안 할래
            forms.update(verb + n for n in NEG_HADA)
            forms.update(f"{verb} 안 {e}" for e in ("해", "해요", "합니다", "해유", "혀",
                                                    "하겠습니다", *(f"할{w}" for w in NEG_WILL)))
        if kind != "consonant" or _final_l(verb[-1]):  # a verb stem: 보내지 마, 안 보낼래,
            willing = verb[:-1] + _with_final_l(verb[-1])  # 안 보내; 만들지 마, 안 만들래
            forms.update(verb + n for n in NEG_VOWEL)
            forms.update(f"안 {willing}{w}" for w in NEG_WILL)
            forms.update((f"안 {verb}", f"안 {verb}요", f"안 {verb}유",  # 유: Chungcheong
                          f"안 {verb}겠습니다", f"안 {verb}겠어요"))
    return _set(forms)


__all__ = ["BARE_NEGATIONS", "Lexicon", "negations", "squash"]
