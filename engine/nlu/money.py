"""Text -> money amounts as Match spans ("3만 5천원", "마이너스 천원", "$1.5k", "5 dollars").

The amount is the match's value (int, or float when it has a fractional part: "$12.50" ->
12.5) and the currency it was written in is its ``unit`` ("원"/"₩"/"won" -> KRW, "$"/"달러"/
"dollars" -> USD, "€"/"euro" -> EUR, "£" -> GBP; None for a bare "10k"; currency.py), so a
money slot can refuse an amount in a currency it does not hold instead of relabelling it.

An amount needs a currency next to it, so "50", "3개", "10시", "1억" and "2026-11-22" are
not money:
- Korean: a numeral (digits and/or 일이삼사오육칠팔구 with 십백천 만억조) followed by 원 or
  달러, a space allowed after 만/억/조/천/백 and before the unit ("3만 5천원", "이만 칠천
  오백원", "1억 원"), between digits and the unit after them ("3 만원" is 30000), and
  between a numeral and 만 or 억 as dictation spaces them ("이십 만원", "삼 만 원").
  A numeral written only in Hangul must start a word and contain a unit character, so
  "만약", "천천히", "이 원하는" and "엄마한테만원" (no space) are not read; "이만원" is 20000.
- English: a currency prefix ($, US$, USD, KRW, ₩, €, £, EUR) or suffix (dollar(s), buck(s),
  usd, won, krw, euro(s), eur), optionally with k/m/bn or thousand/million/billion; a bare
  "10k", "50 thousand" or "fifty thousand" is money too (not "50 thousand people"); a
  number said in words before a suffix ("thirty thousand won", "twenty-five dollars").
- Negative: "-", "−", "마이너스" or "minus" right before the amount (or before "$").
"""

from __future__ import annotations

import re
from decimal import Decimal

from engine.precompiled import re_compile

from .numbers import (
    DIGITS,
    EN_NUMERAL,
    KO_BIG_CHARS,
    KO_DIGIT_CHARS,
    KO_SMALL_CHARS,
    english_numeral,
    parse_numeral,
    to_number,
)
from .spans import Match, non_overlapping

_HANGUL_NUM = KO_DIGIT_CHARS + KO_SMALL_CHARS + KO_BIG_CHARS
# Thousands set apart by spaces, as many write them ("10 000원", "1 000 000 won"): only
# before a unit, so "3 500" alone is no amount.
_GROUPED = r"[0-9]{1,3}(?: [0-9]{3})+(?![0-9])"
_GROUP_SPACE = re_compile(r"(?<=[0-9]) (?=[0-9]{3}(?![0-9]))")
_SPACED = KO_BIG_CHARS + "천백"  # "이만 칠천 오백원", "3천 5백원": one amount said in parts
_KO_MONEY = re_compile(
    r"(?:(?P<neg>(?<![가-힣])마이너스\s*|(?<![\w\-−])[-−]\s?)"
    # Without a sign a Hangul numeral must start a word, or follow, typed as one word as
    # dictation does, to whom it goes ("엄마한테삼만원"), a particle that is no numeral
    # ("금액은오만원"), money ("용돈오만원") or a day ("내일오만원"); digits may follow anything.
    rf"|(?<![가-힣0-9.,])(?=[{_HANGUL_NUM}])"
    rf"|(?:(?<=한테)|(?<=에게)|(?<=께)|(?<=[가-힣][은는을를])|(?<=돈)|(?<=내일)|(?<=모레)"
    rf"|(?<=오늘))(?=[{KO_DIGIT_CHARS}십백천])"  # not "한테만": only to
    rf"|(?<![0-9.,])(?=[0-9]))"
    rf"(?P<body>(?:{_GROUPED}(?=\s?(?:원|달러))|{DIGITS}|[{_HANGUL_NUM}])"
    rf"(?:{DIGITS}|[{_HANGUL_NUM}]|(?<=[{_SPACED}])\s|(?<=[0-9])\s(?=[{_SPACED}])"
    rf"|(?<=[{KO_DIGIT_CHARS}십])\s(?=[만억])|(?<=십)\s(?=[{KO_DIGIT_CHARS}][만억]))*?)"
    # "삼 만원", "이십 만 원", "삼십 오만 원", as dictation spaces them
    r"\s?(?:원|달러|(?<=[만억천])\s?(?i:won)(?![a-z]))"  # "5만 won", as bilinguals type it
)

# Ten thousands or hundred millions without 원 as money is given ("5만 보내줘", "1억 송금",
# "3만 이체해 주세요", "5만이요", "7만으로 올려줘", "3만5천 아빠한테 보내", "2천만 보내줘",
# "5만 ㄱㄱ", "4만으로" ending the message): only before a
# verb of giving money (to whom may come between), a copula or a change to it, or said
# away for another amount ("3만 말고 4만", "3만.. 아 아니다 4만"), so "5만 명", "10만
# 포인트" or "1억" alone is no amount.
_KO_BIG = (r"(?:[0-9]{1,4}(?:\.[0-9])?|(?!이만)[일이삼사오육칠팔구십백천]{1,5})"
           r"\s?(?:천\s?)?(?:만|억)(?:\s?(?:[0-9]{1,4}|[일이삼사오육칠팔구])\s?천)?")
"""Ten thousands or hundred millions in digits or said in Hangul ("5만", "오만", "삼십만",
"3만 5천"); not a lone "이만" ("이만 할게요": this far)."""
_KO_AWAY_WORDS = ("말고", "아니고", "아니라", "아니다", "아니야", "아니", "대신에", "대신")
_KO_AWAY = "|".join(_KO_AWAY_WORDS)
_KO_BIG_BARE = re_compile(
    rf"(?<![가-힣0-9.,])(?P<neg>)(?P<body>{_KO_BIG})"
    r"(?=\s?(?:만|씩)?\s*(?:[가-힣A-Za-z]+\s?(?:한테|에게|께)\s*)?"
    r"(?:보내|이체|송금|부쳐|부치|넣어|입금|쏴|줘|주세요|드려|빌려|갚아|이요|요"
    r"|(?i:send|transfer|wire|pay|give)(?![a-z])"  # code-switched: "1.5만 transfer 해줘"
    r"|(?:으로|로)\s*(?:해|바꿔|변경|올려|내려|줄여|늘려|수정|고쳐)"
    # said as a go ("5만 ㄱㄱ"), or a change that ends the message ("ㄴㄴ 3만으로")
    r"|ㄱ|고고|(?:으로|로)요?\s*(?:[.!~,…ㅋㅎㅠㅜ]|$))"
    rf"|\s*(?:[.…,~]+\s*)?(?:아\s*)?(?:{_KO_AWAY})(?![가-힣]))")
_KO_BIG_PUT = re_compile(
    "(?:" + "|".join(f"(?<={word}{gap})" for word in _KO_AWAY_WORDS for gap in (" ", ", "))
    + ")"
    rf"(?P<neg>)(?P<body>{_KO_BIG})(?=\s*(?:(?:으로|로)요?|이요|요)?\s*(?:[.!~?,…ㅋㅎㅠㅜ]|$))")
"""The amount put in the place of one said away, ending what is said ("3만 말고 4만", "3만
아니고 5만ㅠ")."""
_KO_BIG_ALONE = re_compile(
    r"^\s*(?:(?:아|어|앗|음|헉|아차|ㅈㅅ|미안|미안해|죄송|쏘리)[\s,.!~…]+)*"
    rf"(?P<neg>)(?P<body>{_KO_BIG.replace('(?:만|억)', '만')})(?=\s*[.!~…ㅋㅎㅠㅜ]*\s*$)")
"""Ten thousands said as the whole message, after a sound or an apology at most ("5만",
"아 미안 5만ㅠ"): nothing is counted there but money ("1억" alone may be a wish)."""
_EN_NUM = rf"(?:{DIGITS}|\.[0-9]+)"
_EN_GROUPED = rf"(?:{_GROUPED}|{DIGITS}|\.[0-9]+)"  # before a unit said after it
_EN_MAG = r"(?P<mag>\s?(?:thousand|million|billion)\b|[km](?![a-z])|bn\b)?"
_EN_SIGN = r"(?P<neg>(?<![\w\-−])[-−]\s?|\bminus\s+)?"
_EN_UNIT = r"\s?(?:dollars?|bucks?|usd|won|krw|euros?|eur)(?![a-z])"
_BARE_END = r"(?![\w-])(?!\s+(?!(?:to|for|please|pls|plz|now|today|tomorrow|tmr|tmrw|tonight|" \
    r"and|or|on|in|at|by|from|via|instead|then|this|next|asap|thanks|thx|won|krw)\b)[A-Za-z])"
_EN_MONEY = (
    re_compile(
        rf"{_EN_SIGN}(?:\$|US\$|₩|€|£|\b(?:usd|krw|eur)\s?)\s?(?P<num>{_EN_NUM}){_EN_MAG}"
        # "$50 dollars" is one amount, so the sign of "-$50 dollars" is not lost.
        rf"(?:{_EN_UNIT})?",
        re.IGNORECASE,
    ),
    re_compile(
        rf"{_EN_SIGN}(?<![\w.,])(?P<num>{_EN_GROUPED}){_EN_MAG}{_EN_UNIT}",
        re.IGNORECASE,
    ),
    # A bare "10k" reads as money in chat; "10m" or "10b" could be metres or bytes.
    re_compile(rf"{_EN_SIGN}(?<![\w.,])(?P<num>{_EN_NUM})(?P<mag>k)(?![a-z0-9])", re.IGNORECASE),
    # So does "50 thousand", unless a word tells what there are thousands of ("50 thousand
    # people"); "2 million" too.
    re_compile(rf"{_EN_SIGN}(?<![\w.,])(?P<num>{_EN_NUM})(?P<mag>\s(?:thousand|million))"
               rf"{_BARE_END}", re.IGNORECASE),
)
_EN_WORD_MONEY = re_compile(rf"{_EN_SIGN}(?P<words>{EN_NUMERAL}){_EN_UNIT}", re.IGNORECASE)
"""An amount said in words before its unit ("thirty thousand won", "fifty dollars")."""
_EN_WORD_BARE = re_compile(rf"{_EN_SIGN}(?<![\w.,])(?P<words>{EN_NUMERAL}"
                           rf"(?:(?<=thousand)|(?<=million))){_BARE_END}", re.IGNORECASE)
"""Thousands or millions said in words with no unit ("send mom fifty thousand")."""
_EN_WORD_K = re_compile(rf"{_EN_SIGN}(?<![\w.,])(?P<words>{EN_NUMERAL})\s?k(?![a-z0-9])",
                        re.IGNORECASE)
"""Thousands said in words with a k ("thirty k", "twenty-five k"), as "30k" is."""
# Every English form needs a currency symbol or a Latin letter; most Korean turns have
# neither, and this one search is cheaper than the three patterns.
_EN_HINT = re_compile(r"[$₩€£A-Za-z]")
_EN_MAGNITUDE = {
    "k": 10**3,
    "thousand": 10**3,
    "m": 10**6,
    "million": 10**6,
    "bn": 10**9,
    "billion": 10**9,
}


_SAID_MANWON = re_compile(rf"(?<=[0-9{_HANGUL_NUM}])마넌")
"""만원 written as it sounds ("5마넌", "삼마넌")."""


_DOTTED_WON = re_compile(r"(?<![0-9.,])[0-9]{1,3}(?:\.[0-9]{3})+(?=\s?(?:원|(?i:won|krw)\b))")
"""Thousands set apart by dots before won, as some keyboards and countries write them
("30.000원"): won has no decimals, so three digits after a dot are thousands."""


def _commas(match: re.Match[str]) -> str:
    return match[0].replace(".", ",")


def find_money(text: str) -> list[Match]:
    """All money amounts in ``text``, sorted by start, longest reading kept on overlap.

    >>> [(m.value, m.text) for m in find_money("엄마한테 1만원 보내줘")]
    [(10000, '1만원')]
    >>> [m.value for m in find_money("half a million won")], find_money("a few thousand won")
    ([500000], [])
    """
    if "넌" in text or "." in text:  # "5마넌" is 5만원 as it is said, "30.000원" is 30,000원:
        said = _DOTTED_WON.sub(_commas, _SAID_MANWON.sub("만원", text))  # the same length,
        if said != text:  # so the same spans
            return [Match(m.value, m.start, m.end, text[m.start:m.end])
                    for m in find_money(said)]
    found = [m for m in map(_korean, _KO_MONEY.finditer(text)) if m is not None]
    if "만" in text or "억" in text:
        found += [m for pattern in (_KO_BIG_BARE, _KO_BIG_PUT, _KO_BIG_ALONE)
                  for m in map(_korean, pattern.finditer(text)) if m is not None]
    if _EN_HINT.search(text):
        found += [_english(m) for pattern in _EN_MONEY for m in pattern.finditer(text)]
        found += [_signed(m, Decimal(value) * (1000 if pattern is _EN_WORD_K else 1))
                  for pattern in (_EN_WORD_MONEY, _EN_WORD_BARE, _EN_WORD_K)
                  for m in pattern.finditer(text)
                  if (value := english_numeral(m["words"])) is not None
                  and _VAGUE_BEFORE.search(text, 0, m.start()) is None]
        found += [Match(_HALF_OF[m["mag"].lower()], m.start(), m.end(), m[0])
                  for m in _EN_HALF.finditer(text)]
    return non_overlapping(found)


_EN_HALF = re_compile(r"\bhalf\s+(?:of\s+)?an?\s+(?P<mag>thousand|million)(?:\s+(?:won|krw)\b)?"
                      r"(?!\s*(?:dollars?|bucks|usd|euros?|eur|people|times)\b)", re.IGNORECASE)
"""Half a thousand or a million ("half a million won"): 500, 500,000."""
_HALF_OF = {"thousand": 500, "million": 500_000}


_VAGUE_BEFORE = re_compile(r"\b(?:half|couple|few|several)(?:\s+of)?(?:\s+an?)?\s*$",
                           re.IGNORECASE)
"""A part or a guess of a number said before it ("half a million won", "a couple hundred
thousand"): the number after it is not the amount."""


def _korean(match: re.Match[str]) -> Match | None:
    body = match["body"]
    if not any(c.isdigit() or c in KO_SMALL_CHARS or c in KO_BIG_CHARS for c in body):
        return None  # "이 원하는": a lone numeral syllable before 원 is a word
    value = parse_numeral(_GROUP_SPACE.sub("", body))
    if value is None:
        return None
    return _signed(match, value)


def _english(match: re.Match[str]) -> Match:
    value = Decimal(match["num"].replace(",", "").replace(" ", ""))
    magnitude = (match["mag"] or "").strip().lower()
    if magnitude:
        value *= _EN_MAGNITUDE[magnitude]
    return _signed(match, value)


def _signed(match: re.Match[str], value: Decimal) -> Match:
    amount = to_number(-value if match["neg"] else value)
    text = match.group()
    return Match(value=amount, start=match.start(), end=match.end(), text=text)


_SHARE = re_compile(
    r"(?:^|(?<=[\s,]))(?:전부|전액|다|몽땅|모두|싹|싹 다|전체|반|절반|반만|나머지|최대(?:한)?)"
    r"(?=$|[\s,.!~]|요|만|으로|로|이요|다요)"
    r"|\b(?:all|everything|half|the rest|whole|entire|max(?:imum)?|whatever(?:'s| is) left)\b",
    re.IGNORECASE)


def names_a_share(text: str) -> bool:
    """Whether the message says an amount as a share of a whole ("잔액 전부", "남은 돈 다",
    "통장에 있는 거 반만", "all of my balance", "the rest"): an answer to "how much?" that
    no rule can count, and that settles no amount until the user says the number.

    >>> names_a_share("잔액 전부"), names_a_share("half my balance"), names_a_share("다음 달")
    (True, True, False)
    >>> names_a_share("3만원"), names_a_share("다른 사람")
    (False, False)
    """
    return _SHARE.search(text) is not None


_BY = re_compile(
    r"\s*(?:만\s*)?(?:을|를)?\s*(?:"
    r"(?P<less>더\s*적게|덜|적게|(?:빼|줄여|줄이|내려|낮춰|깎)\S*|less\b|fewer\b)"
    r"|(?P<more>(?:더(?!\s*(?:적게|덜))\s*)?(?:추가|늘려|늘리|올려|높여|얹|보태|붙여)\S*|더"
    r"|more\b|extra\b))",
    re.IGNORECASE)


_ADD = re_compile(r"\badd\s+$", re.IGNORECASE)


def changed_by(text: str, match: Match) -> tuple[int, tuple[int, int]] | None:
    """Whether the amount ``match`` found is said as a change *by* it ("5천원 더", "3천원
    줄여줘", "5k more", "add 5k"): +1 or -1, and where the words saying so are; None for an
    amount said as itself ("7만으로 올려줘" raises it *to* 7만).

    >>> text = "5천원 더 보내줘"
    >>> changed_by(text, find_money(text)[0])
    (1, (3, 5))
    >>> [changed_by(t, find_money(t)[0]) is not None for t in ("3천원 줄여줘", "7만으로 올려줘")]
    [True, False]
    """
    said = _BY.match(text, match.end)
    if said is not None:
        return (-1 if said["less"] else 1), said.span()
    added = _ADD.search(text, 0, match.start)  # "add 5k"
    return None if added is None else (1, added.span())


_SCALE = re_compile(
    r"(?<!\S)(?:(?P<times>두|세|네|[2-4])\s*배(?:로|만큼)?|(?P<half>절반|반)(?:만|으로|로)?)(?:요)?"
    r"(?!\S)|\b(?:(?P<double>double(?![- ]?(?:check|click|tap|sure))|twice(?= as much| the "
    r"(?:amount|money|sum)| that))|(?P<en_half>half(?! (?:an? hour|past|hour|the time)\b)))\b",
    re.IGNORECASE)
_TIMES = {"두": 2, "세": 3, "네": 4, "2": 2, "3": 3, "4": 4}


def scaled_by(text: str) -> tuple[float, tuple[int, int]] | None:
    """Whether ``text`` says an amount as a multiple of another ("두 배로", "반만", "double
    it", "half"): the factor, and where it is said.

    >>> scaled_by("두 배로 해줘"), scaled_by("응 반만 보내"), scaled_by("make it half")
    ((2, (0, 4)), (0.5, (2, 4)), (0.5, (8, 12)))
    >>> scaled_by("반갑습니다"), scaled_by("반대로 해줘"), scaled_by("ok i double checked")
    (None, None, None)
    >>> scaled_by("i checked twice, send it"), scaled_by("twice as much please")[0]
    (None, 2)
    """
    said = _SCALE.search(text)
    if said is None:
        return None
    if said["times"]:
        return _TIMES[said["times"]], said.span()
    return (2 if said["double"] else 0.5), said.span()

