"""Message + decision words -> "confirm" | "cancel" | "deny" | None.

A message is a decision only when the whole of it is one (``phrases.py`` builds the
grammar): the decision phrase, at most politeness and fillers ("네 감사합니다", "please"),
and the flow's own verbs for doing the thing ("네 보내주세요", "go ahead and send it").
Anything else makes it no decision at all, and the rest of the understanding reads it:

- a question ("?" anywhere: "네?", "확인하기 전에 수수료는 얼마야?") or a quote ('"네"라고?');
- a hesitation or condition ("네 근데", "잠깐", "ok wait", "if it's free, yes"): the extra
  words are not decision words, so the message is not one;
- a longer word that merely starts with a decision word (진행상황, 그래서, 확인해 볼게,
  yesterday): Korean words match only with the affirmative endings ``phrases.py`` lists;
- a message trailing off ("네...").

Of the three, cancel is read first, then deny, then confirm: a message that is both a
cancel and a yes ("네 취소해 주세요") cancels, since confirming is the step that cannot be
undone. A cancel may be a negated verb of the flow ("보내지 마", "안 보낼래", "don't send
it"), and "X 말고 취소" cancels; a negated cancel ("취소하지 마") is no decision.

The runtime decides what a deny means (for example a correction when a slot value is
present); this module only reports the word.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from engine.nlu import decision_words
from engine.nlu.decision_words import (
    CANCEL_FIRST,
    CANCEL_NOUNS,
    DECISIONS,
    DO_IT,
    GOING_ON,
    OBJECT_PARTICLES,
    STARTS,
    TOPIC_PARTICLES,
    WANTING,
    Table,
)
from engine.nlu.lexicon import Lexicon, negations, squash
from engine.nlu.phrases import (
    CANCEL_SET_ASIDE,
    GENERIC_ACT,
    HOLD,
    LAUGHS,
    NEUTRAL,
    SINGLE_ONLY,
    objects_off,
)
from engine.nlu.stems import stem_of, verb_forms, willed_stem
from engine.nlu.text import decision_text, normalise
from engine.precompiled import re_compile

Answer = Literal["confirm", "cancel", "deny"]


def _normalise_words(words: Iterable[str]) -> tuple[str, ...]:
    unique = dict.fromkeys(w for w in map(normalise, words) if w)  # ordered, no duplicates
    return tuple(unique)


_NEUTRAL = Lexicon.of((w for group in NEUTRAL.values() for w in group), conjugated=False)
_VERBS = tuple(v for group in GENERIC_ACT.values() for v in group)
_CONNECTIVES = frozenset({"and", "then", "andthen", "그리고", "그다음", "그다음에"})
_ATTACHED = ("하고서", "하고", "하구", "시키고")  # a cancel joined to what follows: "취소하고 잔액"
_LONGEST_PHRASE = 5
"""Words: the longest phrase a lexicon holds ("i dont want it anymore")."""
_MOST_WORDS = 20
_NO_RUN_STARTS = frozenset("아노ㄴnN")
"""What a run of no words starts with ("아니아니", "노노노", "nonono")."""
_LONGEST_RUN = 12  # characters: the longest run of yes words read ("오키오키ㅎㅎ")
_NOTHING: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Grammar:
    """The lexicons of one set of decision words."""

    yes: Lexicon
    """Confirm words and the flow's verbs ("확인", "네", "보내", "send")."""
    no: Lexicon
    stop: Lexicon
    negated: frozenset[str]
    """"Don't" with the flow's verbs, and alone ("보내지 마", "하지 마"): a cancel."""
    longest: int
    """Characters: no longer piece of a message is any of these (spaces counted)."""
    doing: Lexicon
    """Cancel words that are the flow's own doing (A): said with a yes, they confirm."""
    starts: frozenset[str]
    """The letters any of these words starts with: a piece starting otherwise is none."""
    objects: frozenset[str] = frozenset()
    """What the flow does things to ("카드", "카드를", "order"): beside a decision, nothing."""
    topics: frozenset[str] = frozenset()
    """The flow's verbs as the topic ("이체는", "신청을"): before a yes or a cancel word only."""
    named: frozenset[str] = frozenset()
    """Objects and topics: what a determiner before them names ("그 카드는", "그 신청은")."""
    read: dict[str, Answer | None] = field(default_factory=dict, compare=False)
    """Messages already decided (a turn asks about one message several times)."""

    def kinds(self, text: str, single: bool) -> frozenset[str]:
        """What a piece of the message can be: N(eutral), Y(es), D(eny), C(ancel word),
        X (a negation: a cancel only where the cancel starts), M (a yes then 말고), A (the
        flow's own doing that is also a cancel word: a yes only with one), U (a cancel word
        negated: "don't cancel")."""
        if not text or len(text) > self.longest or text[0] not in self.starts:
            return _NOTHING  # an empty piece: a message of no letters ("👍", "?!")
        found = set()
        if text in _NEUTRAL or text in self.objects or LAUGHS.fullmatch(text):
            found.add("N")
        if text in self.topics:  # "이체는 취소", "송금을 진행해 주세요"; not "결제는 하지 마"
            found.add("T")
        if text in self.no or text[0] in _NO_RUN_STARTS and " " not in text and \
                len(text) <= _LONGEST_RUN and _run(text, self.no, 2):  # "아니아니", "아뇨아뇨"
            found.add("D")
        if text in self.stop:  # a noun ("취소") is what a negation after it negates
            found.add("K" if text in CANCEL_NOUNS else "C")
        if text in DO_IT:  # "cancel 해줘": a cancel noun done
            found.add("H")
        if text in self.doing:
            found.add("A")
        if squash(text) in self.negated:
            found.add("X")
        if text == _UNSAID:
            found.add("U")
        stretched = _STRETCHED.sub(r"\1", text) if _STRETCHED.search(text) else None
        if text in self.yes or (single and len(text) <= _LONGEST_RUN and self._run(text)) or \
                stretched in self.yes:  # "yeahh", "yupp": a yes held on the keyboard
            found.add("Y")
        if stretched in self.no:  # "nooo", "nahh"
            found.add("D")
        if text.endswith("말고") and (text[:-2].rstrip() in self.yes or not text[:-2].strip()):
            found.add("M")
        return frozenset(found)

    def _run(self, text: str) -> bool:
        """Yes words run together, perhaps with a laugh or a vowel held: 그래그래, 네넵,
        네ㅎㅎ, 네ㅔ (not 엉엉)."""
        if any(w * 2 in text for w in SINGLE_ONLY):
            return False
        return _run(text, self.yes, len(text))


_STRETCHED = re_compile(r"(?<=[a-z])([a-z])\1+$")
"""An English word's last letter held ("yeahh", "yupp", "nooo")."""
_HELD = re_compile(r"ㅔ+")
"""The vowel of 네 held on the keyboard ("네ㅔ", "네네ㅔㅔ")."""


def _run(text: str, yes: Lexicon, budget: int) -> bool:
    for cut in range(1, len(text)):
        head, tail = text[:cut], text[cut:]
        if head in yes and (tail in yes or LAUGHS.fullmatch(tail) or _HELD.fullmatch(tail) or
                            (budget > 0 and _run(tail, yes, budget - 1))):
            return True
    return False


def _reach(tokens: list[str], grammar: _Grammar, table: Table,
           start: frozenset[str]) -> list[set[str]]:
    """For each position in ``tokens``, the states the automaton can be in there."""
    reach: list[set[str]] = [set() for _ in range(len(tokens) + 1)]
    reach[0].update(start)
    for i in range(len(tokens)):
        states = reach[i]
        if not states:
            continue
        for j in range(i + 1, min(len(tokens), i + _LONGEST_PHRASE) + 1):
            for kind in grammar.kinds(" ".join(tokens[i:j]), j == i + 1):
                for state in states:
                    nxt = table[state].get(kind)
                    if nxt is not None:
                        reach[j].add(nxt)
    return reach


_HANGUL_END = re_compile(r"[가-힣]$")


@functools.lru_cache(maxsize=256)
def _grammar(confirm: tuple[str, ...], cancel: tuple[str, ...], deny: tuple[str, ...],
             act: tuple[str, ...], doing: tuple[str, ...], objects: tuple[str, ...]) -> _Grammar:
    """Built once per set of words (stages that share a flow's words share it)."""
    verbs = (*act, *_VERBS)
    # A cancel word inside what the flow is all for ("취소" of "주문취소") is what it does:
    # there it cancels nothing, and confirms only said with a yes ("넵 취소해주세요").
    own = tuple(c for c in cancel
                if any(squash(c) in squash(v) or squash(v) in squash(c) for v in doing))
    doers = tuple(v for v in verbs if any(squash(o) in squash(v) for o in own))
    yes, no, stop = Lexicon.of((*confirm, *(v for v in verbs if v not in doers))), \
        Lexicon.of(deny, plain=True), Lexicon.of(c for c in cancel if c not in own)
    stems = (stem for word in act for stem in (stem_of(word), willed_stem(word)) if stem)
    negated = negations((*verbs, *stems, *own, *GOING_ON))  # "쏘지 마" of 쏴, "안 살래요" of
    # 살게, "진행하지 마": a cancel
    things = frozenset(f"{o}{p}" for o in objects for p in OBJECT_PARTICLES)
    topics = frozenset(f"{a}{p}" for a in act if _HANGUL_END.search(a) for p in TOPIC_PARTICLES)
    longest = max(yes.longest, no.longest, stop.longest, _NEUTRAL.longest,
                  max(map(len, negated), default=0), max(map(len, things | topics), default=0)) \
        + _LONGEST_PHRASE
    doing_words = Lexicon.of((*own, *doers))
    starts = frozenset({*(k for lex in (yes, no, stop, _NEUTRAL, doing_words) for k in lex.stems),
                        *(o[0] for o in objects),
                        *(n[0] for n in negated if n), *(w[0] for w in DO_IT),
                        "ㅎ", "ㅋ", "ㅠ", "ㅜ", "말"})
    return _Grammar(yes, no, stop, negated, longest, doing_words, starts, things, topics,
                    things | topics)


@dataclass(frozen=True, slots=True)
class YesNoWords:
    """Words that confirm, cancel or deny, and the flow's verbs for doing the thing
    (``act``: "보내", "send"); normalised when built.

    >>> default_words("en").merge(YesNoWords(confirm=("Let's go!",))).confirm[-1]
    'lets go'
    """

    confirm: tuple[str, ...] = ()
    cancel: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    act: tuple[str, ...] = ()
    doing: tuple[str, ...] = ()
    """Verbs that are all the flow is for: a cancel word inside one ("취소" of a flow only
    for "주문취소") is the flow's doing there, not a cancel."""
    objects: tuple[str, ...] = ()
    """Nouns that name what the flow does things to (the author's ``words.objects``: "카드"):
    said beside a decision they add nothing ("카드 신청 취소" cancels); alone, nothing."""
    # Built here (and shared between equal word sets), so yes_no() does no per-word work.
    _grammar: _Grammar = field(init=False, repr=False, compare=False)
    _verb_forms: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = ("confirm", "cancel", "deny", "act", "doing", "objects")
        lists = tuple(_normalise_words(getattr(self, n)) for n in names)
        for name, words in zip(names, lists, strict=True):
            object.__setattr__(self, name, words)
        object.__setattr__(self, "_grammar", _grammar(*lists))
        object.__setattr__(self, "_verb_forms", tuple(verb_forms(self.act)))

    def known(self, word: str) -> bool:
        """Whether ``word`` is one of these words, politeness, a filler or a verb of the
        flow in any ending ("네", "주세요", "보내줘", "보낼래", "보냅니다"), or wanting to
        ("싶어요"): words that add nothing to a value said with them.

        >>> words = YesNoWords(act=("보내",))
        >>> [words.known(w) for w in ("보낼게요", "보내고", "싶어", "보내기는", "보냐")]
        [True, True, True, True, False]
        """
        return bool(self._grammar.kinds(word, True)) or word in WANTING or self.acts(word)

    def cancels(self, text: str) -> bool:
        """Whether ``text`` is one of the cancel words ("그만할래요", "forget it"), not a
        negation ("보내지 마") nor a no."""
        return text in self._grammar.stop

    def acts(self, word: str) -> bool:
        """Whether ``word`` is a verb of the flow in any ending ("보내줘", "송금해요").

        >>> YesNoWords(act=("보내",)).acts("보내주세요"), YesNoWords(act=("보내",)).acts("네")
        (True, False)
        """
        return any(word.startswith(form) for form in self._verb_forms)

    def merge(self, other: YesNoWords) -> YesNoWords:
        """These words plus ``other``'s (author-supplied words added to the defaults)."""
        return YesNoWords(
            confirm=self.confirm + other.confirm,
            cancel=self.cancel + other.cancel,
            deny=self.deny + other.deny,
            act=self.act + other.act,
            doing=self.doing + other.doing,
            objects=self.objects + other.objects,
        )


_KO = YesNoWords(**decision_words.KO)
_EN = YesNoWords(**decision_words.EN)
RESUME_WORDS = decision_words.RESUME
"""Words that take an interrupted flow up again (besides the confirm words)."""
_ALL = _KO.merge(_EN)


def resume_words(locale: str) -> tuple[str, ...]:
    """The built-in resume words: Korean and English alike, as ``default_words``."""
    del locale
    return (*RESUME_WORDS["ko"], *RESUME_WORDS["en"])


def default_words(locale: str) -> YesNoWords:
    """The built-in words. Korean and English alike, whatever the service's locale: people
    type "ok" to a Korean service and "네" to an English one, and the two sets never
    collide (Hangul words and Latin words match different text).

    >>> "취소" in default_words("en").cancel, "cancel" in default_words("ko").cancel
    (True, True)
    """
    del locale  # the same for every locale (see above)
    return _ALL


def yes_no(text: str, words: YesNoWords) -> Answer | None:
    """The decision the whole message is; None when it is anything else.

    >>> words = default_words("ko").merge(YesNoWords(act=("보내",)))
    >>> yes_no("네 보내주세요", words), yes_no("확인하기 전에 수수료는 얼마야?", words)
    ('confirm', None)
    >>> yes_no("보내지 마", words), yes_no("진행상황 알려줘", words)
    ('cancel', None)
    """
    normalised = decision_text(text)
    if normalised is None:
        return None
    grammar = words._grammar
    if normalised in grammar.read:
        return grammar.read[normalised]
    if len(grammar.read) > _REMEMBERED:
        grammar.read.clear()
    answer = grammar.read[normalised] = _decide(normalised, grammar)
    return answer


_MIXED = re_compile(r"\b([a-z]+)([가-힣]+)\b|(?<=[가-힣])(?=[ㅋㅎㅠㅜ]+(?:\s|$))")
"""Where a message's words run together: "cancel해줘", a laugh typed on ("취소ㅋㅋ")."""
_REMEMBERED = 512  # messages a set of words keeps its answer for


def _apart(match: re.Match[str]) -> str:
    return f"{match[1]} {match[2]}" if match[1] else " "


def _decide(normalised: str, grammar: _Grammar) -> Answer | None:
    text = _KO_UNSAID.sub(_UNSAID, _MIXED.sub(_apart, normalised))  # "취소하지 말고"
    tokens = objects_off(text.split(" "), grammar.yes, grammar.named)
    tokens = _unsaid(_unglued(tokens, grammar), grammar.stop)
    ended = _reach(tokens, grammar, DECISIONS, STARTS)[-1] if len(tokens) <= _MOST_WORDS \
        else frozenset()
    said: Answer | None = "cancel" if "stop" in ended or "noun" in ended else \
        "deny" if "no" in ended else None
    if said is not None:  # cancel before deny, then a yes: confirming cannot be undone
        return None if _held(tokens, tokens, grammar) else said  # "not yet" waits
    return "confirm" if "yes" in ended else None


_UNSAID = "dont\u2009cancel"
"""A cancel word negated ("don't cancel it"): no cancel and no no; a yes may go with it."""
_NOT = frozenset({"dont", "not", "never"})


_KO_UNSAID = re_compile(rf"(?<!\S){CANCEL_SET_ASIDE}(?!\S)")
"""A cancel set aside in Korean ("취소하지 말고 그대로 접수해주세요", "취소 아니고요 네"), as one
piece."""


def _unsaid(tokens: list[str], stop: Lexicon) -> list[str]:
    """``tokens`` with each English negation of a cancel word as one piece (``_UNSAID``), so
    neither half is read alone ("no, don't cancel" is no no; "취소 안 해" is the grammar's)."""
    for i in range(len(tokens) - 1, 0, -1):
        if i < len(tokens) and tokens[i - 1] in _NOT and tokens[i] in stop:
            do = i > 1 and tokens[i - 1] == "not" and tokens[i - 2] in ("do", "does", "did")
            tokens[i - 1 - do:i + 1] = [_UNSAID]  # "please do not cancel": no "please do"
    return tokens


_GLUED = ("이제", "지금", "그냥", "걍", "빨리", "바로", "얼른", "어서")
"""Adverbs typed onto the verb after them ("이제보내줘", "그냥보내"; not onto a yes word:
"바로네" is none)."""


def _unglued(tokens: list[str], grammar: _Grammar) -> list[str]:
    """``tokens`` with an adverb typed onto a decision word set apart ("이제보내줘"), and a no
    typed onto a cancel ("아니요취소해주세요")."""
    for i in range(len(tokens) - 1, -1, -1):
        token = tokens[i]
        head = next((a for a in _GLUED if token.startswith(a) and len(token) > len(a)), "")
        rest = token[len(head):]
        if head and len(rest) > 1 and rest[0] not in "네예응웅엉" and grammar.kinds(rest, True):
            tokens[i:i + 1] = [head, rest]
        elif not head and (no := next((n for n in _NO_GLUED if token.startswith(n)), "")) and \
                grammar.kinds(token[len(no):], True) & _CANCELS:
            tokens[i:i + 1] = [no, token[len(no):]]
    return tokens


_NO_GLUED = ("아니요", "아니오", "아뇨", "아니")
_CANCELS = frozenset({"C", "K", "X"})


def _held(cancel: list[str], tokens: list[str], grammar: _Grammar) -> bool:
    """A no or a "don't" that only holds off (``HOLD``), with no cancel word of its own."""
    return not HOLD.isdisjoint(tokens) and not any(  # "never mind, I'll do it later" cancels
        " ".join(cancel[i:j]) in grammar.stop for i in range(len(cancel))
        for j in range(i + 1, min(len(cancel), i + _LONGEST_PHRASE) + 1))


def cancel_first(text: str, words: YesNoWords) -> str | None:
    """What follows a leading cancel ("취소하고 잔액 알려줘" -> "잔액 알려줘"), or None.

    >>> cancel_first("cancel, check my balance", default_words("en"))
    'check my balance'
    >>> sending = default_words("en").merge(YesNoWords(act=("send",)))
    >>> cancel_first("don't send it yet", sending) is None
    True
    """
    said = _KO_UNSAID.sub(_UNSAID, normalise(text))  # "취소 아니고요 네 담아주세요": none
    grammar = words._grammar
    tokens = objects_off(said.split(" "), grammar.yes, grammar.named)  # "cancel my order"
    for cut, token in enumerate(tokens):  # "취소하고 잔액" reads as "취소 하고 잔액"
        for joined in _ATTACHED:
            if token.endswith(joined) and len(token) > len(joined):
                tokens[cut:cut + 1] = [token[:-len(joined)], "하고"]
                break
    reach = _reach(tokens, words._grammar, CANCEL_FIRST, frozenset({"start"}))
    for end in range(1, len(tokens)):
        if "stop" in reach[end]:
            rest = tokens[end:]
            while rest and (rest[0] in _CONNECTIVES or rest[0] == "하고"):
                rest = rest[1:]
            if rest and not all(words.known(t) for t in rest):  # "cancel the order" is one
                return None if _negated(tokens[:end], rest, words) or \
                    _held(tokens[:end], tokens, words._grammar) else " ".join(rest)
    return None


def _negated(cancel: list[str], rest: list[str], words: YesNoWords) -> bool:
    """Whether a leading cancel is none: a "don't" of the flow's verb or of a cancel after it
    ("don't send it yet", "dont cancel it"), or a cancel noun alone that what follows negates
    ("취소 안 해", "cancel 하지 마"; after a no, "아니요 취소 안 할래요" is a no all the same)."""
    if set(cancel) <= _NEGATING and (words.acts(rest[0]) or rest[0] in CANCEL_NOUNS):
        return True  # "don't send it yet", "dont cancel it!!": the verb after it negated
    return cancel == cancel[-1:] and cancel[-1] in CANCEL_NOUNS and \
        _NOT_DOING.match(" ".join(rest)) is not None


_NOT_DOING = re_compile(r"(?:안\s?(?:해|하|할|합)|하지\s?(?:마|말|않))")
"""Not doing what a cancel noun before it names: "취소 안 해", "cancel 하지 마" ("취소, 안
보낼래" is a second cancel: it negates the flow's own verb)."""


_NEGATING = frozenset({"dont", "do", "not", "never", "doesnt", "please", "pls", "plz", "just"})
"""A leading "don't" is no cancel of its own when the flow's verb follows: it negates that."""
