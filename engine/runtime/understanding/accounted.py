"""Words said with a value that add nothing to it: the decision words and verbs of the flow,
the sounds one makes while thinking ("어 그 팔만 원으로"),
a value set aside ("말고"), a request's ending ("주세요", "주이소"), a word of changing or of
the speaker's own giving, finding the value ("찾았어요 ORD-1002요") or naming which task
("이번 건은"). A change at a confirmation is sure only when every other word is one of
these (``not_a_change``); values read mid-flow are sure only outside a question, a hedge or
another verb's sentence (``sure_of``). What was told before or after a request is the
story's (``told_off``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.compiler.compiled import CompiledService
from engine.nlu import names
from engine.nlu.certainty import leftover
from engine.nlu.endings import REQUEST
from engine.nlu.phrases import THINKING, is_question
from engine.nlu.reasons import caused
from engine.nlu.retractions import after_retraction
from engine.nlu.segments import last_sentence
from engine.nlu.text import closed_by
from engine.nlu.words import YesNoWords
from engine.precompiled import re_compile
from engine.runtime.understanding.bare import OPENING
from engine.runtime.understanding.stories import (
    SENTENCE_ASKS,
    priced_off,
    story_en_off,
    story_off,
)


def accounted_by(words: YesNoWords) -> Callable[[str], bool]:
    """Words said with a value that add nothing: yes/no words, verbs, "말고", "잘못 말했어"."""
    return lambda w: words.known(w) or w in _ASIDE or w in THINKING or w in names.MISSPOKE or \
        w.startswith(_CHANGING) or _GIVING.fullmatch(w) is not None or w in _ASKING_FOR


_ASIDE = frozenset({"말고", "아니고", "아니라", "대신", "대신에", "주세요", "줘", "줘요", "돼",
                     "돼요", "됩니다", "주실래요", "부탁해요", "부탁드려요", "부탁드립니다",
                     "걸로", "거로", "것으로",
                     "이거", "이건", "그거", "그건", "그것", "이번엔", "이번에는", "맞다",
                     "그리고", "do", "let", "s", "lets", "go", "with", "instead", "rather", "we",
                     "us",
                     "and", "also", "찾았어요", "찾았다", "찾았네요", "찾았습니다", "찾았음",
                     "여기요", "여기", "이번", "건", "건은", "건도", "거는", "것은", "그러니까",
                     "그니까", "결론은", "결론적으로", "요컨대", "아무튼", "암튼", "어쨌든", "so",
                     "anyway", "basically", "다시", "딱", "그냥", "처음대로", "원래대로", "돈은",
                     "돈", "제가", "내가", "갈게", "갈게요", "갈래", "갈래요", "가자", "가죠",
                     "갑시다", "가겠습니다"})
"""Words said with a changed value that say nothing else ("5만원 말고 7만원", "바꿔 주세요",
"오빠한테 보내는 걸로", "let's do friday", "그리고 받는 사람은 아빠로", "찾았어요 ORD-1002요",
"그러니까 결론은, 아빠로 바꿔줘")."""
_ASKING_FOR = frozenset(r.replace(" ", "") for r in REQUEST)
"""A request's ending said apart ("환불로 해 주이소", "교환으로 해 줘유")."""
_GIVING = re_compile(r"(?:주|드리)(?:세요|십시오|실래요|려고(?:요)?)|드리는|(?:줘|드려)요?"
                     r"|(?:줄|드릴)(?:[게께]|래)요?|(?:줍|드립)니다|(?:준|드린)다")
"""A giving verb's word of the speaker's own giving, asked for, promised or meant ("3만원 줄게",
"20만원 드릴게요"): said with an amount, it says nothing else ("주던데" is someone else's)."""
_CHANGING = ("바꿔", "바꾸", "바꿀", "변경", "수정", "고쳐", "늘려", "줄여", "올려", "내려", "미뤄",
             "미루", "당겨", "예약", "낮춰", "낮추", "높여", "맞춰", "맞추", "조정")


def sure_of(text: str, picked: Mapping[str, Any], spans: Sequence[tuple[int, int]],
          service: CompiledService, asked: str | None, words: YesNoWords,
          known: Callable[[str], bool]) -> bool:
    """Whether the rules are sure of values found mid-flow: never in a question ("3만원?"); an
    optional slot's alone, unasked, needs the rest ``known`` ("오늘 날씨 좋다": no date)."""
    if not picked:
        return True
    said = after_retraction(text) or text  # "40만원? 아니다 20만원 이하로": its last say
    asking = is_question(said) and not (asked and names.name_shaped_like_a_question(
        OPENING.sub("", text)))  # "어 누나요": a name, not "-나요?"
    plain = _WANTING.sub(lambda m: " " * len(m[0]), light_verbs_off(text))  # "damaged
    # 됐어요": the value's own verb, no report; "신용카드로 하고 싶어요": wanting it
    if asking:
        return False
    accounted = accounted_by(words)
    why = why_off(plain, spans, accounted)
    first = min((a for a, b in spans if b > a), default=0)  # "엄마가 보태신대서 20만원으로":
    own = " ".join("" if w in names.MISSPOKE and _HANGUL.match(w) else w  # "영어 O로 쳤네
                   # ORD-1002": a slip owned ("if I remember right", "or actually" still hedge)
                   for w in (why[:first] + plain[first:]).split(" "))
    if names.hedged(own):  # why, not her words (but "5만원 보냈거든요" tells what was sent)
        return False
    if any(names.OTHER_PREDICATE.search(w) for w in leftover(why, spans, accounted)):
        return False
    weak = all(name != asked and not service.slots[name].spec.required for name in picked)
    return not (weak and leftover(why_en_off(text, spans), spans, known))


def not_a_change(text: str, spans: Sequence[tuple[int, int]],
                  accounted: Callable[[str], bool], *, adding: bool = False) -> bool:
    """At a confirmation, values that change nothing: a condition ("yes if it's cheese"),
    another task ("누나한테도", "yes and send Tom 10k too"; ``adding`` a yes/no extra to the
    task, "too" adds it: "and add extra cheese too"), a sentence about something else
    ("물어보고 말할게")."""
    why = why_off(light_verbs_off(text), spans, accounted)  # "…, my brother's coming too":
    return bool(names.CONDITION.search(text) or not adding and _ANOTHER.search(why)  # the
                or any(_ALSO.search(text[a:b]) for a, b in spans)  # story's "too"
                or any(_HANGUL.search(w) for w in leftover(why, spans, accounted)))


def why_off(text: str, spans: Sequence[tuple[int, int]],
            accounted: Callable[[str], bool]) -> str:
    """``text`` with a clause of why said with a change blanked out: one ending in a word of
    cause before the values ("용돈이니까 만원 더 얹어줘", "아 더치페이라 반만 보내면 돼"),
    the words that end the message in one after them ("오천원 빼고 보내야 해 내가 받을 게
    있어서"), or an English one after them ("make it express, I fly out tomorrow"); never
    a word that turns something down ("3만원으로 바꾸지 마 비싸니까").

    >>> why_off("용돈이니까 만원 더 얹어줘", [(6, 8)], lambda w: False)
    '      만원 더 얹어줘'
    """
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    spans = [(a, b) for a, b in spans if b > a]
    if not spans or not words:
        return text
    first, last = min(a for a, _ in spans), max(b for _, b in spans)
    before = [(a, b) for a, b in words if b <= first]
    lead = max((i for i, (a, b) in enumerate(before) if caused(text[a:b]) or
                text[a:b] in _SAID_SO or _PURPOSE.search(text[a:b])), default=None)
    opener = _NOT_THAT.match(text)  # "아 그게 아니라, …": the change's opening, no turn-down
    if lead is not None and not any(_TURNED.search(text[a:b]) for a, b in before[:lead]
                                    if opener is None or a >= opener.end()):  # "소득이
        # 없어서 체크카드로": the why's own negation turns nothing down
        text = " " * before[lead][1] + text[before[lead][1]:]
    if (told := why_en_off(text, spans)) != text:  # "make it express, I fly out tomorrow"
        return told
    after = [(a, b) for a, b in words if a >= last]
    if after and (caused(end := text[after[-1][0]:after[-1][1]]) or end in _SAID_SO):
        cut = len(after)
        while cut > 0 and len(after) - cut < _LONGEST_WHY:
            a, b = after[cut - 1]
            if accounted(text[a:b]) or _TURNED.search(text[a:b]):
                break
            cut -= 1
        if cut < len(after):
            start = after[cut][0]
            text = text[:start] + " " * (len(text) - start)
    return text


def why_en_off(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with why said in English after its values blanked out ("make it express, I
    fly out tomorrow", "…because I fly out tomorrow"), or before them in a clause of its own
    ("Mia is the one who paid, send it to Mia")."""
    first = min((a for a, b in spans if b > a), default=0)
    lead = text.rfind(",", 0, first)
    if lead > 0 and _TOLD_EN.search(told := text[:lead]) and not _TURNED_EN.search(told):
        text = " " * (lead + 1) + text[lead + 1:]
    last = max((b for a, b in spans if b > a), default=len(text))
    why = _WHY_EN.search(text, len(text[:last].rstrip(",.!~ ")))
    turned = _TURNED_EN if why is None or not _TELLING_EN.match(why.group()) else _TURNED_STRONG
    if why is None or turned.search(why.group()):  # "…, my brother's coming too and he eats
        return text  # for 2": a story's "too" and number
    return text[:why.start()] + " " * (len(text) - why.start())


_WORD = re_compile(r"\S+")
_WANTING = re_compile(r"(?<!\S)(?:하고|되고)\s?싶(?:어요|어|습니다|은데요|은데|네요)?(?!\S)")
"""Wanting the value said with it ("체크카드로 하고 싶어요"): no other predicate."""
_WHY_EN = re_compile(r"(?:,\s*|\s+)(?:because|cause|cuz|coz|since)\b.*$|,\s*(?:i|i'm|im|i've|ive|"
                     r"we|we're|my|it's|its|there's|he|she|they|he's|she's|they're)\b.*$",
                     re.IGNORECASE | re.DOTALL)
"""Why, said in English after a change ("make it express, I fly out tomorrow")."""
_TOLD_EN = re_compile(r"\b(?:is|was|are|were|has|had|paid|lent|gave|got|bought|spent|covered|"
                      r"\w{3,}ed)\b", re.IGNORECASE)
"""A clause before a change that tells ("Mia is the one who paid, …")."""
_TURNED_EN = re_compile(r"\b(?:not|no|never|dont|cant|wont|but|if|unless|wait|instead|rather|"
                        r"actually|also|too|and)\b|n't\b|\d", re.IGNORECASE)
"""What makes an English why more than why: a turn, a condition, another value."""
_TURNED_STRONG = re_compile(r"\b(?:not|no|never|dont|cant|wont|but|if|unless|wait|instead|"
                            r"rather|actually)\b|n't\b", re.IGNORECASE)
_TELLING_EN = re_compile(r",\s*(?:he|she|they|my\s+\w+|his\s+\w+|her\s+\w+|their\s+\w+)"
                         r"(?:'s|\s+(?:is|was|has|had|just|\w+s|\w+ed))\b", re.IGNORECASE)
"""A why that tells of someone ("…, my brother's coming too"): its "too" and its numbers are
the story's, only a turn ("not", "but", "wait") makes it more."""
_SAID_SO = frozenset({"해서", "해서요", "해가지고", "해갖고"})
"""해서 as why around a change ("엄마가 그러라고 해서", "반반 내기로 해서 반만"), where it
ends the message or comes before the values (not "3만원 해서 보내줘": do and then)."""
_LONGEST_WHY = 5
"""Words: the why said after a change is short ("내가 받을 게 있어서")."""
_NOT_THAT = re_compile(r"^\s*(?:(?:아|앗|어|아이고)[,.]?\s+)?(?:(?:그게|그거|그건)\s+)?"
                       r"아니(?:라|고|야|다|요)?[,.]?\s")
_PURPOSE = re_compile(r"[가-힣](?:려면|려고)$")
"""A clause of what for, before a change ("지출 관리하려면 체크카드로 해 주세요")."""
"""The opening of a correction ("아 그게 아니라, …", "아 아니다, …"): what follows it is the
change."""
_TURNED = re_compile(r"^(?:안|못|마|말|않)|않|아니|말[고아]|지\s?마|없")
"""A word that turns something down: no part of a why to blank out."""


_HANGUL = re_compile(r"[가-힣]+")
_ALSO = re_compile(r"(?:한테|에게|께|원)도$")
_ANOTHER = re_compile(r"\b(?:too|also|as well|another|additionally)\b", re.IGNORECASE)


def light_verbs_off(text: str) -> str:
    """``text`` with the Korean light verb after an English word blanked out, as long as it
    was: said so, the English word is the verb ("damaged 됐어요", "lost 했어요", "stolen
    당했어요", "cancel 해 주세요"), and the light verb no predicate of another.

    >>> light_verbs_off("카드가 damaged 됐어요 ㅠ")
    '카드가 damaged     ㅠ'
    """
    return _LIGHT_VERB.sub(lambda m: " " * len(m[0]), text)


_LIGHT_VERB = re_compile(r"(?<=[A-Za-z])\s*(?:당|되|하)?(?:했|됐|되었|하였|해|돼|됨|함|된|한|"
                         r"당했|당함)(?:어요|어|음|다|습니다|네요|요)?(?![가-힣])")
"""하다/되다/당하다 as a light verb, right after an English word."""


def asked_for(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """The request with the values in it, when a request's ending closes it and only more
    words follow (why, a remark): "ORD-1012 환불해 주세요 노캔 켜면 지직거려요" -> "ORD-1012
    환불해 주세요"; the whole message otherwise.

    >>> asked_for("ORD-1003 구매 취소요 회사에서 지급해준대서요", [(0, 8)])
    'ORD-1003 구매 취소요'
    """
    for end in _REQUEST_END.finditer(text):
        if all(b <= end.end() for _, b in spans) and text[end.end():].strip():
            return text[:end.end()]
    return text


def told_off(text: str) -> str:
    """The request without what is told before it in a sentence of its own ("어제 엄마한테
    1만원 보냈거든. 오늘은 누나한테 3만원 보내줘") or after it ("엄마한테 3만원 보내줘 어제
    약속했거든"): the values of a story are nobody's request."""
    if (last := last_sentence(text)) is not None and \
            names.reported(told := text[:len(text) - len(last)].rstrip(" .!~…")) and \
            not SENTENCE_ASKS.search(told):  # "…했는데 환불 부탁드립니다. 주문번호 ORD-1002"
        return priced_off(last)
    text = story_off(text)
    for clause in _TOLD_CLAUSE.finditer(text):  # "지난번에 교환했는데 이번엔 환불해 주세요"
        rest = text[clause.end():]
        if (names.reported(text[:clause.end()]) or clause[0].startswith(("이었", "였", "던"))) \
                and not names.reported(rest) and _ASKING.search(rest):  # not "…취소했는데
            return priced_off(rest.lstrip(" ,"))  # 환불이 아직 안 됐어요": no request
    for end in (*_REQUEST_END.finditer(text), *_TEXTED_END.finditer(text),
                *_SAID_END.finditer(text)):  # "회사에서 하나 준대요 😅 ORD-1007 주문 취소할게요",
        rest = text[end.end():]  # "…깜빡했어 ㅠㅠ 내일 …", "어제 pc방비 준호가 냈대 준호한테 …"
        told = light_verbs_off(text[:end.end()])
        if SENTENCE_ASKS.search(rest) and (names.reported(told) or _PAST_END.search(told)) \
                and not names.reported(rest):  # not "카드가 damaged 됐어요, …": its value
            return priced_off(rest.strip(" ,.!~😅😂ㅋㅎㅠㅜ"))
    cut = told_after(text)
    return story_en_off(priced_off(text[:cut] if cut else text))


_TOLD_CLAUSE = re_compile(r"(?:(?:이었|였|[았었했봤왔줬셨됐냈])는데|던데)(?:요)?(?=[\s,.]+\S)")
"""A clause of what was done, said or was, "-했는데", "-하던데", "-이었는데", before what is asked
now."""
_ASKING = re_compile(r"(?:주세요|주십시오|줘요|줘(?!야|서|도)|주라|주셈|할게요|할게|할래요|할래|"
                     r"싶어요|싶습니다|부탁)")
"""A request's ending, said after a clause of what was done."""


def told_after(text: str) -> int | None:
    """Where the request ends when all that follows tells of what was done or said ("엄마한테
    3만원 보내줘 어제 약속했거든"): the values said after it are the story's, not the
    request's; None when nothing is told after a request.

    >>> told_after("엄마한테 3만원 보내줘 어제 약속했거든"), told_after("3만원 보내줘 내일")
    (12, None)
    """
    for end in _REQUEST_END.finditer(text):
        if names.reported(light_verbs_off(text[end.end():])) and \
                not names.reported(text[:end.end()]):  # "…부탁해요, 카드가 cracked 됐어요": of it
            return end.end()
    return None


_SAID_END = re_compile(r"[가-힣](?:대|래|더라|더라고|거든|잖아)(?:요)?(?=[\s,.!~]+\S)")
"""Where a sentence that tells ends with no stop typed after it ("…준호가 냈대 준호한테 …")."""
_SS_FINAL = closed_by(20)
"""Syllables closed by ㅆ, the past ("샀", "깎았", "했", "줬")."""
_PAST_END = re_compile(rf"[{_SS_FINAL}]어(?:요)?[\s.!~ㅋㅎㅠㅜ]*$")
"""A sentence that tells what was done ("45만원짜리를 40만원에 깎았어 ㅋㅋ")."""
_TEXTED_END = re_compile(r"[가-힣][.!~]*\s*[ㅋㅎㅠㅜ]{2,}[.!~]*(?=\s+\S)")
"""Where a texted sentence ends: laughing or crying after it ("깜빡했어 ㅠㅠ …")."""
_REQUEST_END = re_compile(r"(?:주세요|주십시오|줘요|줘|주라|부탁해요|부탁드려요|부탁합니다|"
                          r"할게요|할래요|하고 싶어요|싶어요|[가-힣]요)"
                          r"(?=[\s,.!~ㅠㅜㅋㅎ]*\s[\s,.!~]*\S)")
"""Where a request ends ("…환불해 주세요", "…취소요") and something else follows."""


__all__ = ["accounted_by", "asked_for", "light_verbs_off", "not_a_change", "sure_of",
           "told_after", "told_off"]
