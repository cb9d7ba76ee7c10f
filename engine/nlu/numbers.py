"""Text -> plain numbers as Match spans ("3개" -> 3, "-5", "1,200", "2.5", "5만" -> 50000, "two").

Also holds the numeral arithmetic money.py builds on: Arabic digits with thousands
separators, Korean numerals (일이삼사오육칠팔구), the small units 십백천 and the big units
만억조, in any mix ("3만5천", "2백만", "1,200만", "3.5만").

Rules worth knowing:
- Korean numeral *syllables* are only read by money.py (next to 원); here a bare "이" or
  "사" is a word, not a number. Digits followed by units are read ("5만" -> 50000).
- A minus sign counts only when it does not follow a word character, so the month in
  "2026-11-22" is never -11; ISO dates and clock times are skipped as a whole.
- "10k" -> 10000 ("3kg" stays 3: the k must not be followed by a letter).
- English number words zero..twenty are read as ints.
- Values are int unless there is a non-zero fractional part ("2.5" -> 2.5, "2.0" -> 2).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from engine.precompiled import re_compile

from .spans import Match, non_overlapping

DIGITS = r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?"
KO_DIGIT_CHARS = "일이삼사오육칠팔구"
KO_SMALL_CHARS = "십백천"
KO_BIG_CHARS = "만억조"

_KO_DIGITS = {c: i for i, c in enumerate(KO_DIGIT_CHARS, start=1)}
_KO_SMALL = {"십": 10, "백": 100, "천": 1000}
_KO_BIG = {"만": 10**4, "억": 10**8, "조": 10**12}
_KO_TOKEN = re_compile(rf"{DIGITS}|[{KO_DIGIT_CHARS}{KO_SMALL_CHARS}{KO_BIG_CHARS}]")

_EN_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
).split()
EN_NUMBER_WORDS = {word: value for value, word in enumerate(_EN_WORDS)}
_EN_TENS = {w: 10 * i for i, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_EN_SCALES = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9}
_EN_NUMERAL_WORD = "|".join(sorted([*_EN_WORDS[1:], *_EN_TENS, *_EN_SCALES],
                                   key=lambda w: (-len(w), w)))
EN_NUMERAL = (rf"\b(?:an?\s+(?=(?:hundred|thousand|million|billion)\b))?(?:{_EN_NUMERAL_WORD})"
              rf"(?:(?:\s+and\s+|[\s-]+)(?:{_EN_NUMERAL_WORD}))*\b")
"""A number said in English words ("thirty thousand", "a hundred and fifty", "twenty-five"),
as a pattern (case-insensitive use); ``english_numeral`` gives its value."""

_SIGN = r"(?P<neg>(?<![\w.\-−])[-−]|(?<![가-힣])마이너스\s*|\bminus\s+)?"
_NUMBER = re_compile(
    # Dates and clock times are consumed whole so their parts never surface as numbers.
    r"(?P<skip>(?<![0-9])[0-9]{4}[-./][0-9]{1,2}[-./][0-9]{1,2}(?![0-9])"
    r"|(?<![0-9])[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?(?![0-9]))"
    rf"|{_SIGN}(?<![0-9.A-Za-z_])(?P<body>(?:{DIGITS})"
    rf"(?:[{KO_SMALL_CHARS}{KO_BIG_CHARS}]|(?<=[{KO_BIG_CHARS}])\s(?=[0-9])"
    # "3 만원", "5 천이요": digits, a space, a unit (never "3 만약에", "10 만큼")
    rf"|(?<=[0-9])\s(?=[{KO_SMALL_CHARS}{KO_BIG_CHARS}]"
    rf"(?:[{KO_SMALL_CHARS}{KO_BIG_CHARS}]|원|이요|요|입니다|이에요|예요|[^가-힣]|$))"
    rf"|(?:{DIGITS}))*)"
    r"(?P<kilo>[kK](?![A-Za-z]))?"
    rf"|(?<!\bthe )(?<!\bthat )(?<!\bthis )(?<!\bwhich )\b(?P<word>{'|'.join(_EN_WORDS)})\b",
    re.IGNORECASE,
)


_PRONOUN_ONE = re_compile(r"\b(?:the|an?|that|this|which|another|other|each|every|any|some|"
                          r"no|my|your|his|her|their|our|its|same)\s+(?:[a-z'-]+\s+){0,2}$",
                          re.IGNORECASE)
"""What makes "one" a pronoun, not a number: "the old one", "a large one", "another one"."""


def english_numeral(said: str) -> int | None:
    """The value of a number said in English words, or None for words that make no number
    ("five twenty", "thousand million").

    >>> [english_numeral(s) for s in ("thirty thousand", "a hundred and fifty", "twenty-five",
    ...                                "one hundred twenty thousand", "five twenty")]
    [30000, 150, 25, 120000, None]
    """
    total, current, last_scale = 0, 0, 10**12
    for word in re.split(r"[\s-]+", said.lower().strip()):
        small, tens = EN_NUMBER_WORDS.get(word), _EN_TENS.get(word)
        if word in ("a", "an") and total == current == 0:
            current = 1
        elif word == "and":
            continue
        elif small is not None and word != "zero":
            if current % 10 or (small >= 10 and current % 100):
                return None  # "five six", "twenty twelve"
            current += small
        elif tens is not None:
            if current % 100:
                return None  # "five twenty"
            current += tens
        elif word == "hundred":
            if not 0 < current < 10:
                return None
            current *= 100
        elif word in _EN_SCALES and current and _EN_SCALES[word] < last_scale:
            total, current, last_scale = total + current * _EN_SCALES[word], 0, _EN_SCALES[word]
        else:
            return None
    return (total + current or None) if said.strip().lower() not in ("a", "an") else None


def to_number(value: Decimal) -> int | float:
    """Decimal -> int when integral, else float (the value type every extractor returns)."""
    integral = value.to_integral_value()
    return int(integral) if value == integral else float(value)


def parse_numeral(body: str) -> Decimal | None:
    """Korean/Arabic numeral text -> its value, None when the units are out of order.

    >>> parse_numeral("3만 5천"), parse_numeral("삼만"), parse_numeral("천천")
    (Decimal('35000'), Decimal('30000'), None)
    """
    total, section = Decimal(0), Decimal(0)
    current: Decimal | None = None
    last_small, last_big = 10**5, 10**13  # units must descend: "천백" yes, "백천" no
    for token in _KO_TOKEN.findall(body):
        if token in _KO_SMALL:
            unit = _KO_SMALL[token]
            if unit >= last_small:
                return None
            section += (current if current is not None else 1) * unit
            current, last_small = None, unit
        elif token in _KO_BIG:
            unit = _KO_BIG[token]
            if unit >= last_big:
                return None
            section += current if current is not None else 0
            total += (section or 1) * unit  # a bare "만" means one 만
            section, current, last_small, last_big = Decimal(0), None, 10**5, unit
        elif current is not None:
            return None  # two numbers in a row ("3이천") are not one amount
        else:
            current = _digit_value(token)
    return total + section + (current if current is not None else 0)


def _digit_value(token: str) -> Decimal:
    if token in _KO_DIGITS:
        return Decimal(_KO_DIGITS[token])
    try:
        return Decimal(token.replace(",", ""))
    except InvalidOperation:  # cannot happen for _KO_TOKEN digits; keeps the type total
        return Decimal(0)


_NATIVE_ONES = {"한": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "석": 3, "네": 4, "넷": 4,
                "넉": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9}
_NATIVE_TENS = {"열": 10, "스물": 20, "스무": 20}
_ONES = "|".join(sorted(_NATIVE_ONES, key=len, reverse=True))
_COUNTERS = r"개|명|장|병|권|대|벌|잔|마리|판|박스|세트|켤레|통|봉지|팩|인분"
_NATIVE = re_compile(
    rf"(?<![가-힣])(?P<tens>열|스물|스무)?\s?(?P<ones>{_ONES})?\s?(?P<unit>{_COUNTERS})"
    rf"(?:요|만요|만|씩|이요|짜리|를|을|이|가|도|로|으로|로요)?(?![가-힣])")
_ALONE = re_compile(rf"^\s*(?P<n>열|스물|{_ONES})(?:만|이요|요|만요|이에요|예요)?\s*[.!~]*\s*$")
"""A Korean native numeral said alone ("하나만요", "셋이요"): the answer to "how many?"."""


def _native(text: str) -> list[Match]:
    """Korean native numerals with a counter ("세 개", "열두 병", "하나만요" said alone)."""
    alone = _ALONE.match(text)
    if alone:
        word = alone["n"]
        value = _NATIVE_ONES.get(word) or _NATIVE_TENS.get(word)
        if value is not None and word not in ("한", "두", "세", "네", "넉", "석", "스무"):
            return [Match(value, alone.start("n"), alone.end("n"), word)]
    found = []
    for m in _NATIVE.finditer(text):
        if not (m["tens"] or m["ones"]):
            continue
        value = _NATIVE_TENS.get(m["tens"] or "", 0) + _NATIVE_ONES.get(m["ones"] or "", 0)
        found.append(Match(value, m.start(), m.end("unit"), text[m.start():m.end("unit")]))
    return found


_IDENTIFIER = re_compile(r"(?<![\d.,-])(?:0\d{2,}(?:-\d+)*|\d+(?:-\d+){2,})(?![\d.,-])"
                         r"|(?<![A-Za-z0-9])[A-Za-z]{1,5}-\d+(?![\d.,])")  # "ORD-1002": a code
"""A phone, account or card number ("010-1234-5678", "01012345678", "110-123-456789"):
digits that name something, not a quantity (a leading zero, or three hyphenated groups)."""


def find_numbers(text: str) -> list[Match]:
    """All plain numbers in ``text``, sorted by start: Korean native numerals too, with a
    counter ("세 개" -> 3, "열두 병" -> 12) or said alone ("하나만요" -> 1).

    >>> [m.value for m in find_numbers("사과 3개, -5, 1,200원, 2.5kg, two")]
    [3, -5, 1200, 2.5, 2]
    >>> [m.value for m in find_numbers("세 개요")], [m.value for m in find_numbers("하나만요")]
    ([3], [1])
    >>> find_numbers("01023456789"), find_numbers("010-9876-5432로"), find_numbers("110-12-3")
    ([], [], [])
    >>> find_numbers("ORD-1002 리뷰 쓸래요"), [m.value for m in find_numbers("-5도")]
    ([], [-5])
    >>> [m.value for m in find_numbers("not that, the old one; a large one; just one")]
    [1]
    """
    found: list[Match] = _native(text)
    codes = [m.span() for m in _IDENTIFIER.finditer(text)]
    for match in _NUMBER.finditer(text):
        if match["skip"] or any(a <= match.start() < b for a, b in codes) or \
                _PRONOUN_ONE.search(text, 0, match.start()) and match["word"] \
                and match["word"].lower() == "one":
            continue
        value = _number_value(match)
        if value is not None:
            found.append(Match(to_number(value), match.start(), match.end(), match.group()))
    return non_overlapping(found)


def _number_value(match: re.Match[str]) -> Decimal | None:
    if match["word"]:
        return Decimal(EN_NUMBER_WORDS[match["word"].lower()])
    value = parse_numeral(match["body"])
    if value is None:
        return None
    if match["kilo"]:
        value *= 1000
    return -value if match["neg"] else value
