"""What the forms of a Korean verb start with, from the verb as an author wrote it: its stem
("보내" → "보내고"), the stem closed by ㄹ or ㅂ ("보낼래", "보냅니다"), and for a verb
written in its -아/-어 form ("쏴", "부쳐", "넣어") the stem it was made from ("쏠게",
"부칠게요", "넣을게요", "쏘지 마")."""

from __future__ import annotations

_CONTRACTED = {9: 8, 14: 13, 6: 20}
"""Vowels of a contracted -아/-어 form -> the stem's vowel: ㅘ (쏴) ㅗ, ㅝ (줘) ㅜ, ㅕ (부쳐) ㅣ."""
_OPEN = ("아", "어")


def stem_of(word: str) -> str | None:
    """The stem a verb's -아/-어 form was made from, or None when ``word`` is no such form.

    >>> stem_of("쏴"), stem_of("부쳐"), stem_of("넣어"), stem_of("보내"), stem_of("send")
    ('쏘', '부치', '넣', None, None)
    """
    last = ord(word[-1]) - 0xAC00 if word else -1
    if not 0 <= last < 11172:
        return None
    vowel = last // 28 % 21
    if last % 28 == 0 and vowel in _CONTRACTED:  # 쏴 is 쏘 + 아
        return word[:-1] + chr(ord(word[-1]) + (_CONTRACTED[vowel] - vowel) * 28)
    if word.endswith(_OPEN) and len(word) > 1:  # 넣어 is 넣 + 어
        return word[:-1]
    return None


def willed_stem(word: str) -> str | None:
    """The stem a volitional form was made from ("살게" of 사다, "볼래" of 보다), or None:
    what a negation of the keyword is said with ("안 살래요", "사지 마").

    >>> willed_stem("살게"), willed_stem("볼래"), willed_stem("보내"), willed_stem("게")
    ('사', '보', None, None)
    """
    if len(word) < 2 or word[-1] not in "게래":
        return None
    code = ord(word[-2]) - 0xAC00
    if not 0 <= code < 11172 or code % 28 != 8:  # the syllable before ends in ㄹ
        return None
    return word[:-2] + chr(0xAC00 + code - 8)


def verb_forms(verbs: tuple[str, ...]) -> list[str]:
    """What a form of each verb starts with.

    >>> verb_forms(("보내", "쏴", "send"))
    ['보내', '보낼', '보냅', '쏴', '쏼', '쐅', '쏘', '쏠', '쏩', 'send']
    """
    forms = []
    for verb in verbs:
        stem = stem_of(verb)
        forms += _closed(verb) + (_closed(stem) if stem else [])
    return forms


def _closed(stem: str) -> list[str]:
    """The stem, and with its last syllable closed by ㄹ or ㅂ when it has no final."""
    code = ord(stem[-1]) - 0xAC00 if stem else -1
    if 0 <= code < 11172 and code % 28 == 0:  # a Hangul syllable with no final
        return [stem, *(stem[:-1] + chr(ord(stem[-1]) + final) for final in (8, 17))]
    return [stem]


__all__ = ["stem_of", "verb_forms", "willed_stem"]
