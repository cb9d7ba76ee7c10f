"""Message + yes/no word lists -> "confirm" | "cancel" | "deny" | None, and the shared normaliser.

Matching happens on normalised text (NFC, casefolded, punctuation and symbols turned
into spaces, whitespace collapsed) with these rules:

1. Cancel wins: a cancel word starting at any token ("확인 말고 취소" -> cancel).
2. Otherwise the message's first word decides: the longest confirm or deny word that
   starts at the first token ("no problem, go ahead" -> confirm, because "no problem" is
   a confirm phrase and longer than the deny word "no"; "아니 3만원으로 해줘" -> deny).
   On an exact tie deny wins, since confirming is the step that cannot be undone.
3. How a word matches a token:
   - Hangul words of two or more letters match as a prefix, because Korean glues endings
     on ("확인해줘", "진행해주세요", "아니요").
   - One-letter Hangul words (네, 예, 응, 노, 넵) must be the whole token or be followed by
     요 ("네요"), so "네이버" and "예약" are not answers.
   - Words with Latin letters must be whole tokens, so "yesterday" is not "yes".
   - A word with spaces ("안 할래", "go ahead") must match token by token; in Hangul ones
     the last word may carry an ending ("하지 마세요") and the spaces may be left out
     ("하지마", "안할래요").

The runtime decides what a deny means (for example a correction when a slot value is
present); this module only reports the word.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

Answer = Literal["confirm", "cancel", "deny"]

_APOSTROPHE = re.compile(r"['’]")
_NOT_WORD = re.compile(r"[^\w\s]|_")
_LATIN = re.compile(r"[a-z]")


def normalise(text: str) -> str:
    """NFC, casefold, punctuation/symbols -> spaces, whitespace collapsed.

    >>> normalise("  예, 진행해주세요!! ")
    '예 진행해주세요'
    """
    folded = unicodedata.normalize("NFC", text).casefold()
    # Apostrophes join ("let's" -> "lets"); other punctuation separates words.
    cleaned = _NOT_WORD.sub(" ", _APOSTROPHE.sub("", folded))
    return " ".join(cleaned.split())


def _normalise_words(words: Iterable[str]) -> tuple[str, ...]:
    unique = dict.fromkeys(w for w in map(normalise, words) if w)  # ordered, no duplicates
    return tuple(unique)


def _compile_words(words: tuple[str, ...]) -> re.Pattern[str] | None:
    """Alternation of the words, longest first, each anchored at a token start."""
    if not words:
        return None
    ordered = sorted(words, key=len, reverse=True)  # the first alternative that fits is longest
    return re.compile("|".join(rf"(?<!\S)(?:{_word_pattern(w)})" for w in ordered))


def _word_pattern(word: str) -> str:
    if _LATIN.search(word):
        return re.escape(word) + r"(?!\S)"  # whole tokens only
    parts = word.split(" ")
    if len(parts) > 1:
        # The leading words already fix the meaning, so the last one may carry an ending
        # ("하지 마세요"); the phrase is often typed without its spaces ("하지마").
        return f"{re.escape(word)}|{re.escape(''.join(parts))}"
    if len(word) >= 2:
        return re.escape(word)  # a prefix: Korean endings follow ("확인해줘")
    return re.escape(word) + r"(?=요?(?!\S))"  # "네" or "네요", never "네이버"


@dataclass(frozen=True, slots=True)
class YesNoWords:
    """Words that confirm, cancel or deny; normalised when built.

    >>> default_words("en").merge(YesNoWords(confirm=("Let's go!",))).confirm[-1]
    'lets go'
    """

    confirm: tuple[str, ...] = ()
    cancel: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    # One regex per list, built here so yes_no() does no per-word work on each chat turn.
    _patterns: tuple[re.Pattern[str] | None, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        lists = tuple(_normalise_words(getattr(self, n)) for n in ("confirm", "cancel", "deny"))
        for name, words in zip(("confirm", "cancel", "deny"), lists, strict=True):
            object.__setattr__(self, name, words)
        object.__setattr__(self, "_patterns", tuple(map(_compile_words, lists)))

    def merge(self, other: YesNoWords) -> YesNoWords:
        """These words plus ``other``'s (author-supplied words added to the defaults)."""
        return YesNoWords(
            confirm=self.confirm + other.confirm,
            cancel=self.cancel + other.cancel,
            deny=self.deny + other.deny,
        )


_KO = YesNoWords(
    confirm=(
        "확인", "네", "예", "응", "넵", "좋아", "좋습니다", "그래", "맞아", "진행", "ㅇㅇ", "ㅇㅋ",
        "오케이", "그렇게 해",
    ),
    cancel=("취소", "그만", "안 할래", "안할래", "하지 마", "중단"),
    deny=("아니", "아니요", "아니오", "아뇨", "싫어", "노", "노노", "ㄴㄴ"),
)  # fmt: skip
_EN = YesNoWords(
    confirm=("yes", "yeah", "yep", "ok", "okay", "confirm", "sure", "go ahead", "no problem"),
    cancel=("cancel", "stop", "abort", "never mind", "nevermind", "forget it"),
    deny=("no", "nope", "nah"),
)
_BY_LOCALE = {"ko": _KO, "en": _EN}
RESUME_WORDS: dict[str, tuple[str, ...]] = {
    "ko": ("계속", "계속 진행", "계속할래", "이어서", "마저", "돌아가"),
    "en": ("continue", "go on", "resume", "carry on", "back to it"),
}
"""Words that take an interrupted flow up again (besides the confirm words)."""
_ALL = _KO.merge(_EN)


def default_words(locale: str) -> YesNoWords:
    """Built-in words for "ko" or "en" (region tags like "ko-KR" allowed); else both merged.

    >>> "취소" in default_words("ko").cancel, "cancel" in default_words("fr").cancel
    (True, True)
    """
    language = locale.replace("_", "-").split("-")[0].lower()
    return _BY_LOCALE.get(language, _ALL)


def yes_no(text: str, words: YesNoWords) -> Answer | None:
    """Classify a short answer; None when it is not a yes/no/cancel answer.

    >>> yes_no("네 보내주세요", default_words("ko")), yes_no("네이버", default_words("ko"))
    ('confirm', None)
    """
    normalised = normalise(text)
    confirm, cancel, deny = words._patterns
    if not normalised:
        return None
    if cancel is not None and cancel.search(normalised):
        return "cancel"
    confirmed, denied = _prefix_length(confirm, normalised), _prefix_length(deny, normalised)
    if not confirmed and not denied:
        return None
    return "confirm" if confirmed > denied else "deny"


def _prefix_length(pattern: re.Pattern[str] | None, normalised: str) -> int:
    """Length of the longest word at the start of the message, 0 when none is there."""
    match = pattern.match(normalised) if pattern is not None else None
    return match.end() if match else 0
