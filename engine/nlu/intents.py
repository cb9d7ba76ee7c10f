"""Message + intent rules -> IntentScore list, best first (keywords, then example similarity).

Both the message and the rules are normalised the same way (see words.normalise).

- Keyword hit: confidence = min(0.99, 0.90 + 0.05 * (distinct keywords found - 1)).
  Hangul keywords match as substrings, so "보내" finds "보내줘" but not "보냈어" (보냈 is
  another syllable). Keywords starting with a Latin letter or digit match whole words in
  their regular forms ("add" is not in "address"; "card" is in "cards", "replace" in
  "replacement", "verify" in "verified"). A hit inside a longer
  hit of another intent does not count ("이체" in "이체 내역" is the history's), nor does a
  negated one ("보내지 마", "안 보내", "don't send").
- A question ("얼마 보냈어?", "what did I send?") is not a request: an intent that acts
  (its flow confirms, then does something) and whose examples are all requests scores
  under any threshold on one (``QUESTION_SCORE``), so the model, or a question back,
  decides; a request put as a question ("보내줄래?") is a request. A "why" asks for a
  reason ("why do you need my id to see my balance?"), and a "what if" about what would
  happen ("what happens if my card gets stolen?", "카드 잃어버리면 어떻게 돼요?", "만약 …"),
  never for an intent: no intent settles either.
- Otherwise, example similarity: the best Dice coefficient over character bigrams of
  the normalised texts with spaces removed,
      dice(a, b) = 2 * |bigrams(a) & bigrams(b)| / (|bigrams(a)| + |bigrams(b)|)
  counted as multisets; texts shorter than two characters compare equal or not at all.
  Confidence = that similarity, kept only when >= 0.35; for an intent that acts, none on
  a message that negates a word ("don't renew my books" is not like "renew my books").
- And a learned model of all the intents (learned.py: which words and word pieces tell
  them apart, trained on their examples, keywords and descriptions): an intent it gives a
  probability >= 0.6 scores that probability — paraphrases that share words, not letters,
  with its examples ("how much is left in my checking" for "what's my balance") — when
  the intent has 3 or more examples, the message is alike at all to one of them
  (similarity >= 0.2) and no intent's keyword is in it. An intent that acts (moves money,
  orders) is never sure on it: it scores 0.45 (under any threshold: the model, or a question
  back, decides; nothing on a negated word). Leaving a running flow on such a score takes
  0.75 (``INTERRUPT_SURE``, routing.other_intent).
- Intents whose example scores are within 0.1 of each other are not told apart (each held
  at 0.45, under any threshold).
- Order: confidence, then higher priority, then the order the rules were given.
  Rules that score 0 are left out.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.precompiled import re_compile

from .keywords import (
    inflections,
    keyword_pattern,
    negated,
    negates_normalised,
    put_off,
    undoes,
    undone,
    words_pattern,
)
from .learned import IntentModel, train
from .phrases import FILLERS, is_question
from .text import bigrams, normalise

MIN_EXAMPLE_SIMILARITY = 0.35
_WHY = re_compile(
    r"(?<![a-z])(?:why|how come|what (?:happens|would happen|will happen) (?:if|when)|what if"
    r"|^in case)(?![a-z])|왜|어째서|만약|만일|(?:면|으면)\s?어떻게")
QUESTION_SCORE = 0.45
"""What an acting intent learned only from requests scores on a question (under 0.5)."""
_KEYWORD_BASE, _KEYWORD_STEP, _KEYWORD_CAP = 0.9, 0.05, 0.99
_WORD_START = re_compile(r"[a-z0-9]")


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
    acts: bool = False
    """Its flow does something once confirmed (moves money, orders): a question about it
    ("이체한 거 뭐 있어?") is not asking for it."""
    description: str = ""
    """What the intent is for, in words: training text of the learned model (learned.py)."""
    unless: tuple[str, ...] = ()
    """Words that, said as a word of the message, make it none of this intent's ("문자" for
    a transfer: "엄마한테 문자 보내줘"); a Hangul word with a particle after it counts
    ("사진을"), an English one in its regular forms ("texts")."""
    # Built once here because classify() runs on every chat turn.
    _keyword_matchers: tuple[tuple[str, str, re.Pattern[str]], ...] = field(
        init=False, repr=False, compare=False
    )
    _example_grams: tuple[tuple[str, Counter[str]], ...] = field(
        init=False, repr=False, compare=False
    )
    _example_sets: tuple[tuple[frozenset[str], int], ...] = field(
        init=False, repr=False, compare=False)
    """Per example: the bigrams it has, and how many it has counting repeats."""
    _requests_only: bool = field(init=False, repr=False, compare=False)
    """It acts, and none of its examples asks something: a question is not a request of it."""
    _by_gram: dict[str, tuple[int, ...]] = field(init=False, repr=False, compare=False)
    """Per bigram, the examples that have it (by index): the examples a message shares
    nothing with are never looked at."""
    _unless_word: re.Pattern[str] | None = field(init=False, repr=False, compare=False)
    """One of its ``unless`` words, a particle after it allowed, as a whole word."""
    _any_keyword: re.Pattern[str] | None = field(init=False, repr=False, compare=False)
    """Any of its keywords (None: it has none): a message without one is not scanned for
    each."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "keywords", tuple(self.keywords))
        object.__setattr__(self, "unless", tuple(
            form for w in self.unless for form in
            (inflections(normalise(w)) if _WORD_START.match(normalise(w)) else {normalise(w)})))
        object.__setattr__(self, "examples", tuple(self.examples))
        matchers = tuple(
            (k, normalise(k), keyword_pattern(normalise(k))) for k in dict.fromkeys(self.keywords)
        )
        grams = tuple((e, bigrams(normalise(e))) for e in self.examples)
        object.__setattr__(self, "_keyword_matchers", matchers)
        object.__setattr__(self, "_example_grams", grams)
        object.__setattr__(self, "_example_sets", tuple(
            (frozenset(g), g.total()) for _, g in grams))
        object.__setattr__(self, "_requests_only", self.acts and
                           not any(map(is_question, self.examples)))
        by_gram: dict[str, list[int]] = {}
        for index, (_, g) in enumerate(grams):
            for gram in g:
                by_gram.setdefault(gram, []).append(index)
        object.__setattr__(self, "_by_gram", {k: tuple(v) for k, v in by_gram.items()})
        object.__setattr__(self, "_unless_word", words_pattern(self.unless))
        sources = [f"(?:{pattern.pattern})" for _, word, pattern in matchers if word]
        object.__setattr__(self, "_any_keyword", re.compile("|".join(sources)) if sources
                           else None)


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
    normalised = _held_off(normalise(text))
    alike = _BEFORE_DOING.sub("", normalised)  # "송금하기 전에 잔액 먼저 볼게요": the balance's
    grams = bigrams(alike)
    turned_down: list[tuple[int, int]] = []  # keywords negated or undone: they outrank still
    said = [_hits(normalised, rule, turned_down) for rule in rules]
    asking: bool | None = None  # asked only when an intent that acts has a score
    why = _WHY.search(normalised) is not None
    hits = _outranked(normalised, said, [False] * len(rules), turned_down)
    freed = [False] * len(rules)  # a keyword inside a request's, the request asked about
    if any(hit and rule._requests_only for hit, rule in zip(said, rules, strict=True)):
        asking = is_question(text)
        if why or asking:  # "where is my new card": a card's status, or a new card's question
            asked = _outranked(normalised, said, [r._requests_only for r in rules], turned_down)
            freed = [bool(a) and not h for a, h in zip(asked, hits, strict=True)]
            hits = asked
    nearest = [_nearest(grams, rule) for rule in rules]
    examples = _clear(_learned(alike, rules, nearest,
                               keyed=[bool(h) and not f for h, f in zip(hits, freed,
                                                                          strict=True)]))
    ranked = []
    tokens = normalised.split()
    for order, (rule, found) in enumerate(zip(rules, hits, strict=True)):
        if rule._unless_word is not None and any(map(rule._unless_word.fullmatch, tokens)):
            continue  # "엄마한테 문자 보내줘": a text is sent, not money
        score = _keyword_score(found, rule) or examples[order]
        if freed[order] and (like := examples[order]) and like.confidence > QUESTION_SCORE:
            score, freed[order] = like, False  # "when will my new card arrive?": its example
        if score is not None and rule._requests_only and not why and asking is None:
            asking = is_question(text)
        if score is not None and (why or (asking and rule._requests_only) or freed[order]):
            score = IntentScore(rule.name, min(score.confidence, QUESTION_SCORE),
                                f"{score.reason}, in a question")
        if score is not None:
            ranked.append((-score.confidence, -rule.priority, order, score))
    return [score for *_, score in sorted(ranked, key=lambda r: r[:3])]


def unless_said(text: str, rule: IntentRule) -> bool:
    """Whether ``text`` says a word of ``rule``'s ``unless`` ("엄마한테 문자 보내줘": a text is
    sent, not money), wherever in the message.

    >>> unless_said("엄마한테 문자 좀 보내줘. 10만원 잘 받았다고",
    ...             IntentRule("transfer", keywords=("보내",), unless=("문자",)))
    True
    """
    return rule._unless_word is not None and \
        any(map(rule._unless_word.fullmatch, normalise(text).split()))


def _held_off(normalised: str) -> str:
    """The message without the words that only hold a place before it ("wait how much do i
    have", "음 근데 잔액 얼마야"): they tell no intent, and a message's likeness to one's
    examples would count them.

    >>> _held_off("wait how much do i have"), _held_off("음 근데 잔액"), _held_off("wait")
    ('how much do i have', '잔액', 'wait')
    """
    tokens = normalised.split(" ")
    opening = next((i for i, t in enumerate(tokens) if t not in _PLACE_HOLDERS), len(tokens))
    return " ".join(tokens[opening:]) if 0 < opening < len(tokens) else normalised


_BEFORE_DOING = re_compile(r"(?:^|(?<=\s))\S+기\s?(?:바로\s)?전에\s+(?=\S)")
""""Before doing X," ahead of what is asked: no part of what the message is like."""
_PLACE_HOLDERS = FILLERS - {"hold", "dunno", "글쎄", "글쎄요"}
"""Fillers that open a message ("wait", "음", "근데"); "hold" may be the request."""


Hit = tuple[str, int, int]
"""A keyword found: the keyword as written, and where its normalised form stands."""


def _hits(normalised: str, rule: IntentRule, turned_down: list[tuple[int, int]]) -> list[Hit]:
    """The rule's keywords said in the message, each once; those negated or undone are no hit
    and go to ``turned_down`` ("이체 내역 알려주지 마": no history, and 이체 inside it no
    transfer either)."""
    if rule._any_keyword is None or rule._any_keyword.search(normalised) is None:
        return []
    found = []
    for keyword, word, pattern in rule._keyword_matchers:
        if not word:
            continue  # a blank keyword never matches
        for match in pattern.finditer(normalised):
            if not negated(normalised, match.start(), match.end()) and \
                    not undone(normalised, match.start(), match.end()) and \
                    not put_off(normalised, match.end()):  # "보내기 전에 잔액 알려줘"
                found.append((keyword, match.start(), match.end()))
                break
            turned_down.append((match.start(), match.end()))
    return found


def _outranked(normalised: str, hits: list[list[Hit]], asked: list[bool],
               turned_down: list[tuple[int, int]]) -> list[list[Hit]]:
    """Each rule's hits less those inside a longer hit of another rule, unless that rule only
    takes requests and the message ``asked`` a question instead, or inside a longer keyword
    turned down."""
    spans = [[] if asked[i] else [(a, b) for _, a, b in rule_hits]
             for i, rule_hits in enumerate(hits)]
    kept = []
    for i, rule_hits in enumerate(hits):
        others = [s for j, group in enumerate(spans) if j != i for s in group] + turned_down
        kept.append([(k, a, b) for k, a, b in rule_hits
                     if not any(c <= a and b <= d and (d - c) > (b - a) for c, d in others)])
    return kept


def _keyword_score(hits: list[Hit], rule: IntentRule) -> IntentScore | None:
    names = list(dict.fromkeys(k for k, _, _ in hits))
    if not names:
        return None
    confidence = min(_KEYWORD_CAP, _KEYWORD_BASE + _KEYWORD_STEP * (len(names) - 1))
    label = "keyword" if len(names) == 1 else "keywords"
    quoted = ", ".join(f"'{k}'" for k in names)
    return IntentScore(rule.name, round(confidence, 4), f"{label} {quoted}")


EXAMPLE_MARGIN = 0.1
"""How far an intent's example similarity must lead every other intent's to be sure."""


def _clear(scores: list[IntentScore | None]) -> list[IntentScore | None]:
    """Example similarities of intents within ``EXAMPLE_MARGIN`` of the best one are not
    sure of each other: each is held under any threshold (the model, or a question back,
    tells them apart), as the best is when it leads by less."""
    found = sorted((s.confidence for s in scores if s is not None), reverse=True)
    if len(found) < 2 or found[0] - found[1] >= EXAMPLE_MARGIN:
        return scores
    close = found[0] - EXAMPLE_MARGIN
    return [s if s is None or s.confidence <= close else
            IntentScore(s.name, min(s.confidence, QUESTION_SCORE), f"{s.reason}, too close to "
                        "another intent's") for s in scores]


def _nearest(grams: Counter[str], rule: IntentRule) -> tuple[float, str]:
    """The rule's example most like the message, and how alike (Dice; 0.0 with none).
    Only the examples that share a bigram with the message are looked at."""
    examples = rule._example_grams
    if not examples:
        return 0.0, ""
    total = grams.total()
    common: dict[int, int] = {}  # example -> bigrams shared, counting repeats
    for gram, count in grams.items():
        for index in rule._by_gram.get(gram, ()):
            shared = count if count == 1 else min(count, examples[index][1][gram])
            common[index] = common.get(index, 0) + shared
    sets = rule._example_sets
    if max(grams.values(), default=1) > 1:  # a bigram said twice: the best, the greatest text
        if not common:  # of a tie (every example 0.0: the greatest text, as max() finds)
            return 0.0, max(e for e, _ in examples)
        return max((2 * common[i] / (total + sets[i][1]), examples[i][0]) for i in common)
    best, found = 0.0, 0  # nothing shared: 0.0, and the first example (as a scan finds)
    for index in sorted(common):
        alike = 2 * common[index] / (total + sets[index][1])
        if alike > best:
            best, found = alike, index
    return best, examples[found][0]


LEARNED_SURE = 0.6
"""The learned model's probability over which an intent's examples settle a message."""
LEARNED = "examples learned"
EXAMPLE = "example"
"""How a score found by one example's likeness starts its reason."""
"""How the reason of a learned score starts."""
INTERRUPT_SURE = 0.75
"""The learned probability it takes to leave a running flow for another intent: a question
about the task at hand ("누구한테 보낸다고?") must not read as another intent's."""
LEARNED_EXAMPLES = 3
"""Examples an intent needs before the model speaks for it: fewer teach it too little."""
LEARNED_GATE = 0.2
"""How alike the message and one of the intent's examples must be for the model to count:
it tells intents apart, not whether a message is about any of them."""


def _learned(normalised: str, rules: Sequence[IntentRule], nearest: list[tuple[float, str]],
             *, keyed: list[bool]) -> list[IntentScore | None]:
    """Each rule's example score: the similarity to its nearest example (kept from
    ``MIN_EXAMPLE_SIMILARITY``), or the learned model's probability when that is over
    ``LEARNED_SURE`` and higher, for a message alike enough to the intent's examples.
    The model is not asked when an intent's keyword is in the message (``keyed``): the
    author's own word for an intent outweighs a likeness ("얼마 보내지?" is not a question
    about what was sent because it looks like one). An intent that acts scores nothing on a
    message that negates a word ("don't renew my books" is not like "renew my books")."""
    scores = [_example_score(rule, near) for rule, near in zip(rules, nearest, strict=True)]
    scores, nearest = _unless_negated(normalised, rules, scores, nearest)
    if any(keyed) or not any(similarity >= LEARNED_GATE for similarity, _ in nearest):
        return scores  # a keyword decides, or nothing is alike enough
    model = model_of(tuple(rules))
    if model is None:
        return scores
    chances = model.probabilities(normalised)  # normalising again changes nothing
    learned = [_learned_score(rule, near, chances.get(rule.name, 0.0))
               for rule, near in zip(rules, nearest, strict=True)]
    return [score if new is None else new for score, new in zip(scores, learned, strict=True)]


def _example_score(rule: IntentRule, nearest: tuple[float, str]) -> IntentScore | None:
    """The rule's nearest example and its similarity -> its score, kept from
    ``MIN_EXAMPLE_SIMILARITY``."""
    similarity, example = nearest
    if similarity < MIN_EXAMPLE_SIMILARITY:
        return None
    return IntentScore(rule.name, round(similarity, 4), f"{EXAMPLE} '{example}' {similarity:.2f}")


Nearest = list[tuple[float, str]]


def _unless_negated(normalised: str, rules: Sequence[IntentRule],
                    scores: list[IntentScore | None], nearest: Nearest
                    ) -> tuple[list[IntentScore | None], Nearest]:
    """Scores and nearest examples -> the same, but on a message that negates a word or
    undoes an acting intent's keyword ("카드 신청 취소해 주세요"), an intent that acts alike to
    it scores nothing and is alike to nothing."""
    if not (any(rule.acts and similarity >= LEARNED_GATE for rule, (similarity, _) in
                zip(rules, nearest, strict=True)) and (negates_normalised(normalised) or any(
                    rule.acts and undoes(normalised, [w for _, w, _ in rule._keyword_matchers])
                    for rule in rules))):
        return scores, nearest
    return ([None if rule.acts else score for rule, score in zip(rules, scores, strict=True)],
            [(0.0, "") if rule.acts else near for rule, near in zip(rules, nearest,
                                                                      strict=True)])


def _learned_score(rule: IntentRule, nearest: tuple[float, str],
                   chance: float) -> IntentScore | None:
    """The learned model's probability for ``rule`` -> the score it gives it (held under any
    threshold for an intent that acts), or None when the model does not speak for it."""
    similarity, example = nearest
    if _model_silent(rule, similarity, chance):
        return None
    reason = f"{LEARNED} {chance:.2f}, nearest '{example}' {similarity:.2f}"
    if rule.acts:
        return IntentScore(rule.name, round(min(chance, QUESTION_SCORE), 4), f"{reason}, it acts")
    return IntentScore(rule.name, round(chance, 4), reason)


def _model_silent(rule: IntentRule, similarity: float, chance: float) -> bool:
    """Whether the model does not speak for ``rule``: the message is too unlike its examples,
    the model is unsure or no surer than they are, the intent has too few examples, or it
    acts and its example scores more."""
    return (similarity < LEARNED_GATE or chance < LEARNED_SURE or chance <= similarity
            or len(rule.examples) < LEARNED_EXAMPLES
            or (rule.acts and similarity >= QUESTION_SCORE))


_TRAINING = threading.Lock()


_GIVEN: dict[tuple[IntentRule, ...], IntentModel | None] = {}


def model_of(rules: tuple[IntentRule, ...]) -> IntentModel | None:
    """The learned model of these rules, trained once per set of rules (see learned.py)
    unless one was ``given``; a caller waits for a training under way (``warm``), so every
    reading sees the model."""
    with _TRAINING:
        return _GIVEN[rules] if rules in _GIVEN else _trained(rules)


def given(rules: tuple[IntentRule, ...], model: IntentModel | None) -> None:
    """The model of ``rules``, trained before (a build of the flow carries it)."""
    with _TRAINING:
        _GIVEN[rules] = model


@functools.lru_cache(maxsize=64)
def _trained(rules: tuple[IntentRule, ...]) -> IntentModel | None:
    return train({rule.name: (*rule.examples, *rule.keywords, rule.description)
                  for rule in rules if rule.examples or rule.keywords})


def warm(rules: Sequence[IntentRule]) -> threading.Thread:
    """Train the model of ``rules`` in a thread now (a server does at start-up, so its first
    message does not wait for it: ~0.06 s for three intents, ~0.4 s for eleven)."""
    thread = threading.Thread(target=model_of, args=(tuple(rules),), name="flowctl-intents",
                              daemon=True)
    thread.start()
    return thread
