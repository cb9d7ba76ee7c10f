"""Message + intent rules -> IntentScore list, best first (keywords, then example similarity).

Both the message and the rules are normalised the same way (see words.normalise).

- Keyword hit: confidence = min(0.99, 0.90 + 0.05 * (distinct keywords found - 1)).
  Hangul keywords match as substrings, so "보내" finds "보내줘" but not "보냈어" (보냈 is
  another syllable). Keywords starting with a Latin letter or digit must also start a
  word ("hi" is not found in "this"; "send" is found in "sending").
- Otherwise, example similarity: the best Dice coefficient over character bigrams of
  the normalised texts with spaces removed,
      dice(a, b) = 2 * |bigrams(a) & bigrams(b)| / (|bigrams(a)| + |bigrams(b)|)
  counted as multisets; texts shorter than two characters compare equal or not at all.
  Confidence = that similarity, kept only when >= 0.35.
- Order: confidence, then higher priority, then the order the rules were given.
  Rules that score 0 are left out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from .words import normalise

MIN_EXAMPLE_SIMILARITY = 0.35
_KEYWORD_BASE, _KEYWORD_STEP, _KEYWORD_CAP = 0.9, 0.05, 0.99
_WORD_START = re.compile(r"[a-z0-9]")


@dataclass(frozen=True, slots=True)
class IntentRule:
    """One intent: keywords, example sentences and a tie-breaking priority.

    >>> IntentRule("transfer", keywords=("보내", "송금"), examples=("엄마한테 만원 보내줘",)).name
    'transfer'
    """

    name: str
    keywords: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    priority: int = 0
    # Built once here because classify() runs on every chat turn.
    _keyword_matchers: tuple[tuple[str, str, re.Pattern[str] | None], ...] = field(
        init=False, repr=False, compare=False
    )
    _example_grams: tuple[tuple[str, Counter[str]], ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "keywords", tuple(self.keywords))
        object.__setattr__(self, "examples", tuple(self.examples))
        matchers = tuple(
            (k, normalise(k), _keyword_pattern(normalise(k))) for k in dict.fromkeys(self.keywords)
        )
        grams = tuple((e, bigrams(normalise(e))) for e in self.examples)
        object.__setattr__(self, "_keyword_matchers", matchers)
        object.__setattr__(self, "_example_grams", grams)


@dataclass(frozen=True, slots=True)
class IntentScore:
    name: str
    confidence: float
    reason: str  # "keyword '보내'", "keywords '보내', '송금'" or "example '...' 0.81"


def classify(text: str, rules: Sequence[IntentRule]) -> list[IntentScore]:
    """Score every rule against ``text``; best first, zero scores left out.

    >>> classify("엄마한테 1만원 보내줘", [IntentRule("transfer", keywords=("보내", "이체"))])
    [IntentScore(name='transfer', confidence=0.9, reason="keyword '보내'")]
    """
    normalised = normalise(text)
    grams = bigrams(normalised)
    ranked = []
    for order, rule in enumerate(rules):
        score = _keyword_score(normalised, rule) or _example_score(grams, rule)
        if score is not None:
            ranked.append((-score.confidence, -rule.priority, order, score))
    return [score for *_, score in sorted(ranked, key=lambda r: r[:3])]


def _keyword_pattern(word: str) -> re.Pattern[str] | None:
    if not _WORD_START.match(word):
        return None  # Hangul keywords are plain substrings
    return re.compile(rf"(?<![a-z0-9]){re.escape(word)}")


def _keyword_score(normalised: str, rule: IntentRule) -> IntentScore | None:
    hits = [k for k, word, pattern in rule._keyword_matchers if _has(normalised, word, pattern)]
    if not hits:
        return None
    confidence = min(_KEYWORD_CAP, _KEYWORD_BASE + _KEYWORD_STEP * (len(hits) - 1))
    label = "keyword" if len(hits) == 1 else "keywords"
    quoted = ", ".join(f"'{k}'" for k in hits)
    return IntentScore(rule.name, round(confidence, 4), f"{label} {quoted}")


def _has(normalised: str, word: str, pattern: re.Pattern[str] | None) -> bool:
    if pattern is not None:
        return pattern.search(normalised) is not None
    return bool(word) and word in normalised  # a blank keyword never matches


def _example_score(grams: Counter[str], rule: IntentRule) -> IntentScore | None:
    best = max(((dice(grams, g), e) for e, g in rule._example_grams), default=(0.0, ""))
    similarity, example = best
    if similarity < MIN_EXAMPLE_SIMILARITY or similarity <= 0:
        return None
    return IntentScore(rule.name, round(similarity, 4), f"example '{example}' {similarity:.2f}")


def bigrams(normalised: str) -> Counter[str]:
    """Character bigrams of ``normalised`` with spaces removed; one-letter texts keep the letter.

    >>> sorted(bigrams("보내 줘").elements())
    ['내줘', '보내']
    """
    compact = normalised.replace(" ", "")
    if len(compact) < 2:
        return Counter([compact] if compact else [])
    return Counter(compact[i : i + 2] for i in range(len(compact) - 1))


def dice(a: Counter[str], b: Counter[str]) -> float:
    """Dice coefficient of two bigram multisets (0.0 when both are empty)."""
    total = a.total() + b.total()
    if not total:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    common = sum(min(count, large.get(gram, 0)) for gram, count in small.items())
    return 2 * common / total
