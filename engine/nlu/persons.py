"""How a person is called: a relation ("누나", "사촌 동생"), someone else's relation ("친구
형"), a name with its title ("박지훈 대리님", "철수 형"), with 씨 or 님 ("박지영씨"), and whom
"him" or "her" stands for ("it's Priya's birthday, send her 50k").
"""

from __future__ import annotations

import re

from engine.precompiled import re_compile

from .spans import Match

_RELATION = re_compile(r"(?:남자\s?친구|여자\s?친구|남친|여친|친구분?|남편분?|아내분?|와이프|"
                       r"아들|딸|동생|어머님|아버님|부모님|동료|선배|후배|상사|사촌|조카|애인)"
                       r"(?:한테|헌테|에게|께|요|이요|이에요|예요)?")
_OWNER = re_compile(r"[가-힣]{1,4}")
_NO_OWNER = frozenset({"우리", "제", "내", "저희", "울", "나의", "저의", "빨리", "그냥", "지금",
                       "오늘", "내일", "먼저", "다시", "좀", "일단", "그럼", "네", "응", "아",
                       "음", "이번엔", "꼭", "바로"})

_NOT_A_NOUN = ("는", "던", "한", "로", "게", "히", "서", "에", "도", "만", "를", "을", "가", "고",
               "면", "요", "데")
"""Endings of a word that modifies or is a case of its own ("일하는", "그대로", "형이랑") or
ends a clause ("보태라고 딸에게", "괜찮으면 동생한테"): no owner."""
_DID = re_compile(r"(?:내|사|해|려|와|겨|꿔|워|봐|챙겨)준$|(?:보|갚)낸$|빌린$")
"""What someone did for the speaker, said of them ("병원비 대신 내준 언니", "밥 사준 형"): no
name of theirs."""


def someones(owner: str, value: str) -> bool:
    """Whether ``value`` is someone's relation, not a name ("누나 남자친구", "지수 남편",
    "팀장님 아내분"): ``owner`` is the word said right before it ("우리 동생" is mine).

    >>> someones("누나", "남자친구"), someones("우리", "동생"), someones("친구", "지수")
    (True, False, False)
    >>> someones("친구", "형"), someones("철수", "형")
    (True, False)
    >>> someones("일하는", "사촌")  # "백화점에서 일하는 사촌": who, not whose
    False
    """
    if owner in KIN:
        return False  # "사촌 형", "큰 이모": one relation of mine
    if value in _ADDRESS and _RELATION.fullmatch(owner):
        return True  # "친구 형": a friend's brother
    return bool(_RELATION.fullmatch(value) and _OWNER.fullmatch(owner)
                and owner not in _NO_OWNER and owner not in _NO_NAME_BEFORE
                and not owner.endswith(_NOT_A_NOUN))  # "엄마 말고 동생한테": no one's


_TITLE = re_compile(r"(?:대리|과장|차장|부장|팀장|실장|사장|이사|상무|전무|대표|회장|원장|"
                    r"소장|국장|주임|선생|교수|기사|작가|감독)님?")
# How one calls an older friend or sibling by name ("철수 형", "영희 언니"): kept with the name
_ADDRESS = frozenset({"형", "형님", "오빠", "언니", "누나", "누님"})
KIN = frozenset({"사촌", "외사촌", "이종사촌", "고종사촌", "육촌", "친척", "큰", "작은", "막내"})
"""Words that make one relation with the relation after them ("사촌 동생", "큰 이모")."""
_ELDERS = frozenset("엄마 아빠 어머니 아버지 이모 고모 삼촌 외삼촌 숙모 할머니 할아버지".split())
# Words said before a title that join, correct or time what follows: no name ("근데 형한테",
# "아니 누나한테", "내일모레 형한테")
_NO_NAME_BEFORE = frozenset({
    "근데", "그런데", "그리고", "그래서", "그럼", "그러면", "아니", "아니다", "아니야",
    "아니고", "아니라", "아니면", "아님", "말고", "아냐", "잠깐", "잠깐만", "참", "아참",
    "맞다", "혹시", "차라리", "대신", "또", "이번엔", "이번에는", "다음엔", "어제", "모레",
    "내일모레", "글피", "이따", "이따가", "나중에", "아까", "방금", "좋아", "그래", "오늘",
    "오늘은", "오늘도", "내일", "내일은", "어제는", "지금", "지금은", "이번", "이번은", "요번엔",
    "일단", "우선", "먼저", "마지막으로", "그다음", "다음", "다음은",
    # apologies and exclamations said before whom a change is for ("아 미안 언니로 해줘")
    "미안", "미안미안", "죄송", "쏘리", "잘못", "헉", "앗", "아차", "헐", "어머", "어머나",
    "아이고", "아이구", "아이쿠", "어휴", "에휴", "아휴", "하아", "에이", "와", "우와", "어라",
    "엇", "웁스"})
_NAMED = re_compile(r"[가-힣]{1,4}|[A-Z][A-Za-z'-]*")
_SSI_AFTER = re_compile(r"(?<=[가-힣]{2})씨$")


def titled(before: str, value: str) -> str | None:
    """The name a title, a way of calling someone by name, 씨 or 님 found alone belongs to,
    from ``before`` (the word said right before it): "박지훈 대리님" and "철수 형" keep theirs,
    "박지영 씨" and "이지은 님" are 박지영 and 이지은; None when ``value`` is none of them, or
    ``before`` is no name ("우리 팀장님", "일하는 과장님", "우리 언니").

    >>> titled("박지훈", "대리님"), titled("김", "대리"), titled("박지영", "씨")
    ('박지훈 대리님', '김 대리', '박지영')
    >>> titled("이지은", "님"), titled("철수", "형"), titled("지수", "언니")
    ('이지은', '철수 형', '지수 언니')
    >>> titled("우리", "팀장님"), titled("친한", "과장님"), titled("우리", "언니")
    (None, None, None)
    >>> titled("사촌", "누나"), titled("큰", "이모"), titled("큰", "민수")  # one relation
    ('사촌 누나', '큰 이모', None)
    >>> titled("내준", "언니"), titled("민준", "형")
    (None, '민준 형')
    """
    if before in KIN and (value in _ADDRESS or value in _ELDERS or _RELATION.fullmatch(value)):
        return f"{before} {value}"
    if value not in ("씨", "님") and value not in _ADDRESS and not _TITLE.fullmatch(value):
        return None
    if not _NAMED.fullmatch(before) or before in _NO_OWNER or before in _NO_NAME_BEFORE \
            or before.endswith(_NOT_A_NOUN) or _DID.search(before) \
            or (value in _ADDRESS and _RELATION.fullmatch(before)):
        return None
    return before if value in ("씨", "님") else f"{before} {value}"


def no_name(word: str) -> bool:
    """Whether ``word``, said right before a name, is no part of it: an opener, a time, an
    apology or an exclamation ("아 미안 언니로 해줘", "그럼 민수 씨")."""
    return word in _NO_NAME_BEFORE or word in _NO_OWNER


def relation(word: str) -> bool:
    """Whether ``word`` is a relation one sends to ("엄마", "누나", "사촌"), not a name, one
    said with its kin word too ("사촌동생", "큰이모").

    >>> relation("사촌동생"), relation("큰이모"), relation("큰길")
    (True, True, False)
    """
    if word in _ADDRESS or word in _ELDERS or _RELATION.fullmatch(word) is not None:
        return True
    return any(word.startswith(kin) and word != kin and relation(word[len(kin):])
               for kin in KIN)


def without_ssi(value: str) -> str:
    """A name said with 씨 attached ("박지영씨") as the name; "김씨" stays (the surname).

    >>> without_ssi("박지영씨"), without_ssi("김씨"), without_ssi("민수")
    ('박지영', '김씨', '민수')
    """
    return _SSI_AFTER.sub("", value)


_SURNAMES = frozenset("김이박최정강조윤장임한오서신권황안송류유전홍고문양손배백허"
                      "남심노하곽성차주우구민진지엄채원천방공현함변염여추도소석선설"
                      "마길연위표명기반왕금옥육인맹제모탁국어은편용예경봉부가복태목"
                      "형피두감음빈동온호범좌팽승간상갈단견당화창라나계")
_NOT_GIVEN = re_compile(r"[가-힣]*(?:어머|아버|할머|장모|장인|사모|부모|선생|박사|목사|의사|기사|"
                        r"변호사|[가-힣]장|대리|차장|이사|상무|전무|대표|주임|교수|작가|감독)"
                        r"|[월화수목금토일]요일|[가-힣]{1,2}(?:욜|주말|월말|초순|중순|하순)"
                        r"|나머지|마지막|전부다|전액만|정말로|진짜로|조금만|최대한|최소한|한번에|"
                        r"한꺼번|우선은|일단은|송금액|이체액|총금액|[이저지다][번난음](?:달|주|번)"
                        r"|[여거저어]기서|여기로|이따가|이만큼|이정도|정도만|오늘만|오늘도|오랜만|"
                        r"조만간|전체로|한달치|우리집|저희집|남은거|남은돈|방금전|어제꺼|모두다")
"""Words, not given names: "어머님", "김박사님", "이사장님", days ("금요일", "이번욜"), and
words that open a sentence with a surname's syllable ("나머지 20만원", "이번달 5만원", "여기서
20만원")."""
_HANGUL_ONLY = re_compile(r"[가-힣]+")


def full_name(word: str) -> bool:
    """Whether ``word`` is a Korean full name: a surname and a given name of two syllables
    ("박지영", "박지영씨"), not a word ("어머님").

    >>> [full_name(w) for w in ("박지영", "박지영씨", "카드", "어머님", "민수", "금요일")]
    [True, True, False, False, False, False]
    """
    name = without_ssi(word)
    return len(name) == 3 and _HANGUL_ONLY.fullmatch(name) is not None and \
        name[0] in _SURNAMES and not _NOT_GIVEN.match(name)


def given_name(value: str) -> str | None:
    """The given name of a full name, as a person is also called: "민수" of "김민수", "john"
    of "John Park"; None for anything else.

    >>> [given_name(v) for v in ("김민수", "박지영씨", "John Park", "큰 이모", "엄마")]
    ['민수', '지영', 'John', None, None]
    """
    if full_name(value):
        return without_ssi(value)[1:]
    first, _, rest = value.partition(" ")
    return first if rest and value.isascii() and value.replace(" ", "").isalpha() else None


def called(name: str) -> str:
    """A name as the person is known, without how it was said: 님 after a full name
    ("김지현님": 김지현), 씨 attached ("박지영씨"). Words stay ("어머님", "김박사님",
    "이사장님"), and so does the familiar -이 ("지영이": it may be part of the name).

    >>> [called(n) for n in ("김지현님", "박지영씨", "어머님", "김박사님", "이사장님", "지영이")]
    ['김지현', '박지영', '어머님', '김박사님', '이사장님', '지영이']
    """
    name = without_ssi(name)
    stem = name[:-1]
    full = len(name) == 4 and name.endswith("님") and stem[0] in _SURNAMES
    return stem if full and _HANGUL_ONLY.fullmatch(name) and not _NOT_GIVEN.fullmatch(stem) \
        else name


def named_before(text: str, end: int) -> Match | None:
    """The one person named in English before ``end`` (where "him" or "her" stands for
    them): a capitalised name said as someone's ("Priya's birthday") or as owed ("I owe
    Hannah"), or one's own relation ("my mum's birthday"); None when there is none or more
    than one.

    >>> named_before("it's Priya's birthday so send her 50k", 27).value
    'Priya'
    >>> named_before("Priya's and Tom's gift, send her 50k", 23) is None
    True
    """
    found: dict[str, Match] = {}
    for m in _NAMED_BEFORE.finditer(text[:end]):
        said = m.group(m.lastindex or 0)
        value = said.lower() if m.lastgroup == "kin" else said
        if m.lastgroup == "kin" or said not in _NOT_NAMES:
            found.setdefault(value, Match(value, m.start(m.lastindex or 0),
                                          m.end(m.lastindex or 0), said))
    return next(iter(found.values())) if len(found) == 1 else None


_KIN_EN = ("mom|mum|mother|dad|father|brother|sister|son|daughter|wife|husband|partner|"
           "boyfriend|girlfriend|friend|flatmate|roommate|landlord|landlady|uncle|aunt|auntie|"
           "cousin|nephew|niece|grandma|grandpa|granny|nan|grandmother|grandfather|boss|mate")
_NAMED_BEFORE = re.compile(
    r"\b(?P<own>[A-Z][a-z]+)['’]s\b|\bowe[sd]?\s+(?P<owed>[A-Z][a-z]+)\b"
    rf"|\b(?:my|our)\s+(?P<kin>(?i:{_KIN_EN}))(?:['’]s)?\b")
_NOT_NAMES = frozenset({"It", "That", "What", "Who", "Where", "There", "Here", "He", "She",
                        "Today", "Tomorrow", "Mother", "Father", "Christmas", "Valentine",
                        "Korea", "Seoul", "Busan", "Monday", "Tuesday", "Wednesday", "Thursday",
                        "Friday", "Saturday", "Sunday", "Everyone", "Someone", "Nobody"})
"""Capitalised words said with 's that are no one ("It's", "Today's", "Mother's Day")."""


_DETAIL = r"(?:\w+\s+)?(?:id|pin|code|number|phone|card|account|password|address)\b"
_THEIRS = re_compile(
    rf"\b(?:her|his|their)\s+(?:own\s+)?{_DETAIL}|\bmy\s+(?:mom|mother|mum|dad|father|son|"
    r"daughter|wife|husband|brother|sister|friend|boss|kid|child|grandma|grandpa|partner|"
    rf"girlfriend|boyfriend)'s\s+{_DETAIL}", re.IGNORECASE)
"""Someone else's details in English ("her id is u8120", "my son's pin is 1010")."""


def theirs(text: str) -> bool:
    """Whether ``text`` names someone else's detail ("her id is u8120").

    >>> theirs("her id is u8120"), theirs("my id is u8120")
    (True, False)
    """
    return _THEIRS.search(text) is not None


_DETAIL_WORD = re_compile(r"\b(id|pin|code|number|phone|card|account|password|address)s?\b",
                          re.IGNORECASE)
_SAID_AS = re_compile(r"(?:'s)?\s*(?:number|no\.?|#)?\s*(?:is|are|was|were|ends with|"
                      r"starts with|[:=])?\s*", re.IGNORECASE)


def anothers_detail(text: str, start: int, own: frozenset[str]) -> bool:
    """Whether the value at ``start`` is said as a detail other than the slot's: the words
    right before it name one, none of the slot's ``own`` words ("the last four of my card
    are 5521" for a PIN; "my card pin is 5521" names the PIN; "my card snapped, text
    010-…" says the number as nothing else).

    >>> own = frozenset({"pin"})
    >>> [anothers_detail(t, t.index("5521"), own) for t in (
    ...     "the last four of my card are 5521", "my card pin is 5521", "it's 5521",
    ...     "my account is u1, pin 5521", "my card broke, use 5521", "account no. 5521",
    ...     "the pin number: 5521")]
    [True, False, False, False, False, True, False]
    """
    last = next(reversed([*_DETAIL_WORD.finditer(text, 0, start)]), None)
    if last is None or _SAID_AS.fullmatch(text, last.end(), start) is None:
        return False
    before = text[:last.start()].split()[-1:]  # "customer number" of a customer id
    return not {last[1].casefold(), *(w.casefold() for w in before)} & own


__all__ = ["KIN", "anothers_detail", "called", "full_name", "given_name", "named_before",
           "no_name", "relation", "someones", "theirs", "titled", "without_ssi"]
