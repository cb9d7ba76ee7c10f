"""A message that is nothing but the asked slot's value -> that value: a short answer as a
name ("민지예요", "울 엄마"), a plain number as an amount ("30000"), a misspelt choice
("lrage"), the whole message for a free-text slot; and whether a message may be read so at
all (not a decision, a question, a sentence or a filler); and a name or a plain amount said
right after the slot's own name ("받는 사람 오빠로", "금액 30000으로"), or a name put in the
place of one said away ("아빠 말고 형").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from engine.compiler.compiled import CompiledFlow, CompiledService, CompiledSlot
from engine.nlu import (
    FILLERS,
    Match,
    YesNoWords,
    asks,
    decision_text,
    default_words,
    is_question,
    is_statement,
    names,
    normalise,
    persons,
    yes_no,
)
from engine.nlu.certainty import PARTICLE, bare_number, inexact, names_pattern, negated
from engine.nlu.enums import misspelt
from engine.nlu.keywords import negates
from engine.nlu.money import find_money
from engine.nlu.phrases import SET_ASIDE, THINKING
from engine.nlu.retractions import after_retraction
from engine.precompiled import re_compile
from engine.runtime.understanding.finders import exact

_OPENERS = "|".join(sorted(FILLERS | {"그럼", "그러면", "참", "아참", "앗", "맞다", "아맞다",
                                       "그리고", "아니면", "그냥", "헐", "아이고", "아니"},
                             key=lambda w: (-len(w), w)))  # the same pattern every process
INSTEAD = re_compile(rf"^(?:(?:{_OPENERS})[,.…~]*\s+)*(?P<old>.+?)"
                     rf"(?:\s*{SET_ASIDE}|[,.…~]*\s+(?:(?:아|앗|어)\s+)?아니(?:다|야)?[,.…~]*"
                     r"|(?i:\s*[,.…\-–—]*\s+(?:no,?\s+|or\s+)?(?:wait|sorry|i mean|i meant"
                     r"|actually|oops|no)(?:[,.]?\s+(?:wait|sorry|i mean|i meant|actually))*"
                     r"[,.…]*))"
                     r"\s+(?P<new>\S.*)$")
"""A value said away and another put in its place: "아빠 말고 형", "엄마 아니 아빠요", "엄마.
아 아니 아빠", "근데 아빠 말고 오빠한테", "mom no wait dad" (what opens the message is
neither)."""
_THINKING = "|".join(sorted(THINKING, key=lambda w: (-len(w), w)))
OPENING = re_compile(rf"^(?:(?:{_THINKING})[,.…~]*\s+)+(?=\S)")
"""What opens an answer while one thinks, as speech has it ("어 김민수 씨", "음 그러니까
아빠", "um my sister"): not part of the answer."""
LEAST_BARE = {"KRW": 1000, "JPY": 1000}
"""The smallest plain number taken as an amount in a currency: no one sends 100원."""


def bare_value(text: str, slot: CompiledSlot | None,
               words: YesNoWords | None) -> tuple[Any, tuple[int, int]] | None:
    """The asked slot's value when the message is nothing but that value (and the span it
    came from): a short answer for a ``bare`` slot (the new one of "아빠 말고 형"), a plain
    number for an amount, a misspelt choice, all of it for a free-text slot; else None."""
    if slot is None:
        return None
    if slot.spec.type == "money" and words is not None:
        number = bare_number(text, words.known, LEAST_BARE.get(slot.spec.currency or "", 100))
        if number is None or exact(slot) and inexact(text, number):
            return None
        return number.value, (number.start, number.end)
    if slot.spec.extract is not None and slot.spec.extract.free_text and text.strip():
        start = len(text) - len(text.lstrip())
        return text.strip(), (start, start + len(text.strip()))  # a reason, a note: all of it
    if slot.spec.type == "enum" and short_answer(text):
        typo = misspelt(text, slot.synonyms)  # "lrage" for large, asked for a size
        if typo is None or negated(text, typo):  # "not small"
            return None
        return typo.value, (typo.start, typo.end)
    if slot.spec.extract is None or not slot.spec.extract.bare:
        return None
    return _bare_name(text, slot, words)


def _bare_name(text: str, slot: CompiledSlot,
               words: YesNoWords | None) -> tuple[Any, tuple[int, int]] | None:
    """A short answer as the name it says (the new one of "아빠 말고 형"; "엄마 보내줘" with
    the flow's own verb after it), or None."""
    instead = INSTEAD.match(text.strip())
    said = instead.group("new") if instead else OPENING.sub("", text.strip())
    said = _ANSWER_OPENER.sub("", _DESCRIBED.sub("", said))  # "it's my brother", "Jake, he…"
    if negates(said):  # "엄마 보내지마", "민수는 안 보내": no one to send to
        return None
    said = _verbs_off(said, words)
    said = _NAME_THEN_REMARK.sub(r"\g<name>", said)  # "박지연이야 오타남": 박지연이야
    answer = names.told(said, slot.spec.names or [slot.name.replace("_", " ")])
    if answer is None:  # "내 번호는 010-…야": something else of theirs, no name
        return None
    single = " " not in answer
    if not short_answer(answer) or names.no_name(answer, single) or \
            slot.spec.pattern is None and names.a_number(answer):  # a phone number: whose?
        return None
    start = text.find(answer)
    named = names.plain_name(answer, single)
    told_of = _DESCRIBED.search(text)  # what is said of them is part of the answer
    return named, (start, len(text) if told_of and told_of.start() >= start else
                   start + len(answer))


def named_values(text: str, slot: CompiledSlot) -> list[Match]:
    """A ``bare`` slot's value said as what it is to be, right after one of the slot's names
    ("받는 사람 오빠로", "받는 분은 민수로 해 주세요", "recipient: Minsu") or before a word of
    changing it ("사촌 동생으로 바꿔줘", "엄마로 변경해 주세요"; without the slot's name only a
    relation, a full name or a name with its title: "박지영씨로 바꿔줘", but "카드로 바꿔줘" is
    no one): a name, as a short answer would be."""
    if slot.spec.type == "money" and slot.spec.names:
        return _named_amounts(text, slot)
    if slot.spec.extract is None or not slot.spec.extract.bare or not slot.spec.names:
        return []
    found = _before_amount(text)
    if not any(mark in text for mark in _NAMING_MARKS):
        return found
    for at in _naming(tuple(slot.spec.names)).finditer(text):
        group = next(g for g in ("to", "is", "into") if at[g])
        said, start = at[group], at.start(group)
        first, _, then = said.partition(" ")
        titled = persons.titled(first, then) if then else None
        if group == "into" and then and titled is None and persons.no_name(first) and \
                persons.relation(then):  # "아 미안 언니로 해줘": 언니
            said, start, first, then = then, start + len(first) + 1, then, ""
        read = _bare_name(said, slot, None)
        if read is None or then and titled is None:
            continue  # two words: a name with its title, or one relation, only
        if group == "into" and not _someone(first, then, titled):
            continue
        found.append(Match(value=titled or read[0], start=start, end=start + len(said),
                           text=said))
    return found


_OPENING = re_compile(r"^\s*(?:(?:우리|울|내|제|저희)\s+)?(?P<who>[가-힣]{1,5})\s+")
_NEXT_WORD = re_compile(r"(?P<word>[가-힣]{1,3})\s+")
_LATIN_OPENING = re_compile(r"^\s*(?P<who>[A-Z][a-z]{1,15})\s+")
_HANGUL = re_compile(r"[가-힣]")
_NOT_A_NAME = frozenset({"And", "Also", "Then", "Plus", "Rent", "Total", "Only", "Just", "Send",
                         "Pay", "Please", "About", "Around", "Maybe", "Like", "The", "To",
                         "For", "Another", "Extra", "Same", "All", "Each", "Ok", "Okay",
                         "Yes", "Yeah", "No", "Hi", "Hey", "Hello", "Thanks", "Sorry", "Wait",
                         "Oh", "Um", "Hmm", "Now", "Today", "Tomorrow", "Sure", "Oops",
                         "Transfer", "Wire", "Give", "Move", "Put"})
"""Capitalised words that open a list item and are no one ("…, Plus 5만원")."""


def _before_amount(text: str) -> list[Match]:
    """The person the message opens with, said with no particle right before the amount
    ("엄마 5만원 보내줘", "울 누나 3만원만", "박지영 대리님 10만원 이체"): a relation, a full
    name or a name with its title only — "월세 50만원 보내줘" names no one, nor a word with
    its particle ("금액을 10만원으로", "동생한테 2만원": found as it is said). So does each
    item of a list ("할머니 3만원, 이모 2만원", one a line, "1. 삼촌 3만원")."""
    found = []
    latin = _HANGUL.search(text) is not None  # "Jake 50k 보내줘", never "Transfer 40,000 won"
    for item in _LIST_ITEM.finditer(text):
        found += [Match(m.value, m.start + item.end(), m.end + item.end(), m.text)
                  for m in _opening_person(text[item.end():], latin=latin)]
    return found


_LIST_ITEM = re_compile(r"^|(?<=[,，;\n])\s*(?:[0-9]{1,2}[.)]\s*)?|^\s*[0-9]{1,2}[.)]\s*"
                        r"|(?<=\s)[0-9]{1,2}[.)]\s+"
                        r"|(?:(?<=원이랑)|(?<=원하고)|(?<=만이랑)|(?<=만하고)|(?<=천이랑)|(?<=원과)"
                        r"|(?<=원랑))\s+")
"""Where an item of a list starts: the message, after a comma or a line break, after its
number, after an amount joined to the next ("김민수 2만원이랑 박지영 씨 3만원")."""


def _opening_person(text: str, *, latin: bool = False) -> list[Match]:
    """The person ``text`` opens with, right before an amount (``_before_amount``), in Latin
    letters too where ``latin`` (a Korean message: "김 대리님 3만원, Jake 50k")."""
    at = _OPENING.match(text) or (_LATIN_OPENING.match(text) if latin else None)
    if at is None:
        return []
    who, end = at["who"], at.end()
    if who.isascii():
        money = find_money(text[end:])
        return [Match(who, at.start("who"), at.end("who"), who)] \
            if money and not money[0].start and who not in _NOT_A_NAME else []
    title = _NEXT_WORD.match(text, end)
    named = persons.titled(who, title["word"]) if title else None
    end = title.end() if title and named else end
    particle = any(PARTICLE.match(who[i:]) for i in range(1, len(who)))
    if not named and (particle or not (persons.relation(who) or persons.full_name(who))):
        return []  # no one: the amount is not looked for
    money = find_money(text[end:])
    if not money or money[0].start:
        return []
    said = text[:end].rstrip()
    return [Match(value=named or persons.called(who), start=at.start("who"), end=len(said),
                  text=said[at.start("who"):])]


def _someone(first: str, then: str, titled: str | None) -> bool:
    """Whether words said as what a value is to be, with no slot's name before them, name
    someone: a name with its title, a relation or a full name ("박지영씨로 바꿔줘")."""
    return bool(titled) or persons.relation(first) or not then and persons.full_name(first)


def _named_amounts(text: str, slot: CompiledSlot) -> list[Match]:
    """A plain number said right after a money slot's name, as its value: "금액 30000으로",
    "액수는 2만5천이요", "amount to 30000", "make the amount 25,000" (with its unit it is an
    amount anywhere). Only before the end, a particle of what it is to be or a word of
    changing or sending; never under the currency's least plain amount."""
    least = LEAST_BARE.get(slot.spec.currency or "", 100)
    found = []
    for at in _amount_naming(tuple(slot.spec.names)).finditer(text):
        number = bare_number(at["n"], lambda w: False, least)
        if number is not None:
            start = at.start("n") + number.start
            found.append(Match(value=number.value, start=start, end=start + len(number.text),
                               text=number.text))
    return found


@lru_cache(maxsize=64)
def _amount_naming(slot_names: tuple[str, ...]) -> re.Pattern[str]:
    said = names_pattern(slot_names)
    number = r"[0-9일이삼사오육칠팔구십백천만억][0-9,.일이삼사오육칠팔구십백천만억 ]*?"
    then = (r"(?=\s*(?:$|[.,!~](?![0-9]))|\s*(?:바꿔|바꾸|변경|수정|고쳐|해|보내|이체|송금|부탁)"
            r"|\s+(?:please|instead|thanks|won)\b)")
    return re.compile(rf"(?<![\w])(?:{said})(?:은|는|을|를|이|가)?\s*"
                      r"(?:(?:is|to|of|at|should\s+be|=|:|：)\s*)?"
                      rf"(?P<n>{number})(?:으로|로|이요|요|입니다|이에요|예요|이야|야)?{then}",
                      re.IGNORECASE)


def named_ahead(text: str, slots: Sequence[CompiledSlot], asked: str | None
                ) -> dict[str, int]:
    """``asked_only`` slots the message names before their value ("pin 1234", "my pin is
    9876", "비밀번호는 1234" while the id is asked): slot -> where its value may start."""
    found = {}
    for slot in slots:
        if slot.name == asked or slot.spec.extract is None or not slot.spec.extract.asked_only:
            continue
        said = names_pattern(slot.spec.names or [slot.name.replace("_", " ")])
        at = re.search(rf"(?<![A-Za-z0-9_])(?:{said})(?![A-Za-z0-9_])", text, re.I)
        if at is not None:
            found[slot.name] = at.end()
    return found


_NAMING_MARKS = ("로", ":", "：")
"""What every value ``_naming`` reads has beside it: none, no search."""


@lru_cache(maxsize=64)
def _naming(slot_names: tuple[str, ...]) -> re.Pattern[str]:
    said = names_pattern(slot_names)
    value = rf"(?!{SET_ASIDE}\s)[가-힣A-Za-z0-9]+?(?:\s[가-힣A-Za-z0-9]+?)??" \
        r"(?<!한테)(?<!에게)(?<!께)"  # not "말고 박지영씨" of "민수 말고 박지영씨로"
    end = r"(?=$|\s|[.,!?~])"
    return re.compile(rf"(?<![\w])(?:{said})(?:(?:은|는|을|를|이|가)?\s*(?P<to>{value})(?:으로|로)"
                      rf"|\s*[:：]\s*(?P<is>{value})){end}|(?<!\S)(?P<into>{value})(?:으로|로)"
                      r"(?=\s+(?:바꿔|바꾸|변경|수정|고쳐|해\s*(?:줘|주세요|주실래요)))",
                      re.IGNORECASE)


_NOT_BUT = re_compile(r"^\s*not\s+(?:to\s+)?(?P<old>\w+)\s*[,—–-]?\s*(?:but\s+)?(?:to\s+)?"
                      r"(?P<new>\w+)\s*[.!]*\s*$", re.IGNORECASE)
_BUT_NOT = re_compile(r"^\s*(?:(?:wait|sorry|oops|no|actually|oh|i\s+meant|i\s+mean|meant)"
                      r"[,.!]*\s+)*(?:it'?s\s+|its\s+)?"
                      r"(?:for\s+|to\s+)?(?P<new>[\w-]+(?:\s[\w-]+)?)\s*,?\s+not\s+(?:to\s+|for\s+)?"
                      r"(?P<old>[\w-]+(?:\s[\w-]+)?)\s*[.!]*\s*$", re.IGNORECASE)
"""The new one, then the one said away: "it's for my dad not my mom", "dad, not mom"."""
_MEANT = re_compile(r"^\s*(?:(?:wait|sorry|oops|no|oh)[,.!]*\s+)*(?:i\s+meant|i\s+mean|meant|"
                    r"actually|make\s+it|change\s+it\s+to|it'?s\s+(?:for|to)|its\s+(?:for|to))\s+"
                    r"(?P<new>[^,.!?\d]+?)\s*[.!]*\s*$", re.IGNORECASE)
"""Only the new one, said as meant: "sorry, I meant my sister", "actually my dad"."""
_ANSWER_OPENER = re_compile(r"^(?i:(?:it'?s|its|it\s+is|that'?s|thats)\s+(?:for\s+|to\s+)?"
                            r"|(?:for|to)\s+)(?=(?i:my|our)\s|[A-Z])")
"""What opens an English answer of who: "it's my brother", "its jake", "for my mum"."""
_DESCRIBED = re_compile(r"\s*,\s*(?:he|she|they|who|thats|that's)\b.*$", re.IGNORECASE)
"""What is said of the one named after them: "my flatmate Jake, he covered the gas bill"."""
_NAME_THEN_REMARK = re_compile(r"^(?P<name>[가-힣]{2,}(?:이에요|예요|입니다|이야))\s+[^?？\d]+$")
"""A name said with its copula, then a remark on it ("박지연이야 오타남", "민수예요 제 동생"):
the name is the answer, the remark no part of it."""
_DATIVE = re_compile(r"(?<=[가-힣])(?:한테|에게|께)(?:로)?(?:\s+\S+)*$")
"""A recipient's particle, with what is said after it ("할아버지께 얼른 보내드려")."""


def instead(text: str, service: CompiledService, flow: CompiledFlow,
            values: Mapping[str, Any] | None, words: YesNoWords) -> tuple[str, Any] | None:
    """A filled ``bare`` slot's value said away and another put in its place ("아빠 말고 형"
    while the amount is asked, "not dad, mom", "it's for dad not mom"), or only the other
    said as meant ("I meant my sister", "actually my dad") where one such slot is filled:
    the other, read as a bare answer, is the slot's new value: (slot, value), or None."""
    for found in (INSTEAD.match(text.strip()), _NOT_BUT.match(text), _BUT_NOT.match(text)):
        put = _put_instead(found, text, service, flow, values, words) if found else None
        if put is not None:  # "sorry, I meant Tom not Tim": not "sorry" said away
            return put
    return _meant(text, service, flow, values, words)


def _put_instead(found: re.Match[str], text: str, service: CompiledService, flow: CompiledFlow,
                 values: Mapping[str, Any] | None, words: YesNoWords) -> tuple[str, Any] | None:
    if not values or negates(found["new"]) or find_money(found["new"]) or \
            names.undecided(text) or names.hedged(text) or is_question(text):
        return None  # "…한테 보내지 마", "할머니 말고 3만원", "…누나한테 보낼까 고민되네"
    old, new = found["old"].strip(), _DATIVE.sub("", found["new"].strip())
    for name in flow.slots:
        slot = service.slots[name]
        if _same_person(old, str(values.get(name))) and slot.spec.type == "string" and \
                bare_ok(new, None, words) and (read := bare_value(new, slot, words)) is not None \
                and read[0] != old:
            return name, read[0]
    return None


def _meant(text: str, service: CompiledService, flow: CompiledFlow,
           values: Mapping[str, Any] | None, words: YesNoWords) -> tuple[str, Any] | None:
    """Only the new one said as meant ("sorry, I meant my sister"), where one ``bare``
    string slot is filled: (slot, value), or None."""
    meant = _MEANT.match(text)
    if meant is None or not values:
        return None
    filled = [n for n in flow.slots if values.get(n) not in (None, "") and
              (slot := service.slots[n]).spec.type == "string" and
              slot.spec.extract is not None and slot.spec.extract.bare]
    new = meant["new"].strip()
    if len(filled) != 1 or find_money(new) or not bare_ok(new, None, words):
        return None
    read = bare_value(new, service.slots[filled[0]], words)
    return (filled[0], read[0]) if read is not None and read[0] != values.get(filled[0]) \
        else None


def named_after(text: str, cut: int, slot: CompiledSlot, ms: list[Match]) -> list[Match]:
    """A ``bare`` slot's matches, with a name said alone after a self-correction at ``cut``
    in place of those before it ("send mom 50k, actually dad", "엄마한테 5만원 보내줘 아
    아니 아빠"): the name said last."""
    said = after_retraction(text)
    if said is None or not ms or any(m.start >= cut for m in ms) or slot.spec.extract is None \
            or not slot.spec.extract.bare or not short_answer(said) or yes_no(said, _WORDS) \
            or _DIGIT.search(said):  # "30k no wait 40k": an amount, no one
        return ms
    read = _bare_name(said, slot, _WORDS)
    if read is None:
        return ms
    at = text.rfind(str(read[0]))
    return ms if at < cut else [Match(value=read[0], start=at, end=at + len(str(read[0])),
                                      text=str(read[0]))]


_WORDS = default_words("ko")
"""Decision words in both languages: "actually, never mind" names no one."""
_DIGIT = re_compile(r"[0-9]")


def _same_person(said: str, value: str) -> bool:
    """Whether ``said`` names the one ``value`` names: the same, or its given name ("민수" of
    "김민수", "john" of "John Park")."""
    given = persons.given_name(value)
    return said == value or given is not None and given.casefold() == said.casefold()


def _verbs_off(text: str, words: YesNoWords | None) -> str:
    """``text`` without the flow's verbs said after it ("민수 송금", "엄마 보내줘")."""
    head, _, last = text.rpartition(" ")
    while words is not None and head.strip() and words.acts(last):
        text = head.rstrip()
        head, _, last = text.rpartition(" ")
    return text


def short_answer(text: str) -> bool:
    """A bare answer: at most three words and not a question ("엄마", "my sister")."""
    words = text.split()
    return 0 < len(words) <= 3 and not text.rstrip().endswith(("?", "？"))


def free_text(service: CompiledService, asked: str | None) -> bool:
    """Whether the asked slot takes the whole message, however long (``extract.free_text``)."""
    slot = service.slots.get(asked) if asked is not None else None
    return slot is not None and slot.spec.extract is not None and slot.spec.extract.free_text


def a_note(text: str, service: CompiledService, asked: str | None,
            picked: Mapping[str, Any]) -> bool:
    """Whether the asked free-text slot took the whole message: all of it is the note, what
    others said and hedges too ("노캔 미쳤음 강추"), but never a question (an English note
    that only opens like one is none: "does what it says", "Was on the fence, zero regrets")."""
    return list(picked) == [asked] and free_text(service, asked) and not (
        is_question(text) and not (_LATIN_NOTE.match(text) and not asks(text.strip())))


_LATIN_NOTE = re_compile(r"[A-Za-z][^?？]*$")
"""A note opened in English with no question mark: it may open like a question ("does what it
says"); one that opens with a question word ("what should I write") asks."""


def bare_ok(text: str, answer: str | None, words: YesNoWords) -> bool:
    """Whether the whole message may be taken as the asked slot's value: not a decision,
    not a question, a quote or a sentence ("배고프다", "I had a long day"), and no word of
    it a question word ("누구", "what") or a filler ("음", "글쎄", "um") once the sounds that
    open it while one thinks are set aside ("어 누나요" is 누나), nor opening with a yes or a
    no ("아니 그게")."""
    whole = text.strip()
    said = _ANSWER_OPENER.sub("", _DESCRIBED.sub("", OPENING.sub("", whole)))  # "oh it's my
    # brother": the sound, then what opens the answer
    text = OPENING.sub("", said)  # "어 누나요": what one says while thinking is no answer
    opened = _ANSWER_OPENER.sub("", _DESCRIBED.sub("", whole))  # "아 졸리다 진짜": a sentence
    if answer in ("cancel", "deny") or decision_text(text) is None or is_statement(text) or \
            is_statement(said) or not opened.isascii() and is_statement(opened):
        return False
    if (corrected := INSTEAD.match(text.strip())) is not None:  # "엄마. 아 아니 아빠": its
        text = f"{corrected['old']} {corrected['new']}"  # 아 and 아니 correct, not hesitate
    tokens = normalise(text).split(" ")
    if answer == "confirm" and len(normalise(said).split(" ")) == 1:
        return False  # "네" answers yes; "정말 좋아요" may be a review's text
    return not any(asks(t) or t in FILLERS for t in tokens) and \
        yes_no(tokens[0], words) is None


__all__ = ["INSTEAD", "LEAST_BARE", "OPENING", "a_note", "bare_ok", "bare_value", "free_text",
           "instead", "named_after", "named_ahead", "named_values", "short_answer"]
