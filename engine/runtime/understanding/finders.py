"""A slot and a message -> the slot's candidate matches in it, found by the slot's type, and
which of them can be its value (``usable``).

Each type has its finder (money, dates, times, enums, numbers, yes/no flags); a slot with
``patterns`` uses them instead, and a slot's ``known`` values are looked for as well. A
money amount that only looks like one ("5만웜원") is one match for the whole of it, so that
no part of it is read.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from engine.compiler.compiled import CompiledSlot
from engine.nlu import (
    FILLERS,
    Match,
    YesNoWords,
    asks,
    find_dates,
    find_enum,
    find_money,
    find_numbers,
    find_pattern,
    find_times,
    names,
    normalise,
    persons,
)
from engine.nlu.certainty import (
    given_then,
    inexact,
    malformed_amount,
    negated,
    of_the_speaker,
    ranged,
    unsure,
)
from engine.nlu.flags import find_flag, flag_words
from engine.nlu.known import find_known
from engine.nlu.money import changed_by, scaled_by
from engine.nlu.phrases import SET_ASIDE
from engine.precompiled import re_compile

Finder = Callable[[CompiledSlot, str, dt.date], list[Match]]
_PATTERN: Finder = lambda slot, text, today: find_pattern(text, slot.patterns)  # noqa: E731


def _money(slot: CompiledSlot, text: str, today: dt.date) -> list[Match]:
    """The amounts in ``text``, or one match for an amount it cannot be read as."""
    bad = malformed_amount(text)
    if bad is not None:  # the whole amount is refused; no part of it is read
        start, end = bad
        return [Match(value=text[start:end], start=start, end=end, text=text[start:end])]
    return find_money(text)


_FINDERS: dict[str, Finder] = {
    "money": _money,
    "date": lambda slot, text, today: find_dates(text, today),
    "time": lambda slot, text, today: find_times(text),
    "enum": lambda slot, text, today: find_enum(text, slot.synonyms),
    "integer": lambda slot, text, today: [m for m in find_numbers(text)
                                          if isinstance(m.value, int) and not _named(text, m)
                                          and not _lasting(text, m, slot)],
    "number": lambda slot, text, today: find_numbers(text),
    "boolean": lambda slot, text, today: find_flag(
        text, flag_words(slot.name, slot.spec.description or "")),
}


def _lasting(text: str, match: Match, slot: CompiledSlot) -> bool:
    """Whether a number says how long or how old ("for 3 months", "2년 썼는데", "일곱 살"),
    where the slot is not itself a length of time: no rating or quantity."""
    unit = _DURATION.match(text, match.end)
    if unit is None:
        return False
    said = f"{slot.name} {' '.join(slot.spec.names)} {slot.spec.description or ''}".casefold()
    return unit["unit"].casefold().rstrip("s") not in said


_DURATION = re_compile(r"\s?(?P<unit>months?|years?|weeks?|days?|hours?|minutes?|nights?|개월|년|"
                       r"주일|일간|시간|분|살|박)(?:째|동안|이나|에|은|는|이|가|을|를|도|쯤|정도|간)?"
                       r"(?![가-힣a-z])", re.IGNORECASE)
"""A unit of time or age after a number."""


def _named(text: str, match: Match) -> bool:
    """Whether a number is part of a name: typed onto the letters before it, and no counter
    after it ("버즈3", "버즈3랑", "갤럭시S24", "MX3"; not "사과3개")."""
    before = text[match.start - 1] if match.start else " "
    return before.isalpha() and _COUNTER.match(text, match.end) is None


_COUNTER = re_compile(r"\s?(?:(?:개|박스|세트|장|병|팩|벌|켤레|대|권|묶음|통|봉|짝)"
                      r"(?:요|씩|만|을|를|이|가|은|는|도|로|으로|이요|짜리|입니다|이에요)*(?![가-힣])"
                      r"|pcs?\b|ea\b|x\b|units?\b|pieces?\b)", re.IGNORECASE)
"""A counter after a number: what is counted ("3개", "3개만요", "2 pcs"; not "3 장바구니")."""


def find_all(text: str, slots: Sequence[CompiledSlot],
             today: dt.date) -> list[tuple[CompiledSlot, list[Match]]]:
    """Every slot's candidate matches, in ``slots`` order (see ``extraction_order``)."""
    out = []
    for slot in slots:
        typed = slot.spec.extract is None or slot.spec.extract.typed
        finder = _PATTERN if slot.patterns else (_FINDERS.get(slot.spec.type) if typed else None)
        known = find_known(text, slot.known) if slot.known else []
        if finder is not None or known:
            out.append((slot, [*(finder(slot, text, today) if finder else []), *known]))
    return out


def usable(text: str, slot: CompiledSlot, m: Match) -> bool:
    """Not a filler, negated, one end of a range, nobody, one of two people or someone's
    relation (for a name), a date money was given before, nor a rough amount where an
    exact one is wanted."""
    if _empty(m) or negated(text, m) or ranged(text, m) or \
            (slot.spec.type == "enum" and of_the_speaker(text, m)) or \
            (slot.spec.type == "date" and given_then(text, m)):
        return False
    before = text[:m.start].rstrip().rpartition(" ")[2]
    if holds_names(slot) and (names.nobody(str(m.value)) or names.joined(before) or
                               persons.someones(before, str(m.value)) or
                               names.promised(str(m.value), text[m.end:])):
        return False
    return not (exact(slot) and (inexact(text, m) or unsure(text, m) or
                                 persons.anothers_detail(text, m.start, _own_words(
                                     slot.name, tuple(slot.spec.names),
                                     slot.spec.description or ""))))


def quits(said: Sequence[str], words: YesNoWords) -> bool:
    """Whether words said beside a value hold a cancel word not negated ("그만할래요"; not "don't
    want to cancel")."""
    return any(words.cancels(w) and _NEGATING_WORDS.isdisjoint(said[max(0, i - 3):i])
               for i, w in enumerate(said))


_NEGATING_WORDS = frozenset({"don", "dont", "t", "not", "never", "no", "안", "못"})


def answer_after_echo(text: str, slot: CompiledSlot) -> str:
    """The answer after the question it answers said back ("my pin? its 5309", "금액이요?
    3만원이요", "how much? 30k") or after asking why it is needed ("do u really need it? ok
    fine its 8642"): what follows the "?"; ``text`` itself when the part before
    it holds a word that is not the slot's own, a question word or a filler, or when what
    follows asks again."""
    echoed = _ECHOED.match(text)
    if echoed is None:
        return text
    if _WHY_NEEDED.search(echoed.group(1)):  # "do u really need it? ok fine its 8642"
        return echoed.group(2)
    own = _own_words(slot.name, tuple(slot.spec.names), slot.spec.description or "")
    for word in re.findall(r"\w+", echoed.group(1).casefold()):
        stem = _ECHO_ENDING.sub("", word)  # "pin 이요?": an ending typed apart is none
        if not (word in own or stem in own or not stem or asks(word) or
                word in FILLERS or word in _ECHO_FILLERS):
            return text
    return echoed.group(2)


_ECHOED = re_compile(r"^\s*([^?？]{1,30}?)\s*[?？]+\s*([^?？]+)$")
_WHY_NEEDED = re_compile(r"\bneed\b|\bnecessary\b|\brequired\b|\bwhy\b|필요|왜"
                         r"|꼭\s*(?:알려|말해|줘)", re.IGNORECASE)
"""Asking why the value is needed before giving it ("why do you need that? its 1234", "꼭
필요해요? 1234요"): the answer follows."""
_ECHO_ENDING = re_compile(r"(?:이요|요|은|는|이|가|을|를|냐고|라고|이라고|말이야|말이에요)+$")
_ECHO_FILLERS = frozenset({"my", "the", "your", "oh", "ah", "a", "much", "many", "내", "제", "아",
                           "네"})


@lru_cache(maxsize=256)
def _own_words(name: str, said: tuple[str, ...], description: str) -> frozenset[str]:
    """The words that name a slot: its name's, its names' and its description's."""
    return frozenset(w for s in (name.replace("_", " "), *said, description)
                     for w in re.findall(r"\w+", s.casefold()))


_TO_SOMEONE = re_compile(r"\s?(?:한테|헌테|헨테|한태|에게|에겨|께)")


def widened(text: str, slot: CompiledSlot, m: Match) -> Match:
    """For a name said as whom something goes to, the title or 씨 found alone with the name
    said before it ("박지훈 대리님께": 박지훈 대리님, "박지영 씨한테": 박지영), the name as
    it is known (``persons.called``: "박지영씨한테", "민숙이한테"); anything else as found."""
    if not (holds_names(slot) and isinstance(m.value, str) and _TO_SOMEONE.match(text, m.end)):
        return m
    head = text[:m.start].rstrip()
    before = head.rpartition(" ")[2]
    named = persons.titled(before, m.value)
    own = any(head.endswith(name) for name in slot.spec.names)  # "받는 사람 오빠한테": no 사람
    if named is not None and not own and head.endswith(before) and len(head) < m.start:
        start = len(head) - len(before)
        return Match(named, start, m.end, text[start:m.end])
    plain = persons.called(m.value)
    return m if plain == m.value else Match(plain, m.start, m.end, m.text)


def exact(slot: CompiledSlot) -> bool:
    """Only an exact value is one (``extract.exact``; by default a money slot's, a
    sensitive one's and one read by the flow's own patterns: codes, ids, numbers)."""
    said = slot.spec.extract.exact if slot.spec.extract is not None else None
    if said is not None:
        return said
    return slot.spec.type == "money" or slot.spec.sensitive or bool(slot.patterns)


def somebody_matches(found: Sequence[tuple[CompiledSlot, list[Match]]]) -> list[list[Match]]:
    """Each slot's matches less the names that name nobody, and no dates: what tells a
    message's tasks apart ("그저께 엄마한테": 그저께 is a day, so one recipient; "생일이
    금요일인데 목요일에 보내줘": one transfer)."""
    return [[m for m in ms if not (holds_names(s) and names.nobody(str(m.value)))]
            for s, ms in found if s.spec.type != "date"]


def holds_names(slot: CompiledSlot) -> bool:
    """The slot holds a name (a short answer is its value): "나", "아무" are nobody's."""
    return slot.spec.extract is not None and slot.spec.extract.bare


def _empty(match: Match) -> bool:
    """A question word or a filler where a value was looked for: "누구" in "누구한테 보냈지?"
    is no recipient, "음" no name."""
    value = match.value
    return isinstance(value, str) and (asks(value) or normalise(value) in FILLERS)



def changes_by(text: str, found: Sequence[tuple[CompiledSlot, list[Match]]],
               picked: Mapping[str, Any], confirming: Mapping[str, Any] | None
               ) -> tuple[dict[str, Any], list[tuple[int, int]]] | None:
    """Amounts a confirmation changes *by* what is said ("5천원 더 보내줘", "3천원 줄여줘",
    "make it 5k more"): each money slot's new value from the one confirmed, and where the
    words saying so are; None when such a change leaves nothing to send, there is no amount
    to change, or the message names another value ("엄마한테 5만원 더": another transfer,
    perhaps, not this one's amount). Nothing outside a confirmation."""
    changed: dict[str, Any] = {}
    spans: list[tuple[int, int]] = []
    if not confirming:
        return changed, spans
    for slot, matches in found:
        old = confirming.get(slot.name)
        for match in matches if slot.spec.type == "money" else ():
            by = changed_by(text, match)
            if by is None:
                continue
            step = match.value
            if not isinstance(old, int | float) or isinstance(old, bool) or \
                    not isinstance(step, int | float) or old + by[0] * step <= 0:
                return None
            changed[slot.name] = old + by[0] * step
            spans.append(by[1])
    if not changed:  # "두 배로 해줘", "반만 보낼게": the one amount asked about, scaled
        money = [s.name for s, _ in found if s.spec.type == "money" and s.name in confirming]
        scaled = scaled_by(text) if len(money) == 1 else None
        if scaled is not None:
            old = confirming[money[0]]
            if not isinstance(old, int) or isinstance(old, bool) or old * scaled[0] % 1:
                return None
            changed[money[0]], spans = int(old * scaled[0]), [scaled[1]]
    if changed and any(confirming.get(k) != v for k, v in picked.items() if k not in changed):
        return None
    return changed, spans


def set_aside(text: str, values: Mapping[str, Any]) -> list[tuple[int, int]]:
    """Where ``text`` says one of ``values`` away ("아빠 말고", "엄마한테 말고", "민수 말고" of
    김민수): the old ones of what it changes ("이모 말고 4만원" puts no one in 이모's place)."""
    named = [str(v) for v in values.values() if v not in (None, "")]
    said = "|".join(re.escape(n) for n in [*named, *filter(None, map(persons.given_name, named))])
    if not said:
        return []
    return [m.span() for m in re.finditer(  # with an honorific: "박지영 님이 아니라"
        rf"(?<!\S)(?:{said})\S*(?:\s(?:씨|님)\S*)?\s*{SET_ASIDE}", text)]


def words_of(text: str, matches: Sequence[Match]) -> list[tuple[int, int]]:
    """The spans of the words ``matches`` stand in, with their units and particles ("2개로"),
    and a "not" said of one ("tomorrow not today")."""
    spans = []
    for m in matches:
        start = text.rfind(" ", 0, m.start) + 1
        said_not = _NOT_BEFORE.search(text, 0, start)
        start = said_not.start() if said_not else start
        end = text.find(" ", m.end)
        spans.append((start, len(text) if end == -1 else end))
    return spans


_NOT_BEFORE = re_compile(r"\bnot\s+$", re.IGNORECASE)


def said_away(text: str, found: Sequence[tuple[CompiledSlot, list[Match]]],
               picked: Mapping[str, Any]) -> list[tuple[int, int]]:
    """Where a value other than the one picked is said away with its 말고 ("내일 말고 모레
    보내줘"): words that say nothing more."""
    return set_aside(text, {str(m.start): m.text for s, ms in found if s.name in picked
                            for m in ms if m.value != picked[s.name]})


__all__ = ["Finder", "changes_by", "exact", "find_all", "said_away", "set_aside",
           "somebody_matches", "usable", "widened", "words_of"]
