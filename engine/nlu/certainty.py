"""A message and the values rules found in it -> which of them the rules can be sure of.

The rules settle a turn only when the whole message is accounted for by what they read.
These checks say when a value found in a message is not the user's value after all:

- ``negated``: the value is the one being corrected away ("5만원 말고 7만원", "10만원
  아니고 8만원", "not 50 but 70"): the other one is meant;
- ``ranged``: the value is one end of a range or one of alternatives ("3~4만원", "3만원이나
  4만원", "30 or 40 dollars"): no single value was given;
- ``unaccounted``: words the rules cannot place ("오늘 날씨 좋다" once "오늘" is read as a
  date): with nothing else read, the message is about something else;
- ``inexact``: the value is said only roughly, as a bound, or as part of a sum ("5만원
  정도", "최소 5만원", "2만원 이상", "2만원 + 5천원"): no amount to move;
- ``bare_number``: a plain number answering an amount question ("50000", "2만5천",
  "5만웜"), which is the amount though no currency is written;
- ``named_by``, ``names_pattern``: the words that name a slot, spaced or not.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Sequence

from engine.precompiled import re_compile

from .dates import find_dates
from .numbers import EN_NUMERAL, english_numeral, find_numbers, parse_numeral, to_number
from .phrases import A_LAUGH, CANCEL_SET_ASIDE, FILLERS
from .retractions import retraction_spans
from .spans import Match
from .text import SENTENCE_END

_NEGATED_AFTER = re_compile(
    r"\s*(?:원|won|dollars?|달러)?\s*(?:한텐|에겐|한테|헌테|헨테|한태|에게|께)?용?(?:은|는|이|가|을|를|도)?\s*"
    r"(?:(?:\S+\s*)?(?:거|건|게)\s*)?"
    r"(?:(?:아니고|아니라|아니야|아니에요|아니예요|아닙니다|아님|아니|말고|대신에?|빼고|안\s*돼|"
    r"안\s*되)(?:\s|$|[,.!요세])|\S*지\s*(?:마|말)"
    r"|(?:(?:발급|신청|가입|결제|주문|구매)\s*)?"  # "신용카드는 발급 안 받을래요"
    r"(?:안|못)\s*(?:보내|보낼|보냄|줘|줄|주|드려|드릴|부쳐|이체|송금|넣|쏴|할|해|하|만들|쓸|써|쓰|"
    r"받|살|사))")
_TURNED_DOWN = re_compile(
    r"\s*용?(?:은|는|이|가|을|를|도)?\s*(?:\S+기\s*)?"
    r"(?:싫|별로(?=\s|$|[,.!?~]|야|예요|에요|다|입니다|고)|필요\s*없|원하지\s*않|취소)")
"""A choice turned down right after it ("체크카드는 싫어요", "쓰기 싫고", "별로예요", "필요
없어요"), not a bound said of it ("50만원 넘는 건 싫어요")."""
_NEGATED_BEFORE = re_compile(r"(?:\bnot|\binstead of|\brather than)\s*\$?$", re.IGNORECASE)
_NEGATED_CLAUSE = re_compile(
    r"\b(?:not|no(?!,?\s+(?:it'?s|it\s+is|that'?s|i\s+mean|wait|sorry|actually)\b)|never|"
    r"don'?t|do not|doesn'?t|won'?t|anything but|except|without|"
    r"isn'?t|aren'?t|wasn'?t|weren'?t|ain'?t|didn'?t|hasn'?t|haven'?t)\b"
    r"(?:(?!\b(?:but|instead|rather|so)\b)[^.,!?;…])*$",
    re.IGNORECASE)
"""A negation earlier in the value's clause ("anything but large", "don't give me a big
one"; not the no of a correction, "no its u2"); a yes/no value carries its own negation
("without extra cheese" is false)."""
_RANGE_BEFORE = re_compile(
    r"(?:[0-9일이삼사오육칠팔구십백천만]|원|won|dollars?|달러)\s*"
    r"(?:[~∼\-–]|에서|이나|아니면|또는|\bto\b|\bor\b)\s*$"
    r"|\bbetween\s+[$₩]?(?:\S+\s+and\s+[$₩]?)?$", re.IGNORECASE)
_RANGE_AFTER = re_compile(
    r"\s*(?:원|won|dollars?|달러)?\s*(?:[~∼\-–]|에서|이나|나|아니면|또는|\bto\b|\bor\b)\s*"
    r"[$₩]?[0-9일이삼사오육칠팔구십백천만]", re.IGNORECASE)
_ROUGH_BEFORE = re_compile(
    r"(?:(?:^|(?<=\s))(?:최소|최소한|최대|최대한|적어도|많아야|대충|대략|약|한|거의)|~|"
    r"\b(?:about|around|roughly|approximately|approx|at least|at most|up to|under|over|"
    r"more than|less than|no more than|no less than|maybe))\s*[$₩]?$", re.IGNORECASE)
_ROUGH_AFTER = re_compile(
    r"\s*(?:원|won|dollars?|달러)?\s*(?:은|는|을|를|이|가|만)?\s*(?:조금|좀|약간|살짝)?\s*"
    r"(?:정도|쯤|가량|안팎|내외|남짓|이상|이하|미만|초과|넘게|넘는|넘지|넘어|안쪽|이내|까지|"
    r"언저리|전후|안으로|밑으로|아래로|더|덜|안\s*되게|안\s*넘게|\+|"
    r"\b(?:or so|or more|or less|at most|at least|max|tops|ish|more)\b)", re.IGNORECASE)
_BAND = re_compile(r"(?:원|won)?대(?![가-힣]{2})")
"""An amount naming a band, not a sum: "10만원대" (100,000 to 199,999), "만원대로"."""
_SUM = re_compile(r"[+×*÷=]|\d\s*x\s*\d|\b(?:plus|minus|times|split|divided)\b|곱하기|나누기|"
                  r"더하기|더해|더한|빼기|곱해|나눠|나누어|나눈|합쳐|합해|짜리|원권|만큼|인당|명분|각각|"
                  r"반띵|반반|절반|분의|(?:두|세|네|다섯|[2-9])\s*(?:번|배(?!송|달))|"
                  r"(?:의|원|만)\s?반(?:만|값|으로|이요|요)?(?![가-힣])|"
                  r"\b(?:each|apiece|per person|per head|"
                  r"half(?!\s+(?:of\s+)?an?\s+(?:thousand|million|hour)\b|\s+(?:past|hour)\b))\b",
                  re.IGNORECASE)
PARTICLE = re_compile(
    r"^(?:한테|에게|께|한테로|에게로|으로|로|을|를|이|가|은|는|이요|요|만|정도|쯤|씩|"
    r"입니다|이에요|예요|에요|이야|야|임|이고|이구|용)+$")
"""Korean particles, copulas and the like, left over once a value is taken out of a word ("용"
of a purpose: "게임용이요")."""
_CHANGE = frozenset({
    "바꿔", "바꿔줘", "바꿔요", "바꿔주세요", "바꿀게", "변경", "변경해", "변경해줘",
    "변경해주세요", "수정", "수정해", "수정해줘", "수정해주세요", "고쳐", "고쳐줘", "해줘",
    "해주세요", "해", "할게", "할게요", "로", "으로",
    "change", "make", "it", "instead", "to", "switch", "please", "the", "on", "for", "do",
    "set", "move", "update", "rather", "go", "with", "but", "use", "send", "ship", "via", "by",
    "can", "could", "would", "you", "u", "pls", "plz", "정도", "쯤", "한", "약", "대충", "about",
    "around",  # and a preference is a change too: "5만원이 낫겠다", "express would be better"
    "낫겠다", "낫겠어", "낫겠어요", "낫겠네", "낫겠네요", "나을듯", "나을", "듯", "좋겠다",
    "좋겠어", "좋겠어요", "좋겠네요", "better", "prefer", "id", "be", "is",
    # and a need: "actually i need it asap, do express"
    "i", "need", "want", "wanna", "asap", "actually", "fast", "quick", "quickly", "urgently",
    "push", "delay", "postpone", "bump", "moved", "pushed", "reschedule", "modify", "edit",
    "adjust", "fix", "correct",
    "거예요", "거에요", "거요", "꺼예요", "꺼에요", "거야", "것입니다", "번호", "좀", "다시",
    "너무", "많다", "많아", "많아요", "많네", "많네요", "적다", "적어", "적어요", "적네", "하자",
    "생각해보니", "생각해", "보니",  # and a time of day the flow keeps as a day: "내일 morning"
    "morning", "afternoon", "evening", *(f"{t}{p}" for t in ("아침", "오전", "오후", "저녁")
                                         for p in ("", "에", "으로", "로")),
})
"""Words that say "use this value" (or only round it), and so add nothing to a value."""
_LATIN_PARTICLE = re_compile(r"(?<=[a-z])(?:으로|로|에는|에|은|는|이|가|을|를)$")
"""A Korean particle on an English word ("morning으로"): the word is what counts."""
_NOT_CANCELLING = re_compile(CANCEL_SET_ASIDE)
"""A cancel turned down before a change ("취소하지 말고 날짜만 내일로", "취소 말고 5만원으로"):
it adds nothing."""
_UNIT_TYPOS = re_compile(r"^(?:원|웜|언|웡|원이요|원요|won|₩)$", re.IGNORECASE)


_MALFORMED_AMOUNT = re_compile(
    r"(?:[0-9][0-9.,]*[eE][+-]?[0-9]+|(?<![a-z])(?:nan|inf(?:inity)?)(?![a-z])|∞|[0-9]{16,})\s*"
    r"(?:원|won|dollars?|달러|euros?|유로|\$|₩|€|krw|usd|eur)"
    r"|(?:\$|₩|€)\s*(?:[0-9][0-9.,]*[eE][+-]?[0-9]+|nan|inf(?:inity)?|∞|[0-9]{16,})",
    re.IGNORECASE)


def malformed_amount(text: str) -> tuple[int, int] | None:
    """Where ``text`` writes an amount that is no amount: an exponent ("1e400원"), NaN,
    infinity, or a run of 16 digits or more. Refused with the slot's error, never misread
    (the finder would otherwise take "400원" out of "1e400원").

    >>> malformed_amount("엄마한테 1e400원 보내줘"), malformed_amount("5만원")
    ((5, 11), None)
    """
    found = _MALFORMED_AMOUNT.search(text)
    return found.span() if found else None


def negated(text: str, match: Match) -> bool:
    """Whether ``match`` is the value being corrected away.

    >>> from engine.nlu import find_money
    >>> text = "5만원 말고 7만원"
    >>> [negated(text, m) for m in find_money(text)]
    [True, False]
    >>> said = ("5만원은 안 돼", "2만원은 보내지 마", "3만원 보내줘")
    >>> [negated(t, find_money(t)[0]) for t in said]
    [True, True, False]
    """
    taken = max((end for _, end in retraction_spans(text) if end <= match.start), default=0)
    return bool(_NEGATED_AFTER.match(text, match.end) or  # "30k no wait 40k": its "no" takes
                _NEGATED_BEFORE.search(text, 0, match.start) or  # 30k back, not 40k
                _TURNED_DOWN.match(text, match.end) or  # "체크카드는 싫어요"
                not isinstance(match.value, bool) and
                _NEGATED_CLAUSE.search(text, taken, match.start))


_UNSURE_BEFORE = re_compile(r"\b(?:(?:something|kind of|sort of|looks) like|similar to|"
                            r"starts? with|begins? with|ends? with|"
                            r"i think(?: it'?s)?|probably|maybe|could be)\s*$", re.IGNORECASE)
_UNSURE_AFTER = re_compile(r"\s*(?:-\s*)?(?:or\s+)?something\b|\s*(?:or so|or similar|ish)\b"
                           r"|(?:으?로\s*시작|쯤인가|인가\?|였나|이었나|같은데)", re.IGNORECASE)
_YEAR_BEFORE = re_compile(r"\b(?:since|in|from|until|till|back in|by|year)\s+$", re.IGNORECASE)


_SPEAKER_BEFORE = re_compile(r"\b(?:i'?m|i\s+am|i\s+was|i'?ve\s+been|i\s+feel|i\s+got)\s+"
                             r"(?:(?:a\s+bit|a\s+little|kind\s+of|sort\s+of|kinda|so|really|"
                             r"totally|completely|just|pretty|very|getting|feeling)\s+)*$",
                             re.IGNORECASE)


def of_the_speaker(text: str, match: Match) -> bool:
    """Whether a state is said of the speaker, not of the thing asked about ("I'm not
    working today": the card's "not working" is not meant)."""
    return _SPEAKER_BEFORE.search(text, 0, match.start) is not None


def unsure(text: str, match: Match) -> bool:
    """Whether ``match`` is said as a guess or only in part: no code to act on ("something
    like u48", "u48-something", "starts with 48", "555-201-33 something", "1234였나"), or a
    year where a number goes ("since 2015").

    >>> [unsure(t, Match(v, t.index(v), t.index(v) + len(v), v)) for t, v in (
    ...     ("something like u48-something", "u48"), ("it's 555-201 something", "555-201"),
    ...     ("my id is u48", "u48"))]
    [True, True, False]
    >>> unsure("had it since 2015", Match(2015, 13, 17, "2015"))
    True
    """
    if isinstance(match.value, bool):
        return False
    said = str(match.value)  # a number, or four digits kept as said (a PIN)
    year = len(said) == 4 and said.isdigit() and 1900 <= int(said) <= 2099
    return bool(_UNSURE_BEFORE.search(text, 0, match.start) or
                _UNSURE_AFTER.match(text, match.end) or
                year and _YEAR_BEFORE.search(text, 0, match.start))


def ranged(text: str, match: Match) -> bool:
    """Whether ``match`` is one end of a range, one of alternatives ("3~4만원") or names a
    band ("10만원대": anything from 100,000 to 199,999).

    >>> from engine.nlu import find_money
    >>> [ranged("3~4만원 정도", m) for m in find_money("3~4만원 정도")]
    [True]
    >>> [ranged(t, find_money(t)[0]) for t in ("10만원대 키보드", "만원대로", "만원 대출")]
    [True, True, False]
    >>> from engine.nlu.dates import find_dates
    >>> [ranged("내일이나 모레", m) for m in find_dates("내일이나 모레", dt.date(2026, 1, 5))]
    [True, True]
    """
    if isinstance(match.value, dt.date):  # "내일이나 모레", "tomorrow or friday"
        return _either(text, match)
    if isinstance(match.value, bool) or not isinstance(match.value, int | float):
        return False  # only amounts, numbers and dates have ends
    return bool(_RANGE_BEFORE.search(text, 0, match.start) or
                _RANGE_AFTER.match(text, match.end) or _BAND.match(text, match.end))


EITHER_AFTER = re_compile(r"(?:이나|나(?!\S)|\s*(?:/|(?:또는|혹은|아니면|아님|or)\s))\s*\S",
                          re.IGNORECASE)
EITHER_BEFORE = re_compile(r"\S(?:이나|나|에나)?\s*(?:/|\s(?:또는|혹은|아니면|아님|or))\s*$"
                           r"|\S(?:이나|나)\s+$", re.IGNORECASE)
"""A date said as one of two ("내일이나 모레", "금요일 또는 토요일", "tomorrow or friday"): no
date to send on yet."""


def _either(text: str, match: Match) -> bool:
    """Whether the date ``match`` is one of two dates said as alternatives (a date alone
    with 이나, "내일이나 보내줘", is that date)."""
    after = EITHER_AFTER.match(text, match.end)
    if after is not None and any(m.start == after.end() - 1 - match.end for m in
                                 find_dates(text[match.end:], _ANY_DAY)):
        return True
    before = EITHER_BEFORE.search(text, 0, match.start)
    return before is not None and any(m.end == before.start() + 1
                                      for m in find_dates(text[:before.start() + 1], _ANY_DAY))


_ANY_DAY = dt.date(2026, 1, 5)
"""Where dates are only looked for, not resolved."""


def inexact(text: str, match: Match) -> bool:
    """Whether ``match`` is said only roughly, as a bound, or inside a sum to work out: no
    amount to move ("5만원 정도", "최소 5만원", "2만원 이상", "3만원씩 두 번", "오만원권 두
    장": notes counted).

    >>> from engine.nlu import find_money
    >>> said = ("5만원 정도", "적어도 3만원", "2만원 이상", "2만원 + 5천원", "5만원 보내줘")
    >>> [inexact(t, find_money(t)[0]) for t in said]
    [True, True, True, True, False]
    >>> said = ("반반 내기로 해서 2만원 보내줘", "2만원 반반 보내줘")
    >>> [inexact(t, find_money(t)[0]) for t in said]
    [False, True]

    """
    if isinstance(match.value, bool) or not isinstance(match.value, int | float):
        return False
    opens = max((m.end() for m in (*SENTENCE_END.finditer(text, 0, match.start),
                                   *_WHY_ENDS.finditer(text, 0, match.start))), default=0)
    closing = SENTENCE_END.search(text, match.end)  # a sum in its own sentence: "…보내 주십시오.
    closes = closing.start() if closing is not None else len(text)  # 음식값을 나누기로 했습니다"
    return bool(_ROUGH_BEFORE.search(text, 0, match.start) or
                _ROUGH_AFTER.match(text, match.end) or _SUM.search(text, opens, closes))



_WHY_ENDS = re_compile(r"(?<=[가-힣])(?:서|니까|니깐|는데|길래)(?:요)?,?\s+")
"""Where a clause of why ends: a sum worked out in it ("둘이 나눠 내기로 해서 룸메한테
2만 2천원 보내줘") leaves the amount said after it exact."""
_GIVEN_AFTER = re_compile(
    r"\s*(?:에|에는|엔|에도|날)?\s*(?:(?:\S+(?:한테|에게|께)|못|안|이미|벌써|다|잘못|같이|그|\S*원)"
    r"\s+){0,3}(?:(?:보냈|이체했|송금했|입금했|부쳤|쐈|줬|드렸|냈|빌렸|받았)"
    r"|(?:보낸|이체한|송금한|입금한|부친|쏜|준|드린|낸|빌린|받은)(?:거|건|걸|것)?(?=\s|$|[.,!?~]))"
    r"|\s*(?:에|엔)?\s+(?:\S+\s+){0,3}?(?:대신\s+)?(?:내|사|해|보내|빌려|갚아)준\s+\S")
"""What was given on the day said before it ("어제 보낸 3만원", "지난달 3일에 빌린 거"), or who
paid for the speaker then ("어제 엄마 병원비 대신 내준 언니한테"): no day to send on."""
_GIVEN_BEFORE = re_compile(
    r"(?:\b(?:i|we)\s+(?:already\s+|just\s+)?(?:sent|paid|transferred|wired|gave|did)\b[^,.;!?]*"
    r"|\b(?:same as|as|like)\s+(?:on\s+|last\s+)?)$", re.IGNORECASE)


def given_then(text: str, match: Match) -> bool:
    """Whether a date is when money was given before, not when to give it ("어제 보낸 3만원
    다시 보내줘", "어제 못 보낸 거", "the 30k I sent mom yesterday", "same as last week").

    >>> from engine.nlu.dates import find_dates
    >>> import datetime as dt
    >>> said = ("엄마한테 어제 보낸 거 다시 보내줘", "the 30k I sent mom yesterday", "내일 보내줘")
    >>> [given_then(t, find_dates(t, dt.date(2026, 11, 29))[0]) for t in said]
    [True, True, False]
    >>> given_then("내일 준비되면 보내줘", find_dates("내일 준비되면", dt.date(2026, 11, 29))[0])
    False
    """
    return bool(_GIVEN_AFTER.match(text, match.end) or _GIVEN_BEFORE.search(text, 0, match.start))


def leftover(text: str, spans: Sequence[tuple[int, int]],
             known: Callable[[str], bool]) -> list[str]:
    """The words of ``text`` outside ``spans`` that nothing accounts for: not a particle,
    a filler, a word of changing a value, nor a word ``known`` accepts (decision words,
    politeness, the flow's verbs).

    >>> leftover("오늘 날씨 좋다", [(0, 2)], lambda w: False)
    ['날씨', '좋다']
    >>> leftover("내일로 바꿔줘", [(0, 2)], lambda w: False)
    []
    """
    kept, last = [], 0
    for start, end in sorted(spans):  # spans may overlap
        kept.append(text[last:max(last, start)])
        kept.append(" ")
        last = max(last, end)
    kept.append(text[last:])
    said = _NOT_CANCELLING.sub(" ", A_LAUGH.sub(" ", "".join(kept)))  # "ㅋㅋ", "취소하지 말고"
    words = [_LATIN_PARTICLE.sub("", w) for w in re.sub(r"[^\w\s]", " ", said.casefold()).split()]
    return [w for w in words if not (PARTICLE.match(w) or w in FILLERS or w in _CHANGE or
                                     known(w) or _glued_on(w, known))]


_GLUED = re_compile(r"^(?:으로|로|을|를|은|는|이|가|도|만)(?=[가-힣])")


def _glued_on(word: str, known: Callable[[str], bool]) -> bool:
    """Whether ``word`` is a particle with a known word run on ("체크로할게요": 로 + 할게요)."""
    glued = _GLUED.match(word)
    return glued is not None and known(word[glued.end():])


def names_pattern(names: Iterable[str]) -> str:
    """A slot's ``names`` as one regex alternative, longest first, each spaced or not
    ("받는분" says "받는 사람"'s sibling "받는 분" as well as it spaced).

    >>> re.fullmatch(names_pattern(["받는 분", "금액"]), "받는분") is not None
    True
    """
    return "|".join(r"\s?".join(map(re.escape, n.split()))
                    for n in sorted(names, key=len, reverse=True))


def named_by(names: Iterable[str]) -> Callable[[str], bool]:
    """Whether a word names one of ``names`` ("받는 사람" names by its words, or as one:
    "받는사람"), a particle allowed after it ("금액을").

    >>> named = named_by(["금액", "받는 사람"])
    >>> named("금액을"), named("사람"), named("받는사람은"), named("금액이랑")
    (True, True, True, False)
    """
    parts = {part for name in names for part in (*name.casefold().split(),
                                                  "".join(name.casefold().split()))}
    return lambda word: any(word.startswith(p) and (
        word == p or PARTICLE.match(word[len(p):]) is not None) for p in parts)


def bare_number(text: str, known: Callable[[str], bool], least: int = 100) -> Match | None:
    """The one number of a message that is nothing else ("50000", "2만5천", "5만웜 정도"):
    the answer to an amount question. Digits alone under ``least`` are none: "5", "40" or,
    in won (``least`` 1000), "100" — 100원? 100만원? — are asked about, not taken.

    >>> bare_number("2만5천", lambda w: False).value, bare_number("5만웜", lambda w: False).value
    (25000, 50000)
    >>> bare_number("3명이요", lambda w: False) is None, bare_number("5", lambda w: False)
    (True, None)
    >>> bare_number("twenty-five thousand", lambda w: False).value
    25000
    """
    numbers = _english_amount(text) or _hangul_amount(text) or find_numbers(text)
    if len(numbers) != 1:
        return None
    number = numbers[0]
    if number.text.isascii() and isinstance(number.value, int) and number.value < least:
        return None  # "5", "10", "ten": 5만원? 10만원?
    rest = text[number.end:].strip()
    unit = re.match(r"^\S*", rest)
    if unit is not None and unit.group(0) and _UNIT_TYPOS.match(unit.group(0)):
        rest = rest[unit.end():]
    if leftover(text[:number.start] + " " + rest, [], known):
        return None
    return number


_EN_NUMERAL = re_compile(EN_NUMERAL, re.IGNORECASE)


def _english_amount(text: str) -> list[Match]:
    """The numbers said in English words of more than one word ("thirty thousand", "a
    hundred and fifty"); one word ("ten") is ``find_numbers``'."""
    return [Match(value=value, start=m.start(), end=m.end(), text=m.group())
            for m in _EN_NUMERAL.finditer(text)
            if (" " in m.group() or "-" in m.group()) and
            (value := english_numeral(m.group())) is not None]


_HANGUL_ONLY = re_compile(
    r"\s*(?P<n>[0-9일이삼사오육칠팔구십백천만억조]+?(?:\s[0-9일이삼사오육칠팔구십백천]+?)*?)\s*"
    r"(?:원|이요|요|입니다|이에요|예요)?[.!~\s]*")


def _hangul_amount(text: str) -> list[Match]:
    """A message that is nothing but a number written with Hangul units ("이십만", "삼만
    오천이요", "3만 오천"), read only as an amount's bare answer (elsewhere "이" and "만" are
    words).

    >>> [m.value for m in _hangul_amount("삼만 오천이요")], _hangul_amount("천천히")
    ([35000], [])
    >>> [m.value for m in _hangul_amount("3만 오천")], _hangul_amount("3 500")
    ([35000], [])
    >>> [m.value for m in _hangul_amount("오천이요")]
    [5000]
    """
    found = _HANGUL_ONLY.fullmatch(text)
    if found is None or not any(c in "십백천만억조" for c in found["n"]):
        return []
    value = parse_numeral(found["n"])
    return [] if value is None or value == 0 else [
        Match(value=to_number(value), start=found.start("n"), end=found.end("n"),
              text=found["n"])]


__all__ = ["PARTICLE", "bare_number", "given_then", "inexact", "leftover", "malformed_amount",
           "named_by", "names_pattern", "negated", "of_the_speaker", "ranged", "unsure"]
