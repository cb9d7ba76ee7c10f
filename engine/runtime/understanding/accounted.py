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
from engine.nlu.money import find_money
from engine.nlu.phrases import THINKING, is_question
from engine.nlu.reasons import caused
from engine.nlu.retractions import after_retraction
from engine.nlu.segments import last_sentence
from engine.nlu.text import SENTENCE_END
from engine.nlu.words import YesNoWords
from engine.precompiled import re_compile
from engine.runtime.understanding.bare import OPENING


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
    accounted = accounted_by(words)
    why = why_off(plain, spans, accounted)
    first = min((a for a, b in spans if b > a), default=0)  # "엄마가 보태신대서 20만원으로":
    own = " ".join("" if w in names.MISSPOKE and _HANGUL.match(w) else w  # "영어 O로 쳤네
                   # ORD-1002": a slip owned ("if I remember right", "or actually" still hedge)
                   for w in (why[:first] + plain[first:]).split(" "))
    if asking or names.hedged(own):  # why, not her words (but "5만원 보냈거든요" tells what
        return False  # was sent)
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
    return bool(names.CONDITION.search(text) or not adding and _ANOTHER.search(text)
                or any(_ALSO.search(text[a:b]) for a, b in spans)
                or any(_HANGUL.search(w) for w in leftover(
                    why_off(light_verbs_off(text), spans, accounted), spans, accounted)))


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
                text[a:b] in _SAID_SO), default=None)
    opener = _NOT_THAT.match(text)  # "아 그게 아니라, …": the change's opening, no turn-down
    if lead is not None and not any(_TURNED.search(text[a:b]) for a, b in before[:lead + 1]
                                    if opener is None or a >= opener.end()):
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
    fly out tomorrow", "…because I fly out tomorrow")."""
    last = max((b for a, b in spans if b > a), default=len(text))
    why = _WHY_EN.search(text, len(text[:last].rstrip(",.!~ ")))
    if why is None or _TURNED_EN.search(why.group()):
        return text
    return text[:why.start()] + " " * (len(text) - why.start())


_WORD = re_compile(r"\S+")
_WANTING = re_compile(r"(?<!\S)(?:하고|되고)\s?싶(?:어요|어|습니다|은데요|은데|네요)?(?!\S)")
"""Wanting the value said with it ("체크카드로 하고 싶어요"): no other predicate."""
_WHY_EN = re_compile(r"(?:,\s*|\s+)(?:because|cause|cuz|coz|since)\b.*$|,\s*(?:i|i'm|im|i've|ive|"
                     r"we|we're|my|it's|its|there's)\b.*$", re.IGNORECASE | re.DOTALL)
"""Why, said in English after a change ("make it express, I fly out tomorrow")."""
_TURNED_EN = re_compile(r"\b(?:not|no|never|dont|cant|wont|but|if|unless|wait|instead|rather|"
                        r"actually|also|too|and)\b|n't\b|\d", re.IGNORECASE)
"""What makes an English why more than why: a turn, a condition, another value."""
_SAID_SO = frozenset({"해서", "해서요", "해가지고", "해갖고"})
"""해서 as why around a change ("엄마가 그러라고 해서", "반반 내기로 해서 반만"), where it
ends the message or comes before the values (not "3만원 해서 보내줘": do and then)."""
_LONGEST_WHY = 5
"""Words: the why said after a change is short ("내가 받을 게 있어서")."""
_NOT_THAT = re_compile(r"^\s*(?:(?:아|앗|어|아이고)[,.]?\s+)?(?:(?:그게|그거|그건)\s+)?"
                       r"아니(?:라|고|야|다)[,.]?\s")
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
            not _SENTENCE_ASKS.search(told):  # "…했는데 환불 부탁드립니다. 주문번호 ORD-1002"
        return priced_off(last)
    text = story_off(text)
    for clause in _TOLD_CLAUSE.finditer(text):  # "지난번에 교환했는데 이번엔 환불해 주세요"
        rest = text[clause.end():]
        if (names.reported(text[:clause.end()]) or clause[0].startswith(("이었", "였"))) and \
                not names.reported(rest) and \
                _ASKING.search(rest):  # not "…취소했는데 환불이 아직 안 됐어요": no request
            return priced_off(rest.lstrip(" ,"))
    cut = told_after(text)
    return priced_off(text[:cut] if cut else text)


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
        if _SENTENCE_ASKS.search(rest) and find_money(rest) and \
                not _A_TASK.search(text[cut:clause.end()]):
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
    parts = [p for p in SENTENCE_END.split(text.strip()) if p.strip()]
    asks = next((i for i, part in enumerate(parts) if _SENTENCE_ASKS.search(part)), 0)
    if asks == 0 or any(_A_TASK.search(part) for part in parts[:asks]):
        return text
    told, asked = " ".join(parts[:asks]), " ".join(parts[asks:])
    compete = find_money(told) and find_money(asked) or \
        _SOMEONE_PAID.search(told) and _SOMEONE_PAID.search(asked)
    return asked if compete else text  # "…형님께 빌린 돈을… 형에게 백만 원 보내 주십시오"


_SENTENCE_ASKS = re_compile(r"(?:주세요|주십시오|줘요|줘|주라|주셈|줄래요|줄래|주실래요|주시겠어요|"
                            r"할게요|할게|할께|할래요|할래|싶어요|싶습니다|부탁|드려|드릴게|드릴께|줄게|"
                            r"[내해]야\s?(?:돼|되|해|합니다))")
"""A sentence that asks for something done ("…보내줄래요?", "…보내야 돼요")."""
_A_TASK = re_compile(r"(?:한테|에게|께)(?!서)(?:도|는)?\s*\S*\d|(?:한테|에게|께)(?!서).*원"
                     r"|^\s*\S*\d[\d,.]*\s*(?:만|천)?\s*원?(?:이요|요)?[.!~\s]*$")
"""A sentence that could be a task of its own: someone paid and a sum ("엄마한테 3만원이요")."""
_SOMEONE_PAID = re_compile(r"[가-힣](?:한테|에게|께)(?!서)")
"""Someone paid, or given to ("형님께 빌린 돈")."""
_PRICED = re_compile(r"(?:(?:원|만|천)(?:쯤|정도)?(?:이)?(?:인데|이었는데|였는데|이고|이었고|"
                     r"이라서|이라|이니까|이었으니까|짜리인데|짜리라)|(?:원|만|천)\s?(?:조금|좀|살짝|"
                     r"약간|훨씬|거의)?\s?(?:넘는데|넘었는데|넘어서|모자란데|모자라서|남았는데|남는데|"
                     r"드는데|들었는데|나왔는데|나오는데|되는데|됐는데)|(?:다는데|대는데|다던데|"
                     r"다고 해서|대서|래서))(?:요)?(?=[\s,.]+\S)")
"""A clause that prices a thing ("폰이 98만원인데", "5만원 조금 넘는데") or passes on what was
heard ("…나왔다는데")."""
_TOLD_CLAUSE = re_compile(r"(?:(?:이었|였|[았었했봤왔줬셨됐냈])는데|던데)(?:요)?(?=[\s,.]+\S)")
"""A clause of what was done, said or was, "-했는데", "-하던데", "-이었는데", before what is asked
now."""
_ASKING = re_compile(r"(?:주세요|주십시오|줘요|줘|주라|주셈|할게요|할게|할래요|할래|싶어요|"
                     r"싶습니다|부탁)")
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


_REQUEST_END = re_compile(r"(?:주세요|주십시오|줘요|줘|주라|부탁해요|부탁드려요|부탁합니다|"
                          r"할게요|할래요|하고 싶어요|싶어요|[가-힣]요)(?=[\s,.!~]+\S)")
"""Where a request ends ("…환불해 주세요", "…취소요") and something else follows."""


__all__ = ["accounted_by", "asked_for", "light_verbs_off", "not_a_change", "sure_of",
           "priced_off", "story_off", "told_after", "told_off"]
