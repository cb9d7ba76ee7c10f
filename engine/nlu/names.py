"""Korean and English phrasing -> whether a message's words are a clause of their own, and
whether a short answer can be a name at all.

A value said inside a clause of another verb ("엄마한테 물어보고 올게") is not the user's
answer; neither is a word that names nobody ("몰라요", "걔한테"), a name said away ("민수
말고"), the one money comes from ("이모한테서") or a one-word sentence ("괜찮아요").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from engine.nlu.decision_words import MISSPOKE
from engine.nlu.persons import called, someones, theirs
from engine.nlu.phrases import is_question, is_social
from engine.nlu.text import closed_by
from engine.precompiled import re_compile

_RIEUL = "".join(chr(c) for c in range(0xAC00, 0xD7A4) if (c - 0xAC00) % 28 == 8)  # 갈, 볼, 할…
OTHER_PREDICATE = re_compile(r"(?<=[가-힣])(?<!까)(?:고|(?<![영국단언본])어|아|다|네|지|래|대|는데|"
                             rf"던데|았|었|겠)(?:요)?$|[{_RIEUL}]게(?:요)?$")
"""A word ending a clause of its own ("물어보고", "했대", "해볼게"; not "듣게", nor the
particle 까지 of a bound: "15만원까지요", nor a language or a word: "영어", "한국어", "단어"):
another topic."""
NOBODY = re_compile(r"(?:몰라|모르겠어|모름|아무|아무나|아무도|비밀|그냥|헐|대충|돈|나중에|글쎄|"
                    r"그 ?사람|그분|저분|이분|걔|쟤|얘|나|저|누구|모두|다들|전부|각각|사람|명|분|"
                    r"잠시만|잠깐만|잠시|잠깐|ㅎㅎ+|ㅋㅋ+|ㅠㅠ+|ㅜㅜ+|"
                    r"someone|anyone|idk|whoever|nobody|me|myself|everyone|everybody|all|"
                    r"my|him|her|them|us|you|it|this|that|the|a|an|lol|lmao|haha+|hmm+|ok|okay|"
                    r"yesterday|today|tomorrow|tonight|account|bank|card|kakao|toss|venmo|"
                    r"paypal|zelle|wise|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekend|"
                    r"week|month|year|morning|afternoon|evening|noon|midnight|later|now|next|"
                    r"instead|keep|wait|think|check|ask|see|know|be|get|go|use|change|cancel|"
                    r"hold|buy|save|spend|talk|call|confirm|leave|stay|stop|look|find|try|"
                    r"do|make|give|help|start|finish|split|share|borrow|lend|return|(?:엊|그)?그저)"
                    r"(?:한테|에게|께)?(?:나|도)?(?:요)?[.!~ ]*", re.IGNORECASE)
"""Words that name nobody: not knowing, anyone, a pronoun, "돈", a day or a time ("change
the date to friday"; "그저" of 그저께, the day before yesterday, before its 께), a verb said
after "to" ("I'd prefer to keep it") — never a recipient."""
_NOT_HIM = re_compile(r"(?:말고|빼고|아니야|아니에요|아니고)[.!~ ]*$")  # "민수 말고": who, then?
_FROM = re_compile(r"[가-힣](?:한테서|에게서|께서)")  # where money comes from, not where it goes
_PREDICATE = re_compile(r"(?:아요|어요|해요|세요|니다|줘|줘요|래요|게요|까요|네요|지요)$")
"""A one-word sentence ("괜찮아요", "해주세요") is no name."""
_MEANS = re_compile(r"은행|뱅크|농협|신협|수협|우체국|새마을금고|카뱅|페이|토스|카카오|계좌|통장|"
                    r"(?:이체|송금|모바일|앱|카드|현금|번호)(?:으로|로)|\b(?:paypal|venmo|wise|zelle)"
                    r"|\bmy (?:\w+ )?(?:bank|account|card)\b", re.IGNORECASE)
"""A way or a place to send to ("카카오페이로", "신한은행으로", "내 다른 계좌로"): nobody."""
_DESCRIBED = re_compile(r"(?:^|\s)(?:아까|저번에?|지난번에?|그때|예전에?|방금|있잖아|제일|가장|"
                        r"그|저|이|이런|그런|저런|다른|보낸|받은|친한|아는|말한|했던|만난|빌려준|"
                        r"빌린|사는|살던|일하는|일했던|다니는|다녔던|있는|있던|계신|계시는|하시는|"
                        r"가르치는)(?=\s)")
"""A person described, not named ("아까 걔", "저번에 보낸 사람", "제일 친한 친구", "옆집 사는
할머니", "회사에서 일하는 김대리")."""
_SAYING_IF = r"(?<!요약하)(?<!정리하)(?<!말하)(?<!말하자)"
"""What makes a Korean "-면" only a way of saying ("요약하면", "간단히 말하면"): no condition."""
CONDITION = re_compile(r"(?<=[가-힣])(?<!그러)(?<!그렇다)(?<!려)" + _SAYING_IF +
                       r"면\s(?!\s*(?:돼|되|될|됩|된다|충분|안\s?(?:돼|되|됩)))|\bif\b",
                       re.IGNORECASE)
"""A condition ("무료면 담아주세요", "if it's free") is no answer; a purpose ("지출 관리하려면
체크카드로"), "-면 돼" (that will do: "반만 보내면 돼") and "그렇다면" (in that case) are none."""

_AND = re_compile(r"[가-힣A-Za-z0-9](?:이랑|랑|하고)\s|\band\b|&")
"""Two of them ("엄마랑 아빠", "P-101이랑 P-102"): no one name."""
_COUNT = re_compile(r"(?:^|\s)(?:[0-9]+|한|두|세|네|다섯|여섯|일곱|여덟|아홉|열)\s*"
                    r"(?:명|분|사람|people)|(?:^|\s)(?:둘|셋|넷)(?:$|\s|이)")
"""A count of people ("3명"): nobody's name."""
_NUMBER = re_compile(r"[0-9][0-9\s\-+().]{5,}$")
"""A phone or account number: no name where "~한테" looks for one ("010-1234-5678한테")."""
_ACCOUNT = re_compile(r"[0-9]{2,}(?:[-.][0-9]{2,}){1,3}|[0-9]{7,}")
"""An account or phone number said with a name ("국민 123-456-789012"): whose?"""


_THEIR_RELATION = re_compile(
    r"\b[a-z]+'s\s+(?:boy\s?friend|girl\s?friend|husband|wife|partner|friend|son|daughter|"
    r"mom|mother|dad|father|brother|sister|boss|kid|child|roommate)\b", re.IGNORECASE)
"""Someone's relation in English ("my sister's boyfriend"): not a name."""
_CAN_I = re_compile(r"^\s*(?:(?:can|could|may)\s+i|is\s+it\s+possible|am\s+i\s+able)\b.*"
                    r"\b(?:in one go|at once|at a time|per day|a day|daily|limit|maximum|max)\b"
                    r".*\?\s*$", re.IGNORECASE)


def asks_if_possible(text: str) -> bool:
    """Whether ``text`` asks whether something can be done at all ("can I send 5 million
    won in one go?"): a question about the service's limits, not a request to act on ("can I
    get a big pizza?" is one).

    >>> [asks_if_possible(t) for t in ("can I send 5 million won in one go?",
    ...  "Can you send 20k to my sister?", "Can I get a big pizza, no extra cheese?")]
    [True, False, False]
    """
    return bool(_CAN_I.match(text))




_WITH = re_compile(r"[가-힣]{1,4}?(?:이랑|랑|하고|[와과])|[A-Za-z]+\s+(?:and|&)", re.IGNORECASE)
_NOT_WITH = re_compile(r".*(?:[0-9원만천]|전화|연락|확인|정리|계산|생각|준비|결제|입금|"
                       r"송금|이체|취소|얘기|말|인사|부탁|약속|통화|상의|의논)"
                       r"(?:이랑|랑|하고|[와과])")


def joined(before: str) -> bool:
    """Whether ``before``, the word said right before a name, joins another person to it
    ("형이랑 누나한테", "엄마하고 이모한테", "동생과 엄마에게"): two people, no one name. Not
    an amount ("만원이랑 아빠한테") nor a thing done ("전화하고 엄마한테").

    >>> [joined(w) for w in ("형이랑", "엄마하고", "동생과", "만원이랑", "전화하고", "우리")]
    [True, True, True, False, False, False]
    """
    return bool(_WITH.fullmatch(before)) and not _NOT_WITH.fullmatch(before)


def nobody(value: str) -> bool:
    """Whether a value found where a name goes ("~한테") names nobody: "걔", "아무", a count
    or a number ("3명한테", "010-1234-5678로").

    >>> [nobody(v) for v in ("걔", "3명", "민수")]
    [True, True, False]
    """
    return bool(NOBODY.fullmatch(value) or _NUMBER.match(value) or _COUNT.match(value))


_PROMISED = re_compile(r"[가-힣]*(?:할|줄|릴|낼|볼|갈|올|될|칠|킬|길|쏠|을|를|일|주랑|랑|당|응)")
_PROMISED_AFTER = re_compile(r"\s?께(?:요)?(?![가-힣])")


def promised(value: str, after: str) -> bool:
    """Whether a name found before 께 is a verb's promise spelt with 께 ("할께요", "보낼께",
    "드릴께요") or the 께 of 니께 as the south-west says it ("보내주랑께", "됐당께"), not
    someone honoured ("할머니께")."""
    return bool(_PROMISED.fullmatch(value) and _PROMISED_AFTER.match(after))


_L_FINAL = closed_by(8)
"""Syllables closed by ㄹ: before 라고 they make it a purpose ("나눠줄라고"), not a quote."""
_REPORTED = re_compile(r"(?:달래|달랬어|달라고|준대|줬대|한대|했대|낸대|냈대|겠대|간대|온대|본대|"
                       r"된대|"
                       rf"(?<![{_L_FINAL}])라고|(?<!그)래서|대서|"  # 그래서 is "so"
                       r"달라(?:시네|시는데|는데|던데|네|셔서|셔)|"
                       r"(?<=[하내주사받쓰두])(?:래|랬어|랬는데|랬잖아)|"
                       r"(?<=[가-힣])라(?:던데|더라|던|셨어|셨는데|시네|시더라|시던데|잖아|잖아서)|"
                       r"(?<=[하내주사])라네|"
                       r"(?:냈|쳤|(?<!말)했|줬|받았|됐|셨|드렸)(?:었)?(?:어|음|거든|는데|던데|지|다|네))"
                       r"(?:요)?(?!\S)|(?<=[가-힣])[다대](?:더라고|더라|던데|더니|네)(?:요)?[.,!~…]*(?!\S)"
                       r"|\b(?:said|says|told|asked)\b|\b(?:wants|wanted)\s+me\s+to\b"
                       r"|\blast time (?:i|we)\b"
                       r"|\b(?:i|we|he|she|they|you)\s+(?:already\s+|just\s+)?"
                       r"(?:sent|transferred|paid|gave|wired)\b|\balready\s+(?:sent|paid)\b",
                       re.IGNORECASE)

_POLITE_IF = (r"(?!\s+(?:(?:that|it|this)\s+helps|(?:needed|necessary|required|need\s+be)\b"
              r"|you\s+need\s+it|you\s+(?:would|will|please)\b|you\s+(?:don'?t|do\s+not)\s+mind"
              r"|(?:it|that)\s*(?:'?s|\s+is)?\s*(?:not|n'?t|isn'?t)\s+too\s+much"
              r"|(?:it|that)\s*(?:'?s|\s+is)\s+(?:quite\s+)?(?:all\s*right|alright|ok|okay|fine"
              r"|cool|(?:at\s+all\s+|even\s+)?possible|(?:not|no)\s+(?:a\s+)?(?:problem|trouble"
              r"|bother))\b|at\s+all\s+possible|(?:you|u)\s+(?:have|got)\s+(?:it|one|them|any)\b"
              r"|(?:it|that)\s+(?:works|suits)\b"
              r"|[iI]\s+(?:remember|recall)(?:\s+(?:it|that))?(?:\s+(?:right|rightly|correctly))?"
              r"\b|[mM]y\s+memory\s+serves\b))")
"""What makes an "if" before it only polite or a memory's hedge ("u123, if that helps", "if
needed", "if you would", "if it isn't too much bother", "if that's quite all right", "if
that's possible", "if it's no trouble", "if you have one", "0912 if I remember right")."""
_RATHER_THAN = re_compile(r"(\brather\b[^.?!]{0,40}?)\bthan\b", re.IGNORECASE)
"""A preference ("I'd rather have an exchange than money back"): no comparison to hedge."""
_HELPFUL_IF = r"(?<!필요하)(?<!필요하시)(?<!도움되)(?<!도움이 되)" + _SAYING_IF
"""What makes a Korean "-면" after it only polite ("필요하시면", "도움이 되면")."""
_HEDGED = re_compile(r"(?<=[가-힣])(?<!그러)(?<!그렇다)(?<!이렇다)" + _HELPFUL_IF +
                     r"면\s(?!돼|되|될|충분|괜찮|안\s?(?:돼|되|됩))|\bif\b"
                     + _POLITE_IF + r"|보다|는 대로|[\"“”‘]"
                     r"|(?<!\w)'|'(?!\w)|\bthan\b|(?<=[가-힣0-9])(?:이나|거나|또는|아니면)\s"
                     r"|\b(?:or|either)\b(?![,.]?\s+(?:actually|rather|wait|sorry|i\s+mean)\b)")
"""A value in a condition, a comparison, a choice or a quote is none ("X면 돼요" is no condition;
"X or actually Y" corrects X)."""
_UNDECIDED = re_compile(r"\b(?:maybe|perhaps|should i|thinking (?:about|of)|not sure|idk|"
                        r"dunno|i don'?t know (?:what|which|how much|if))\b"
                        r"|(?:^|\s)아마(?:도)?\s|(?:일|할|될|줄|낼)걸(?:요)?(?!\S)"
                        r"|(?:야|나) 하나|까 말까|할지 말지|볼까 (?:해|싶)"
                        r"|(?:(?<=[가-힣])(?:낼|줄|칠|갈)|야 (?:할|될)) ?(?:것|거) "
                        r"같(?:은데|아|네|기도)"
                        r"|(?<=[가-힣])까 (?:생각|고민|싶)|(?:생각|고민) ?중|아닌가|려나\b"
                        r"|(?<=[가-힣])지 ?모르겠|고민(?:돼|되네|이에요|이야)|망설여"
                        r"|(?<=[가-힣])까\??\s+(?:\S+\s+){0,2}?\S*(?<=[가-힣])까(?:요)?[?.!~]*$",
                        re.IGNORECASE)

_CONDITIONAL = re_compile(
    r"(?<=[가-힣])(?<!가능하)(?<!괜찮으)(?<!괜찮다)(?<!좋으)(?<!좋다)(?<!된다)(?<!원하)"
    r"(?<!라)(?<!냉)(?<!쫄)(?<!화)(?<!측)(?<!정)(?<!표)(?<!그러)(?<!그렇다)(?<!이렇다)"
    + _HELPFUL_IF +
    r"면\s(?!돼|되|될|충분|괜찮|안\s?(?:돼|되|됩))"
    r"|(?<!wondering )(?<!wonder )(?<!see )(?<!know )(?<!ask )(?<!asking )(?<!check )"
    r"\b(?:only\s+)?if\b(?!\s+(?:possible|you\s+(?:can|could|don'?t\s+mind|want)|"
    r"that'?s\s+(?:ok|okay|alright|fine)|it'?s\s+(?:ok|okay|not\s+too\s+much)))" + _POLITE_IF +
    r"|(?<=[가-힣])(?:는|은) ?대로\s|(?<=[가-힣])거든\s+(?=\S)"
    r"|\bunless\b|(?<!just )\bin case\b(?!\s+(?:you|u)\s+need)|\bas soon as\b"
    r"|\bonce (?:i|my|the|it|he|she|they|we)\b",
    re.IGNORECASE)


def conditional(text: str) -> bool:
    """Whether ``text`` asks for it only on a condition not met yet ("월급 들어오면 보내줘",
    "if I have enough, send dad 30k", "once my salary is in"): no request to act on now. A
    polite "if" is none ("가능하면 오늘 보내줘", "if possible", "if you can", "I was wondering
    if I could…"), nor "그렇다면" (in that case), nor "X면 돼" (enough), nor a noun ending in
    면 ("라면 값"), nor a
    question what would happen ("14만원으로 내리면 마진 남아요?": a what-if asked now).

    >>> [conditional(t) for t in ("잔액 충분하면 엄마한테 보내줘", "if I have enough, pay Tom",
    ...  "가능하면 오늘 보내줘", "send it if you can", "3만원이면 돼요", "라면 값 보내줘",
    ...  "환불해 주셨으면 해요")]
    [True, True, False, False, False, False, False]
    """
    return _CONDITIONAL.search(_WISH.sub(" ", text)) is not None and not is_question(text)


_WISH = re_compile(r"[았었였했셨됐줬]으면\s*(?:해요|합니다|하는데|해서요|좋겠|싶|하고)")
"""A wish, the polite way to ask ("환불해주셨으면 해요", "오늘 받았으면 좋겠어요"): no condition."""


def undecided(text: str) -> bool:
    """Whether ``text`` weighs doing it rather than asks for it ("maybe I should send dad
    30k", "민수한테 돈 보내야 하나", "보낼까 말까", "보내야 할 것 같은데", "보낼까 생각 중이야",
    "3만원... 아닌가", "보내는 게 나을지 모르겠어", "고민돼요", "3만원 할까 4만원 할까"): its
    values are no request yet.

    >>> undecided("I'm thinking about sending Jisu 20k"), undecided("Jisu한테 2만원 보내줘")
    (True, False)
    """
    return _UNDECIDED.search(text) is not None


def hedged(text: str) -> bool:
    """Whether ``text`` holds its values at a distance: a condition, a comparison, a quote,
    someone else's words (``reported``) or someone else's details.

    >>> [hedged(t) for t in ("월급 들어오면 30만원", "6만 원이면 돼요", "5만원 보내줘")]
    [True, False, False]
    >>> [hedged(t) for t in ("for my mom, her id is u81", "my son's pin is 1010", "u81")]
    [True, True, False]
    >>> hedged("my dad's paying, cash")  # "'s" is "is" here
    False
    """
    return bool(_HEDGED.search(_RATHER_THAN.sub(r"\1", text)) or theirs(text)) or \
        reported(text) or \
        undecided(text)


def reported(text: str) -> bool:
    """Whether ``text`` tells what someone else said or what was already sent ("누나가 5만원
    보내달래", "엄마가 나한테 보내준대", "저번에 3만원 보냈거든", "dad said to send 20k"): its
    values are nobody's request now.

    >>> [reported(t) for t in ("누나가 보내달래", "지난번에 보냈거든", "보내줘", "보낼래")]
    [True, True, False, False]
    >>> [reported(t) for t in ("엄마가 보내달라시네", "어제 이체했음", "she wants me to")]
    [True, True, True]
    >>> [reported(t) for t in ("형이 보내래", "아빠가 취소하라던데", "그래요", "보낼래")]
    [True, True, False, False]
    >>> [reported(t) for t in ("다들 5만원 했다더라고.", "3만원 냈대요", "작년엔 드렸거든요")]
    [True, True, True]
    >>> [reported(t) for t in ("아직 안 받았는데 환불해 주세요", "못받았는데요")]  # not done
    [False, False]
    >>> reported("20개 담아줘요 나눠줄라고"), reported("보내라고 했잖아")  # a purpose, a quote
    (False, True)
    >>> reported("책 사라고 조카한테 5만원 보내줘"), reported("엄마가 보내라고")
    (False, True)
    """
    for found in _REPORTED.finditer(text):
        start = text.rfind(" ", 0, found.start()) + 1
        before = text[:start].split()[-1:]
        if found.group().startswith("라고") and _purpose(text[found.end():]) and not \
                any(map(_SUBJECT_OF.fullmatch, text[:start].split()[-3:])):
            continue  # "이사 비용에 보태라고 아들에게 오십만 원을 보내 주십시오": what for
            # ("아빠가 보내라고, 3만원": his words)
        if not (text[start:].startswith(_NOT_DONE) or before in (["안"], ["못"])):
            return True
    return False


def _purpose(after: str) -> bool:
    """Whether what follows a "-라고" goes on with the request, so the "-라고" says what for
    ("보태라고 아들에게 보내 주십시오"), not whose words ("보내라고 했잖아", "…라고요")."""
    words = after.lstrip(" ,").split()
    return bool(words) and after[:1] in (" ", ",") and _SAYING.match(words[0]) is None


_SUBJECT_OF = re_compile(r"[가-힣]+(?:가|이|께서)")
"""Someone before a "-라고", as its subject: their words ("아빠가 보내라고")."""
_SAYING = re_compile(r"(?:문자|카톡|톡|메시지|연락|전화|했|해|그러|그랬|그런|말|얘기|이야기|전해|"
                     r"시켰|시키|부탁|들었|듣|써|적)"
                     r"|(?:하|한|할|합)[가-힣]*(?:다|어|아|요|죠|네|데|고|음|서|니|지|래|라|야|임)$")
"""(하/한/할/합 only as a verb: "하던데", not "할머니께".)"""
"""A verb of saying or hearing after a "-라고" ("보내라고 했잖아", "…라고 들었어요")."""


_NOT_DONE = ("안", "못")
"""What negates a verb of something already done ("안 받았는데": not received)."""


_COPULA = re_compile(r"(?<=[가-힣])(?:이에요|예요|입니다|이요|요|이야|야)$")
_POLITE_COPULA = re_compile(r"(?<=[가-힣])(?:이에요|예요|입니다|이요|요)$")
_MINE = re_compile(r"^(?:우리|울|저희|제|내)\s+(?=\S)")  # "우리 팀장님", "울 엄마"
_SSI = re_compile(r"\s+씨(?:요|예요|이요|입니다)?$")
_SAID_AROUND = re_compile(r"^(?:to\s+)?(?:my|our)\s+(?=\S)|^to\s+(?=\S)"
                          r"|,?\s+(?:please|pls|plz|thanks|thank you|thx)$|(?<=\w)[^\w\s?？]+$",
                          re.IGNORECASE)


_ASKING_SHAPE = re_compile(r"^(?P<name>[가-힣]{1,2}[나니])요?[.!~]*$")
_VERB_STEMS = frozenset({
    "되", "돼", "있", "없", "하", "해", "맞", "괜찮", "가", "오", "보내", "받", "좋", "싫", "많",
    "적", "걸리", "나오", "쓰", "모르", "드", "끝", "계시", "주", "사", "크", "작", "알", "살",
    "먹", "보", "비싸", "싸", "멀", "바쁘", "아프", "춥", "덥", "자", "타", "내",
})
"""Stems that ask with 나요/니 ("되나요", "있니"): no name."""


def name_shaped_like_a_question(answer: str) -> bool:
    """A one-word answer that ends as questions do but is a name: "미나요", "유나요", "지니"
    (not "되나요", "있니", "했나요").

    >>> [name_shaped_like_a_question(a) for a in ("미나요", "지니", "되나요", "보냈니", "미나요?")]
    [True, True, False, False, False]
    """
    found = _ASKING_SHAPE.match(answer.strip())
    if found is None:
        return False
    stem = found.group("name")[:-1]
    past = (ord(stem[-1]) - 0xAC00) % 28 == 20  # a final ㅆ: 했나요, 보냈니
    return stem not in _VERB_STEMS and not past


def plain_name(answer: str, single: bool) -> str:
    """A short answer as the name it says: "민지예요" is 민지, "박지영 씨요" 박지영."""
    if single:
        said = _SAID_AROUND.sub("", answer) or answer  # "지수요.", "엄마❤️": the marks first
        return called(_COPULA.sub("", said) or said)
    named = _SAID_AROUND.sub("", _MINE.sub("", _SSI.sub("", answer))) or answer
    return called(_POLITE_COPULA.sub("", named) or named)  # "김 대리요": 김 대리


def no_name(answer: str, single: bool) -> bool:
    """Whether a short ``answer`` (``single``: one word) cannot be a name: a condition, a
    sentence, a word that names nobody, a name said away, where money comes from, a clause
    of its own ("삼촌에게서 연락 왔어"), a way to send, a person described, a number, only
    thanks or a greeting ("고마워", "thanks").

    >>> [no_name(a, " " not in a) for a in ("민수 말고", "이모한테서", "괜찮아요", "박준형")]
    [True, True, True, False]
    >>> [no_name(a, " " not in a) for a in ("토스로 보내줘", "그때 그 사람", "5명", "김 대리")]
    [True, True, True, False]
    """
    return _a_sentence(answer, single) or _nobody_said(answer, single)


_NAME_IS = re_compile(r"(?<=[가-힣])입니다$")


def _a_sentence(answer: str, single: bool) -> bool:
    """A condition, a predicate ("민지입니다" is a name and its copula), a name said away,
    where money comes from, thanks or a greeting."""
    later = answer.split()[1:]
    return bool(CONDITION.search(answer) or single and _PREDICATE.search(_NAME_IS.sub("", answer))
                or any(OTHER_PREDICATE.search(w) or _PREDICATE.search(w) for w in later)
                or _NOT_HIM.search(answer) or _FROM.search(answer) or is_social(answer))


def _nobody_said(answer: str, single: bool) -> bool:
    """A word that names nobody ("저입니다" too), a way to send, a person described, a
    count, two people, someone's relation."""
    words = answer.split()
    bare = _POLITE_COPULA.sub("", answer) if single else answer
    return bool(NOBODY.fullmatch(answer) or NOBODY.fullmatch(bare)
                or any(NOBODY.fullmatch(w) for w in words[1:])
                or _MEANS.search(answer) or _DESCRIBED.search(answer) or _COUNT.search(answer)
                or _AND.search(answer) or _THEIR_RELATION.search(answer)
                or any(someones(a, b) for a, b in itertools.pairwise(words)))


_TOLD = re_compile(r"^(?:(?:내|제|우리|저희|my|our|the)\s+)?(?P<topic>[^\s:]+(?:\s[^\s:]+)?)"
                   r"(?:(?<=[가-힣])(?:은|는)\s+|\s+is\s+|\s*:\s*)(?P<said>\S.*)$", re.IGNORECASE)
_THINGS = frozenset({"번호", "전화번호", "핸드폰 번호", "휴대폰 번호", "폰번호", "연락처", "계좌",
                     "계좌번호", "통장", "이름", "성함", "아이디", "주소", "이메일", "메일",
                     "number", "phone number", "phone", "name", "account", "account number",
                     "email"})


def told(answer: str, own: Iterable[str]) -> str | None:
    """What a short answer put as "X는 Y" ("X is Y") gives: Y when X is one of the slot's own
    names ("받는 사람은 민수야": 민수야), None when X is something else one has — a number,
    one's own name, an account ("내 번호는 010-…야", "제 이름은 민수예요": no recipient); the
    answer as it is otherwise ("지은 언니요").

    >>> told("받는 사람은 민수야", ["받는 사람"]), told("my name is Tom", ["recipient"])
    ('민수야', None)
    >>> told("지은 언니요", ["받는 사람"]), told("recipient: Tom", ["recipient"])
    ('지은 언니요', 'Tom')
    """
    match = _TOLD.match(answer.strip())
    if match is None:
        return answer
    topic = match["topic"].casefold()
    if topic in {name.casefold() for name in own}:
        return match["said"]
    return None if topic in _THINGS else answer


def a_number(answer: str) -> bool:
    """Whether a short answer is or holds a phone or account number ("010-2345-6789", "국민
    123-456-789012"): no name, for a slot whose values declare no ``pattern`` of their own.

    >>> a_number("010-2345-6789"), a_number("국민 123-456-789012"), a_number("Tom")
    (True, True, False)
    """
    return bool(_NUMBER.match(answer.strip()) or _ACCOUNT.search(answer))


__all__ = ["CONDITION", "MISSPOKE", "NOBODY", "OTHER_PREDICATE", "a_number", "asks_if_possible",
           "conditional", "hedged", "joined", "name_shaped_like_a_question", "no_name", "nobody",
           "plain_name", "promised", "reported", "told", "undecided"]
