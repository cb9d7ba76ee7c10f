"""Times said that name no date: "다음 달 초", "설 전에", "월급날", "end of the month", or one of
two dates ("내일이나 모레", "friday or monday").

A date slot left empty means "now" in many flows (a transfer without a date goes at once), so
a time the date reader cannot resolve must not vanish: ``vague_time`` finds it, and the
engine asks for the date instead of going on as if none was said. ``right_away`` reads the
answer that means "now" ("지금 바로요", "right away").
"""

from __future__ import annotations

import re
from datetime import date

from engine.precompiled import re_compile

from .certainty import ranged
from .dates import find_dates

_VAGUE = re_compile(
    r"(?<![가-힣])(?:"  # a word of its own: no "내주" in "보내주세요", no "내달" in "보내달래"
    r"(?:다음|담|이번|내|오는)\s?(?:달|주|해|년)(?:\s?(?:초|말|중순|중|쯤|안))?"
    r"|(?:[0-9]{1,2}\s?월|월|연|년)\s?(?:초|말|중순)(?:쯤|에|까지)?"
    r"|월급날|월급\s?(?:들어오면|받으면)|주말"
    r"|(?:설날?|추석|명절|연휴|크리스마스|생일|방학|휴가)"
    r"\s?(?:전에?|후에?|뒤에?|쯤에?|때|지나고|끝나고|까지)"
    r"|나중에|이따가?|언젠가|조만간|며칠\s?(?:뒤|후)|몇\s?(?:주|달)\s?(?:뒤|후))"
    r"|\b(?:next|this|coming)\s+(?:week|month|year|weekend)\b"
    r"|\b(?:end|beginning|start|middle)\s+of\s+(?:the\s+|next\s+|this\s+)?(?:week|month|year)\b"
    r"|\b(?:early|mid|late)[\s-](?:next\s+)?(?:week|month|year)\b"
    r"|\b(?:early|mid|late|end\s+of|beginning\s+of|start\s+of)[\s-](?:jan|feb|mar|apr|may|jun"
    r"|jul|aug|sep|oct|nov|dec)[a-z]*\b|\bsometime\b"
    r"|\b(?:later|someday|soon|payday|on the weekend|over the weekend|in a few (?:days|weeks))\b"
    r"|\b(?:before|after)\s+(?:christmas|new year'?s?|the holidays?|my birthday|payday)\b",
    re.IGNORECASE)


def vague_time(text: str, today: date) -> str | None:
    """The first time ``text`` says that is no date the date reader resolves, or None.

    >>> today = date(2026, 11, 22)
    >>> vague_time("다음 달 초에 20만원", today), vague_time("send it end of the month", today)
    ('다음 달 초', 'end of the month')
    >>> vague_time("다음 주 금요일에 보내줘", today), vague_time("내일 3만원", today)
    (None, None)
    >>> vague_time("동생 생일 선물로 5만원", today), vague_time("지난달에 보낸 만큼", today)
    (None, None)
    >>> vague_time("네 보내주세요", today), vague_time("엄마가 보내달래", today)
    (None, None)
    >>> vague_time("12월 초에 보내줘", today), vague_time("early December, transfer 100k", today)
    ('12월 초에', 'early December')
    >>> vague_time("내일이나 모레 보내줘", today), vague_time("friday or monday", today)
    ('내일이나 모레', 'friday or monday')
    """
    found = find_dates(text, today)
    either = [m for m in found if ranged(text, m)]  # "내일이나 모레": which one?
    if either:
        return text[either[0].start:either[-1].end]
    dated = [(m.start, m.end) for m in found]
    for match in _VAGUE.finditer(text):
        if not any(start < match.end() and match.start() < end for start, end in dated):
            return match.group().strip()
    return None


_NOW_KO = r"(?:(?:그냥|걍)\s?)?(?:(?:지금|바로|당장|즉시|얼른|빨리|오늘)\s?)+"
_NOW_EN = r"(?:now|right now|right away|immediately|asap|straight away|today)"
_RIGHT_AWAY = re_compile(
    r"^(?:(?:응|웅|어|네|넵|넹|예|ㅇㅇ|ㅇㅋ|그래|좋아|오케이)[,.~!]*\s*)?"
    rf"{_NOW_KO}(?:이요|요|(?:으|이)?로요?|바로요|이면\s?(?:돼|되)요?|"
    r"(?:보내|이체해|송금해|부쳐|쏴|해)\s?(?:줘요?|주세요|줄래요?|주라|요)?|부탁(?:해요?|드려요|합니다))?"
    r"[.!~ ]*$"
    r"|^(?:(?:yes|yeah|yep|yup|ok|okay|sure|just)[,.!]*\s+)*"
    rf"(?:(?:send|do|transfer|pay)(?:\s+(?:it|that|the money))?\s+)?{_NOW_EN}"
    r"(?:,?\s*(?:please|pls|plz|is fine|is good|works|thanks|thx))?[.! ]*$",
    re.IGNORECASE)


def right_away(text: str) -> bool:
    """Whether a whole answer says "now", no date ("지금 바로요", "right away").

    >>> right_away("지금 바로요"), right_away("right away please"), right_away("다음 주에")
    (True, True, False)
    >>> right_away("응 지금 보내"), right_away("ok send it now"), right_away("지금 말고")
    (True, True, False)
    """
    return _RIGHT_AWAY.match(text.strip()) is not None


__all__ = ["right_away", "vague_time"]
