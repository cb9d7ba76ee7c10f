"""Stories told around a request: the sums, dates and people of what is told are no task's.

Korean ("회식비가 32만원이었고 … 김 대리님한테 4만원 보내주세요.", "폰이 98만원인데 아빠한테
30만원 보내줘") and English ("the dinner was 120k for four of us, so send Jake 30k", "please
send Leo 35k. he lent me that on march 3rd"): the request's values are its own sentence's or
clause's.
"""

from __future__ import annotations

import re

from engine.nlu import names
from engine.nlu.dates import ANY_DAY, find_dates
from engine.nlu.money import find_money
from engine.nlu.reasons import caused
from engine.nlu.text import SENTENCE_END, closed_by
from engine.precompiled import re_compile


def priced_off(text: str) -> str:
    """The request without a clause before it that prices something else or passes on what
    was heard ("폰이 98만원인데 아빠한테 30만원 보내줘", "병원비가 47만원 나왔다는데 10만원
    보내드릴게"): that sum is no task's, when the request says its own.

    >>> priced_off("폰이 98만원인데 아빠한테 30만원 보내줘")
    '아빠한테 30만원 보내줘'
    >>> priced_off("3만원인데 보내줘"), priced_off("엄마한테 3만원이고 아빠한테 5만원 보내줘")
    ('3만원인데 보내줘', '엄마한테 3만원이고 아빠한테 5만원 보내줘')
    """
    cut = 0
    for clause in _PRICED.finditer(text):
        rest = text[clause.end():]
        if SENTENCE_ASKS.search(rest) and find_money(rest) and \
                not _A_TASK.search(text[cut:clause.end()]):
            cut = clause.end()
    for clause in _WHY_CLAUSE.finditer(text, cut):  # "아빠 환갑이 4월 12일이라 … 모레 …",
        rest, why = text[clause.end():], text[cut:clause.end()]  # "치킨값 3만원 중에 반은 내가
        if SENTENCE_ASKS.search(rest) and (  # 내야 돼서 도윤한테 만 오천원": the why's are not
                find_dates(rest, ANY_DAY) and find_dates(why, ANY_DAY)  # the request's
                or find_money(rest) and find_money(why) and not _A_TASK.search(why)):
            cut = clause.end()
    return text[cut:].lstrip(" ,") if cut else text


def story_off(text: str) -> str:
    """The message from the sentence that asks, when every sentence before it tells a story
    with sums or people paid of its own ("회식비가 32만원이었고 여덟 명이었으니까 제 몫은
    4만원이에요. 김 대리님한테 4만원 보내주세요."); the whole message when a sentence before
    it could be a task itself ("엄마한테 3만원. 아빠한테 5만원 보내줘").

    >>> story_off("케이크가 4만원이었대. 언니한테 2만원 보내줘")
    '언니한테 2만원 보내줘'
    >>> story_off("엄마한테 3만원이요. 아빠한테 5만원 보내주세요")
    '엄마한테 3만원이요. 아빠한테 5만원 보내주세요'
    """
    if SENTENCE_END.search(text.strip()) is None:
        return text  # one sentence: no story before it
    parts = [p for p in SENTENCE_END.split(text.strip()) if p.strip()]
    asks = next((i for i, part in enumerate(parts) if SENTENCE_ASKS.search(part)), 0)
    if asks == 0 or any(_A_TASK.search(part) for part in parts[:asks]):
        return text
    told, asked = " ".join(parts[:asks]), " ".join(parts[asks:])
    compete = find_money(told) and find_money(asked) or \
        _SOMEONE_PAID.search(told) and _SOMEONE_PAID.search(asked)
    return asked if compete else text  # "…형님께 빌린 돈을… 형에게 백만 원 보내 주십시오"


_L_FINAL = closed_by(8)
"""Syllables closed by ㄹ: before 게(요) they promise to do it ("살게요", "볼게")."""
SENTENCE_ASKS = re_compile(rf"[{_L_FINAL}]게(?:요)?(?![가-힣])|"
                           r"(?:주세요|주세욤|주세용|주십시오|주게|줘요|줘(?!야|서|도)|주라|주셈|줄래요|줄래|"
                           r"주실래요|주시겠어요|할게요|할게|할께|할래요|할래|싶어요|싶습니다|부탁|"
                           r"드려|드릴게|드릴께|줄게|[내해]야\s?(?:돼|되|해|합니다))")
"""A sentence that asks for something done ("…보내줄래요?", "…보내야 돼요")."""
_A_TASK = re_compile(r"(?:한테|에게|께)(?!서)(?:도|는)?\s*\S*\d|(?:한테|에게|께)(?!서).*원"
                     r"|^\s*\S*\d[\d,.]*\s*(?:만|천)?\s*원?(?:이요|요)?[.!~\s]*$")
"""A sentence that could be a task of its own: someone paid and a sum ("엄마한테 3만원이요")."""
_SOMEONE_PAID = re_compile(r"[가-힣](?:한테|에게|께)(?!서)")
"""Someone paid, or given to ("형님께 빌린 돈")."""
_PRICED = re_compile(r"(?:(?:원|만|천)(?:쯤|정도)?(?:이)?(?:인데|이었는데|였는데|이고|이었고|"
                     r"이라서|이라|이니까|이었으니까|짜리인데|짜리라)|(?:원|만|천)\s?(?:조금|좀|살짝|"
                     r"약간|훨씬|거의)?\s?(?:넘는데|넘었는데|넘어서|모자란데|모자라서|남았는데|남는데|"
                     r"드는데|들었는데|나왔는데|나오는데|되는데|됐는데|나와서|들어서|돼서)|"
                     r"(?:다는데|대는데|다던데|다고 해서|대서|래서))(?:요)?(?=[\s,.]+\S)")
"""A clause that prices a thing ("폰이 98만원인데", "5만원 조금 넘는데") or passes on what was
heard ("…나왔다는데")."""
_WHY_CLAUSE = re_compile(r"(?:[가-힣](?:이라|라서|이라서|니까|이니까|거든|어서|아서)|"
                         r"(?<!\S)(?:돼서|되어서|해서))(?:요)?(?=[\s,]+\S)")
"""A clause of why ("…4월 12일이라", "…금요일이니까") before what is asked."""


def asked_sentences(text: str) -> str | None:
    """The sentences of the message that ask, without sentences that only tell or reason
    before them ("아무래도 학생이니까 체크카드가 무난할 것 같아요. 체크카드로 할게요") or after
    them ("토요일로 해줘. 어차피 월급이 금요일에 들어오거든"); None when there is nothing to
    leave out, or a sentence before could be a task of its own. The caller takes it when it
    holds values.

    >>> asked_sentences("그 정도 쓰면 신용카드가 낫겠네요. 신용카드로 해 주세요")
    '신용카드로 해 주세요'
    >>> asked_sentences("토요일로 해줘. 어차피 월급이 금요일에 들어오거든")
    '토요일로 해줘.'
    >>> asked_sentences("체크카드로 해 주세요. 고마워요") is None
    True
    """
    if SENTENCE_END.search(text.strip()) is None:
        return None  # one sentence: no story around it
    parts = [p for p in SENTENCE_END.split(text.strip()) if p.strip()]
    asks = next((i for i, part in enumerate(parts) if SENTENCE_ASKS.search(part)), None)
    if asks is None or any(_A_TASK.search(part) for part in parts[:asks]):
        return None
    end = len(parts)
    while end > asks + 1 and _told(parts[end - 1]):
        end -= 1
    return " ".join(parts[asks:end]) if (asks, end) != (0, len(parts)) else None


def _told(sentence: str) -> bool:
    """Whether ``sentence`` only tells or gives a reason ("어차피 월급이 금요일에 들어오거든",
    "이모가 지난주에 김치를 보내주셨거든")."""
    words = sentence.split()
    return not SENTENCE_ASKS.search(sentence) and bool(words) and (
        names.reported(sentence) or caused(words[-1].rstrip(".!~…")))


def story_en_off(text: str) -> str:
    """An English request without the story told before it ("the dinner was 120k for four of
    us, so send Jake 30k", "…360k and there were three of us so 120k") or after it ("send Leo
    35k. he lent me that on march 3rd", "send Clara 30k, she ordered the flowers, 90k in
    all"): the sums and dates told are no task's. A part before it that asks with a sum of
    its own ("send mom 10k, and send dad 20k") keeps it whole, and so does a list ("send mom
    10k. dad 20k").

    >>> story_en_off("the dinner was 120k for four of us, so send Jake 30k")
    'send Jake 30k'
    >>> story_en_off("send Leo 35k. he lent me that on march 3rd")
    'send Leo 35k.'
    >>> story_en_off("send a new card, my phone is 010-2222-3333")
    'send a new card, my phone is 010-2222-3333'
    >>> story_en_off("send mom 10k, and send dad 20k"), story_en_off("send mom 10k. dad 20k")
    ('send mom 10k, and send dad 20k', 'send mom 10k. dad 20k')
    >>> story_en_off("the room was 360k and there were three of us so 120k")
    '120k'
    """
    if not text.isascii() and _LATIN.search(text) is None:
        return text  # no English in it
    for asking in _EN_REQUEST.finditer(text):
        before, rest = text[:asking.start("verb")], text[asking.start("verb"):]
        compete = find_money(before) and find_money(rest) or \
            find_dates(before, ANY_DAY) and find_dates(rest, ANY_DAY)  # "…party is saturday,
        if asking.start("verb") and compete and not any(  # send my sister 50k on friday"
                _EN_VERB.search(part) and find_money(part) for part in _EN_PART.split(before)):
            text = rest
        break
    else:
        so = _EN_SO.search(text)
        if so and find_money(text[so.end():]) and find_money(text[:so.start()]) and \
                not _EN_VERB.search(text[:so.start()]):
            return text[so.end():].strip()
    parts = _EN_CLAUSE.split(text)
    kept = len(parts)
    while kept > 1 and _EN_FINITE.search(parts[kept - 1]) and \
            not _EN_VERB.search(parts[kept - 1]):
        kept -= 1
    asked, told = " ".join(parts[:kept]), " ".join(parts[kept:])
    if kept == len(parts) or not (_EN_REQUEST.search(asked) and find_money(asked)) or \
            not (find_money(told) or find_dates(told, ANY_DAY)):
        return text  # "sure, my id is u482", "send me a new card, it stopped working": values
    return asked.rstrip(" ,;")


_LATIN = re_compile(r"[A-Za-z]")
_EN_VERB = re_compile(r"\b(?:send|transfer|wire|pay|give)\b", re.IGNORECASE)
_EN_REQUEST = re_compile(
    r"(?:^|(?<=[,.;!?:])\s*|\b(?:so|then|and|but|pls|please|plz|just|kindly|can\s+(?:you|u)|"
    r"could\s+(?:you|u)|would\s+you|will\s+you)\s+)(?:(?:please|pls|plz|just|kindly)\s+)?"
    r"(?P<verb>send|transfer|wire|pay(?:\s+back)?|give)\b", re.IGNORECASE)
"""A request's verb where a request starts: the message's start, after a stop or a comma,
after "so", "and", "but", "please", "can you"."""
_EN_PART = re_compile(r"[,.;!?]|\b(?:and|but|so)\b", re.IGNORECASE)
_EN_CLAUSE = re_compile(r"(?<=[.!?])\s+|(?<=,)\s+(?=(?:he|she|they|i|we|it|that|this|her|his|"
                        r"my\s+\w+)\b)", re.IGNORECASE)
"""Where a sentence ends, or a clause of its own starts after a comma ("…, she paid …")."""
_EN_FINITE = re_compile(r"\b(?:is|was|are|were|has|had|have|did|does|owe|owes|paid|lent|gave|"
                        r"got|bought|spent|took|came|went|told|said|covered|borrowed|\w{3,}ed)\b"
                        r"|\w'(?:s|re|ve)\b", re.IGNORECASE)
"""A verb that tells ("he lent me that", "it's the rest of the rent"): a story, not a list
item ("dad 20k")."""
_EN_SO = re_compile(r"\bso\s+(?:(?:like|about|it'?s|that'?s|just|only)\s+)?(?=[$₩]?\d)(?!.*\bso\b)",
                    re.IGNORECASE)
"""The sum worked out, after the last "so" ("…three of us so 120k")."""


__all__ = ["SENTENCE_ASKS", "asked_sentences", "priced_off", "story_en_off", "story_off"]
