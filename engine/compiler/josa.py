"""A Korean particle after a word, chosen by how the word ends: ``{{ x | josa('을') }}``.

Korean particles come in pairs by the word's last sound: 을/를, 이/가, 은/는, 과/와, 아/야,
이나/나, 이랑/랑, 이에요/예요, and (으)로, which takes 로 after a vowel or ㄹ. A template that
writes "{{ item }}을(를)" reads as a form; ``josa`` writes "노트북을", "마우스를", "LG 그램 16을"
(a final digit is read as a number: 육), "ORD-1001(갤럭시 버즈3)이" (the word before a closing
parenthesis counts).
"""

from __future__ import annotations

__all__ = ["PAIRS", "josa"]

_FORMS = (("을", "를"), ("이", "가"), ("은", "는"), ("과", "와"), ("아", "야"), ("이나", "나"),
          ("이랑", "랑"), ("이에요", "예요"), ("으로", "로"))
PAIRS: dict[str, tuple[str, str]] = {form: pair for pair in _FORMS for form in pair}
"""Either form -> (after a final consonant, after a vowel)."""
_DIGIT_ENDS = {"0": 21, "1": 8, "2": 0, "3": 16, "4": 0, "5": 0, "6": 1, "7": 8, "8": 8, "9": 0}
"""A final digit as it is read (영 일 이 삼 사 오 육 칠 팔 구): its final consonant's index."""
_LETTER_ENDS = {"l": 8, "m": 16, "n": 4, "r": 0}
"""A final Latin letter as Korean reads it ("URL", "item", "pen"): l ㄹ, m ㅁ, n ㄴ."""
_RIEUL = 8


def josa(word: object, particle: str) -> str:
    """``word`` followed by the form of ``particle`` its last sound takes.

    >>> josa("노트북", "을"), josa("마우스", "을"), josa("서울", "으로"), josa("부산", "로")
    ('노트북을', '마우스를', '서울로', '부산으로')
    >>> josa("LG 그램 16", "를"), josa("ORD-1001(갤럭시 버즈3)", "이")
    ('LG 그램 16을', 'ORD-1001(갤럭시 버즈3)이')
    """
    text = str(word)
    pair = PAIRS.get(particle)
    if pair is None:
        raise ValueError(f"josa: {particle!r} is not a Korean particle with two forms "
                         f"(one of {', '.join(sorted(set(PAIRS)))})")
    final = _final(text)
    if final is None:  # unknown (empty, a symbol): both forms, as people write them
        return f"{text}{pair[0]}({pair[1]})"
    after_consonant = final != 0 and not (pair[0] == "으로" and final == _RIEUL)
    return text + (pair[0] if after_consonant else pair[1])


def _final(text: str) -> int | None:
    """The index of the last syllable's final consonant (0: none); None when unknown."""
    stripped = text.rstrip(" .!?\"'")
    if stripped.endswith(")") and "(" in stripped:
        stripped = stripped[:stripped.rindex("(")].rstrip()
    if not stripped:
        return None
    last = stripped[-1]
    if "가" <= last <= "힣":
        return (ord(last) - ord("가")) % 28
    if last in _DIGIT_ENDS:
        return _DIGIT_ENDS[last]
    if last.isascii() and last.isalpha():
        return _LETTER_ENDS.get(last.lower(), 0)
    return None
