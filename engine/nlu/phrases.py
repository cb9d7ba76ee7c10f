"""Decision words -> lexicons that tell whether a piece of a message is one of them.

A decision (a yes, a no, a cancel) is read only when *every* word of the message belongs
to it: the decision phrase itself, politeness and fillers ("네 감사합니다", "please"), and
the flow's own verbs for doing the thing ("보내주세요", "send it"). A longer word that
merely starts with a decision word (진행상황, 그래서, 확인해 볼게, yesterday) is not that
word, and any word outside these lists (a question word, "근데", "but", "if", a name)
makes the message something other than a decision. Questions and quotes are refused
before matching (``words.decision_text``); ``words.yes_no`` reads the message word by
word against these lexicons.

Korean words conjugate, so each word is matched with a closed list of endings chosen by
its last syllable: a word ending in a consonant (확인, 진행, 이체) takes the noun forms
("확인이요") and 하다's affirmative forms ("확인해 주세요", "진행할게요"); a word ending in
a vowel (보내, 좋아, 그래, 네) takes 요 and the request forms ("보내 주세요", "좋아요").
Only affirmative, non-questioning endings are listed: "확인할까", "진행하니", "확인했지"
are not forms of a yes.
"""

from __future__ import annotations

import re

from engine.precompiled import re_compile

from .decision_words import GENERIC_ACT, NEUTRAL
from .lexicon import BARE_NEGATIONS, Lexicon, negations, squash

# -- the built-in word classes ----------------------------------------------------------------

# NEUTRAL (politeness, fillers) and GENERIC_ACT (verbs of doing) are data of decision_words

INTERROGATIVES = {
    "ko": ("누구", "누가", "뭐", "무엇", "무슨", "뭘", "언제", "어디", "얼마", "몇", "왜", "어떻게",
           "어떤", "어느", "어째서", "어케", "어캐", "어떡", "을매", "얼매", "어데"),
    "en": ("who", "whom", "whose", "what", "when", "where", "which", "why", "how"),
}
"""Question words: never a value, a verb or a decision."""
_KO_ASKING = tuple(INTERROGATIVES["ko"])
_EN_ASKING_WORDS = frozenset(INTERROGATIVES["en"])


def asks(word: str) -> bool:
    """Whether ``word`` is, or starts with, a question word ("얼마", "누구한테", "what's").

    >>> asks("누구한테"), asks("엄마"), asks("What's"), asks("whatever")
    (True, False, True, False)
    """
    folded = word.strip().casefold()
    if folded.startswith(_KO_ASKING):
        return True
    first = folded.split(" ", 1)[0]
    for suffix in ("'s", "’s", "'re", "’re"):
        if first.endswith(suffix):
            first = first[:-len(suffix)]
            break
    return first in _EN_ASKING_WORDS


_QUESTION_MARK = re_compile(r"[?？]")
_QUESTION_ENDING = re_compile(
    r"(?:(?<!머|언|구|엄)니|나요|냐|냐고|까|까요|는지|는가|인가요?|던가|더라|"
    r"(?:었|았|였|했|냈|됐|줬|셨|겠)[나니]|"
    r"어때|어때요|"
    r"죠|을래|ㄹ까)[\s.!~]*$")
"""A Korean question ending: 니 of a verb ("보냈니", "가니"), not of a noun ("할머니", "언니",
"장바구니")."""
_SEARCHING = re_compile(r"(?:^|(?<=\s))(?:뭐냐|뭐더라|뭐였더라|뭐지|뭐시기"
                        r"|뭐라\s?(?:그러|하)(?:지|나|더라)|what'?s\s+it\s+called|whatchamacallit)"
                        r"[,.…~]*(?=\s+\S)",
                        re.IGNORECASE)
"""Searching for a word mid-sentence ("그 뭐냐 체크 카드를 만들려고요", "the, what's it called,
debit card"): no question."""
_RESIGNED = re_compile(r"(?<=[가-힣])지\s?뭐(?:야|예요|에요|니|람|겠어)?(?=[\s.!~…]|$)"
                       r"(?![\s.!~…]*\?)|(?:^|(?<=\s))(?:누구|뭐|왜|어디|언제|얼마)(?:냐면|냐하면|"
                       r"나면|냐믄)(?:요)?[,.]?(?=\s)")
"""A sigh that only looks asked ("무릎이 아파서 못 갔지 뭐야": so it went), and a question word
that opens its own answer ("누구냐면 …", "왜냐면 …"): no question."""
_OF_COURSE = re_compile(r"(?:당연|당근|물론)\S*\s.*죠[\s.!~]*$")
"""A 죠 that insists, after "of course" ("당연 5점이죠"): no question."""
_EN_ASKING = frozenset({"is", "are", "am", "was", "were", "do", "does", "did", "can", "could",
                        "will", "would", "should", "shall", "have", "has", "may", "whats",
                        "hows", "wheres", "whos"})
_ASKING_FOR = re_compile(
    r"줄래|주실래|주시겠|줄 ?수 ?있|주실 ?수 ?있|할 ?수 ?있|가능할까|해줘\s*[?？]|주세요\s*[?？]|"
    r"\b(?:can|could|would|will|may) (?:you|u|ya|i|we)\b|\bplease\b|\bi(?: would|d)? like\b|"
    r"\b(?:can|could) it (?:go|be sent|be moved|be done)\b(?=.*\binstead\b)|"
    r"\bi want\b", re.IGNORECASE)
"""A request put as a question ("보내줄래?", "can you send…", "could I get…"): a request."""


def is_question(text: str) -> bool:
    """Whether the message asks something rather than asking for something: a "?", a
    question word ("얼마", "what"), a Korean question ending ("보냈니", "어때") or an English
    question opening ("is it…"); a request put as a question ("보내줄래?", "can you…") is not.

    >>> is_question("오늘 날씨 어때"), is_question("3만원?"), is_question("엄마한테 보내줄래?")
    (True, True, False)
    >>> is_question("what did I send?"), is_question("can you send it to mom?")
    (True, False)
    >>> is_question("do you charge a fee"), is_question("do it on friday")
    (True, False)
    >>> is_question("do I need my pin"), is_question("do express pls"), is_question("do")
    (True, False, True)
    >>> is_question("cash when he gets here"), is_question("when will it get here")
    (False, True)
    >>> is_question("should be 52k, sorry"), is_question("should I send it")
    (False, True)
    >>> is_question("당연 5점이죠"), is_question("5점이죠")
    (False, True)
    >>> is_question("그 뭐냐 체크카드 만들래요"), is_question("그게 뭐냐")
    (False, True)
    >>> is_question("바빠서 못 갔지 뭐야. 5만원 보내줘"), is_question("못 갔지 뭐야?")
    (False, True)
    """
    stripped = _RESIGNED.sub(" ", _SEARCHING.sub(" ", text)).strip()
    if not stripped or _ASKING_FOR.search(stripped):
        return False
    if _QUESTION_MARK.search(stripped) or _QUESTION_ENDING.search(stripped) and \
            not _OF_COURSE.match(stripped):
        return True
    tokens = re.sub(r"[^\w\s]", " ", stripped.casefold()).split()
    opens = bool(tokens) and tokens[0] in _EN_ASKING and not (
        tokens[0] == "do" and not _DO_WHO.issuperset(tokens[1:2])) and not (  # "do express"
        tokens[0] in _MODALS and tokens[1:2] == ["be"])  # "should be 52k": it should be
    return opens or any(asks(t) and not (t == "when" and i + 1 < len(tokens) and
                                         tokens[i + 1] in _SUBJECTS)
                        for i, t in enumerate(tokens))


_SUBJECTS = frozenset({"he", "she", "it", "they", "we", "you", "u", "i", "the", "my", "your",
                       "his", "her", "our", "their", "this", "that", "its", "ready", "done"})
"""What follows "when" that only joins a clause of time ("cash when he gets here", "when
ready"): no question ("show me what I sent" still asks)."""
_MODALS = frozenset({"should", "would", "will", "shall"})
"""Openers that, before "be" and no "?", say what it is to be ("should be 52k")."""
_DO_WHO = frozenset({"you", "u", "ya", "yall", "i", "we", "they", "these", "those", "people"})
"""Who "do" asks about ("do you charge…", "do I need…"); "do" before anything else says what
to do ("do it friday", "do express")."""


_KO_PREDICATE = re_compile(
    r"[가-힣](?:(?:었|았|였|했|됐|갔|왔|봤|줬|셨|겠)(?:어|어요|다|네|네요|지|죠|음|습니다)?"
    r"|네요|군|군요|는데|는데요|거든|거든요|잖아|잖아요|습니다)[.!~ㅋㅎㅠㅜ]*$")
"""A Korean sentence's predicate ending its last word: "점심 먹었어요", "좋네요"."""
_KO_PLAIN_END = re_compile(r"(?:[가-힣]{3,}|[가-힣]+\s+[가-힣]+)(?<!입니)"
                           r"(?:다|네|해|파|워|해요|파요|워요)[.!~ㅋㅎㅠㅜ]*$")
"""Plainer endings that short names share (지해, 다해): only after a longer word or a
second one ("배고프다", "나 오늘 너무 피곤해"); a word ending in the copula 입니다 says
what something is ("민지입니다", "받는 분은 김영희입니다")."""
_TRAILING = frozenset({"진짜", "정말", "완전", "너무", "lol", "haha"})
_EN_SUBJECT = frozenset({"i", "im", "ive", "id", "ill", "we", "were", "weve", "its", "it",
                         "thats", "theres", "today", "lol"})


def is_statement(text: str) -> bool:
    """Whether the message is a sentence saying something — a predicate ends it ("배고프다",
    "점심 먹었어요") or a subject opens it ("I had a long day") — rather than a bare value
    ("엄마", "민수요", "John"): never taken whole as a name or a note's short answer.

    >>> is_statement("배고프다"), is_statement("점심 먹었어요"), is_statement("I had a long day")
    (True, True, True)
    >>> is_statement("엄마"), is_statement("민수요"), is_statement("my mom"), is_statement("John")
    (False, False, False, False)
    >>> is_statement("김민지입니다"), is_statement("오늘은 바빴습니다")
    (False, True)
    """
    words = text.split()
    while len(words) > 1 and (words[-1] in _TRAILING or LAUGHS.fullmatch(words[-1])):
        words.pop()  # "졸리다 진짜", "피곤하네 ㅋㅋ"
    stripped = " ".join(words)
    if _KO_PREDICATE.search(stripped) or _KO_PLAIN_END.search(stripped):
        return True
    tokens = re.sub(r"[^\w\s]", "", stripped.casefold()).split()
    return len(tokens) >= 2 and tokens[0] in _EN_SUBJECT


_SOCIAL = re_compile(
    r"^(?:안녕|반가|반갑|고마|고맙|감사|수고|잘\s?있|또\s?봐|다음에\s?봐|좋은\s?(?:아침|하루)|"
    r"hi|hello|hey|yo|thank\s?you|thanks?|thx|bye|good\s?(?:morning|evening|night|bye)|"
    r"see\s?you|nice to meet)(?![a-z])", re.IGNORECASE)


def is_social(text: str) -> bool:
    """Whether the message is only social — a greeting, thanks, a goodbye, a laugh or a
    filler — rather than a request, however vague ("음 글쎄 뭐 괜찮은 거").

    >>> [is_social(m) for m in ("안녕하세요", "고마워요!", "Thanks a lot", "ㅋㅋ", "음...")]
    [True, True, True, True, True]
    >>> [is_social(m) for m in ("음 글쎄 뭐 괜찮은 거", "hey can you find me shoes")]
    [False, False]
    >>> is_social("안녕하세요~ hi there"), is_social("안녕하세요 노트북 좀 찾는데요")
    (True, False)
    """
    words = [w for w in re.sub(r"[^\w\s]", " ", text.casefold()).split()
             if w not in FILLERS and not LAUGHS.fullmatch(w)]
    if not words:
        return True
    rest, greeted = " ".join(words), False
    while (found := _SOCIAL.match(rest)) is not None:  # "안녕하세요~ hi there": two
        word_end = rest.find(" ", found.end())  # the greeting's word is all of it
        rest, greeted = ("" if word_end == -1 else rest[word_end + 1:]), True
    left = rest.split()
    return greeted and len(left) <= (1 if any(_HANGUL_WORD.search(w) for w in left) else 2)


_HANGUL_WORD = re_compile(r"[가-힣]")


_NOT_KNOWING = re_compile(
    r"모르|몰라|몰르|기억\s*(?:이\s*)?안|생각\s*(?:이\s*)?안|까먹|잊어버|잊었|확실하지|"
    r"번호(?:가|는|를)?\s*(?:없|안\s*보|못\s*찾)|"
    r"\b(?:not sure|dont know|don'?t know|do not know|no idea|dunno|cant remember|"
    r"can'?t remember|forgot|not certain|(?:don'?t|do not) have (?:it|that|the (?:number|id|"
    r"code)|my (?:number|id|code)|one)|haven'?t got (?:it|the|my|one))\b", re.IGNORECASE)


def not_knowing(text: str) -> bool:
    """Whether the message says the user does not know or remember ("잘 모르겠어", "기억
    안 나", "no idea") or does not have it ("번호가 없어요", "i dont have the number rn"): a
    try at the question that failed, not a change of subject.

    >>> not_knowing("잘 모르겠어"), not_knowing("기억 안 나"), not_knowing("I can't remember")
    (True, True, True)
    >>> not_knowing("오늘 너무 피곤해")
    False
    """
    return bool(_NOT_KNOWING.search(text))


FILLERS = frozenset({
    "음", "음음", "으음", "흠", "어", "아", "저", "저기", "저기요", "그게", "글쎄", "글쎄요",
    "잠깐", "잠깐만", "잠시만", "근데", "그런데", "아무튼", "뭐지", "앗", "엇", "헉", "아차",
    "어머", "아이고",
    "um", "umm", "uh", "uhh", "hmm", "er", "erm", "well", "wait", "hold", "dunno",
})
"""Words that hold a place while one thinks: never a value (the "음..." of "음...에게")."""
THINKING = (FILLERS - {"hold", "wait", "dunno", "잠깐", "잠깐만", "잠시만", "글쎄", "글쎄요",
                       "뭐지"}) | {"그", "그러니까", "그니까", "그러니깐", "저어", "어어",
                                  "oh", "ohh", "ah", "ahh"}
"""The sounds and words one says while thinking, as speech opens an answer with them ("어 김민수
씨", "음 그러니까 아빠", "oh, Hana"): none asks to wait ("hold on", "잠깐만")."""

_DETERMINERS = frozenset({"the", "this", "that", "my", "our", "이", "그", "저", "이번", "방금"})


def objects_off(tokens: list[str], acts: Lexicon,
                things: frozenset[str] = frozenset()) -> list[str]:
    """``tokens`` without what a decision is about, named with its determiner ("this
    transfer", "이 이체", "그 신청은": the flow's verbs, or ``things`` it does things to): no
    decision of its own ("cancel this transfer" is a cancel).

    >>> objects_off("cancel this transfer".split(), Lexicon.of(["transfer"]))
    ['cancel']
    """
    kept: list[str] = []
    for token in tokens:
        if kept and kept[-1] in _DETERMINERS and (token in acts or token in things):
            kept.pop()
        else:
            kept.append(token)
    return kept


HOLD = frozenset({"yet", "now", "until", "till", "later", "아직", "아직은", "아직요"})
"""Words that make a no or a "don't" a wait, not a cancel ("not yet", "don't send it now",
as "아직은 아니야"); a cancel word with them still cancels ("cancel it for now")."""

SINGLE_ONLY = ("엉", "잉")
"""Yes words that mean something else doubled (엉엉 is crying, 잉잉 whining)."""
LAUGHS = re_compile(r"[ㅎㅋㅠㅜ]+")
"""ㅎㅎ, ㅋㅋ, ㅠㅠ: neutral wherever they stand."""
A_LAUGH = re_compile(r"(?<![ㄱ-ㅎ])[ㅎㅋㅠㅜ]+")
"""A laugh in running text, not the ㅋ of a word typed in consonants ("ㅇㅋ")."""
_DESCRIBED_EN = re_compile(r"(?<=[A-Za-z])\s*,\s*(?:my|our)\s+[a-z]+(?:[\s-][a-z]+)?[\s,.!~]*$")
"""Who someone is, said after their name ("Hana, my coworker")."""
_THANKED = re_compile(
    r"(?<=\S)[\s,.!~]*(?:(?:thanks|thank\s?(?:you|u)|thx|ty|cheers)(?:\s(?:so much|a lot))?"
    r"|감사합니다|감사해요|고마워요|고마워|고맙습니다|땡큐)[\s.!~^]*$", re.IGNORECASE)


def thanked_off(text: str) -> str:
    """A short answer without the thanks or who they are said after it ("Mina, thanks",
    "지수요 감사합니다", "it's for Hana, my coworker"): what was answered. A message that is
    nothing but thanks, or a sentence of more than three words before them ("best pizza in
    town, thx"), stays as it is.

    >>> thanked_off("Mina, thanks!"), thanked_off("오만원이요 감사합니다"), thanked_off("thanks")
    ('Mina', '오만원이요', 'thanks')
    >>> thanked_off("oh it's for Hana, my coworker"), thanked_off("Jay, our landlord, thx")
    ("oh it's for Hana", 'Jay')
    """
    thanked = _THANKED.sub("", text)
    text = thanked if len(thanked.split()) <= 3 else text
    described = _DESCRIBED_EN.sub("", text)
    return described if len(described.split()) <= 4 else text


CANCEL_SET_ASIDE = (r"(?:취소|중단|중지)(?:는|를|은)?\s?(?:하지\s?(?:말고|마시고|말구)|말고|말구|"
                    r"아니고요?|아니구요?|아니라|아니에요|아니예요|"
                    r"안\s?(?:해요?|하고|하구|할래요?|할게요?|할께요?|합니다|한다고요?|한다니까요?))")
"""A cancel turned down ("취소하지 말고", "취소 아니고요", "취소 안 해요"): neither a cancel nor
a word beside a value — a pattern part."""
SET_ASIDE = r"(?:말고|아니고|아니라|빼고|대신에?|싫고|필요\s?없고)"
"""The words after a value or a request that set it aside for another ("반품 말고 교환",
"민수한테 3만원 아니고", "환불 대신", "체크카드는 싫고"): a pattern part."""
CONTRAST = frozenset({"but", "instead", "rather", "though", "although", "however", "말고",
                      "대신", "그래도", "근데", "그런데", "하지만", "아니고"})
"""Words that turn what was said around ("취소 말고 보내줘", "cancel, but...")."""


def contrasted(text: str) -> bool:
    """Whether ``text`` turns around halfway: a contrast word, or a Hangul word ending in
    지만 ("damaged once but now my balance", "잃어버렸지만 찾았어"; not "my card is broken")."""
    return any(w in CONTRAST or (len(w) > 2 and w.endswith("지만"))
               for w in re.findall(r"\w+", text.casefold()))


__all__ = ["A_LAUGH", "BARE_NEGATIONS", "CANCEL_SET_ASIDE", "CONTRAST", "FILLERS", "GENERIC_ACT",
           "HOLD", "INTERROGATIVES", "LAUGHS", "NEUTRAL", "SET_ASIDE", "SINGLE_ONLY", "THINKING",
           "Lexicon", "asks", "contrasted", "is_question", "is_social", "is_statement",
           "negations", "not_knowing", "objects_off", "squash", "thanked_off"]
