"""What decision a whole message is, with what follows it: a correction ("3만원으로 바꿔줘 아
잠깐만 그냥 취소할래" cancels) or only why ("forget it, I don't need a new card" is a cancel,
"아뇨 좀 더 써볼게요" a no — the why adds no value, asks nothing, turns nothing down)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.precompiled import re_compile

from .acknowledged import decided_in_sentences
from .money import find_money
from .persons import full_name, relation
from .phrases import CONTRAST, HOLD, is_question, not_knowing
from .retractions import after_retraction, retracted_at
from .segments import all_off, of_all
from .words import Answer, YesNoWords, decision_text, yes_no


def answer_of(text: str, words: YesNoWords) -> Answer | None:
    """The message's yes or no, with its last self-correction's say: a cancel said after
    taking back a change cancels ("3만원으로 바꿔줘 아 잠깐만 그냥 취소할래"); a cancel taken
    back by a yes is neither ("취소... 아니다 그냥 보내": the model, or the question again), as
    is a yes taken back by "never mind" (of the yes, or of the taking back?), while a yes taken
    back by a cancel word cancels ("네 아 아니다 취소해 주세요"); a yes after a change taken
    back is left to them too. A no
    followed only by the speaker's own plan is a no ("아뇨 좀 더 써볼게요")."""
    rest = stopped_doing(text, words)
    if rest is not None:  # "그만 물어보고 보내": the rest says it
        return answer_of(rest, words) if rest else None
    slip = _SLIP.match(text) if "잘못" in text or "rong" in text.lower() else None
    if slip is not None:  # "ㅋㅋ 잘못 보냈어요 네 접수해주세요": the last message was the slip
        return answer_of(text[slip.end():], words) if text[slip.end():].strip() else None
    own = _AGREES_TOO.sub(" ", text)  # "네 남편도 하라네요 접수해주세요": the user's own yes
    if own != text and own.strip() and yes_no(own, words) == "confirm":
        return "confirm"
    answer, tail = yes_no(text, words), after_retraction(text)
    if answer is None and of_all(text) and yes_no(all_off(text), words) == "cancel":
        answer = "cancel"  # "나머지는 전부 그만할래": all of them cancelled (a yes said so is
        # no yes: "보내라 보내 다 보내 ㅋ")
    said = yes_no(tail, words) if tail else None
    if said == "cancel" and answer is None:  # a yes taken back ("sure, oh wait, never mind")
        said_first = yes_no(text[:retracted_at(text) or 0], words)  # is neither, unless by a
        return "cancel" if said_first != "confirm" or _CANCEL_WORD.search(tail or "") \
            else None  # cancel word ("응 아 아니다 그만할래")
    if answer is None and said is None and tail is not None and \
            yes_no(text[:retracted_at(text) or 0], words) == "cancel" and \
            decided_before_why(text, words) == "cancel":
        return "cancel"  # "cancel. sorry. I just can't do this right now": sorry, not taken back
    if answer is None and tail is None and denied_with_reason(text, words):
        return "deny"
    if answer is None and tail is None and cancelled_after_feeling(text, words):
        return "cancel"
    if answer is None and tail is None and (after := decided_after_why(text, words)):
        return after
    if answer is None and tail is None and (before := decided_before_why(text, words)):
        return before
    if answer is None and tail is None and (spread := decided_in_sentences(text, words)):
        return spread  # "네, 금액 확인했습니다. 보내 주십시오."
    return None if answer == "cancel" and said == "confirm" else answer


_CANCEL_WORD = re_compile(r"(?<!\S)(?:취소|그만|중단|중지|캔슬|cancel|stop|abort)", re.IGNORECASE)
"""A cancel said as a word of cancelling, not as "never mind" (which may take back the wait)."""


def cancelled_after_feeling(text: str, words: YesNoWords) -> bool:
    """Whether ``text`` ends in a cancel after only how the speaker feels or why it is not
    needed ("아 근데 귀찮다 그만할래요", "ugh this is taking forever, forget it", "she doesn't
    need the money anymore, cancel the transfer"): no yes, no verb of the flow, no
    question before it (the caller reads no value in it).

    >>> from engine.nlu.words import YesNoWords, default_words
    >>> sending = default_words("ko").merge(YesNoWords(act=("보내", "send")))
    >>> cancelled_after_feeling("아 근데 귀찮다 그만할래요", sending)
    True
    >>> cancelled_after_feeling("보내긴 해야 하는데 그만할래요", sending)
    False
    >>> cancelled_after_feeling("he doesn't need it anymore, cancel it", sending)
    True
    """
    said = decision_text(text)
    tokens = said.split(" ") if said is not None else []
    for k in range(1, min(_LONGEST_CANCEL, len(tokens) - 1) + 1):
        head = tokens[:-k]
        tail = " ".join(tokens[-k:])  # "아직 보내지 마" holds off: no cancel word
        if words.cancels(tail) or _CANCEL_WORD.search(tail) and yes_no(tail, words) == "cancel":
            why = len(head) <= _MOST_FELT and _felt(head) or \
                len(head) <= 2 * _MOST_FELT and _NO_NEED.search(" ".join(head)) is not None
            said_why = _NO_NEED.sub(" ", " ".join(head)).split()  # "no longer" is no "no"
            return why and HOLD.isdisjoint(head) and \
                not _LATER.intersection(tokens[-k:]) and not any(
                    words.acts(t) or yes_no(t, words) is not None or words.cancels(t)
                    for t in said_why)
    return False


_NO_NEED = re_compile(r"\b(?:anymore|no longer|(?:doesnt|dont|do not|does not) need)\b"
                      r"|필요\s?없|안\s?필요")
"""Why it is no longer wanted ("she doesn't need the money anymore", "이제 필요 없대요")."""


_SLIP = re_compile(r"^[ㅋㅎㅠㅜ\s]*(?:(?:앗|엇|헉|아차|아)\s+)?(?:(?:죄송|미안)\S*\s+)?"
                   r"잘못\s?(?:보냈|쳤|눌렀|썼|입력했)\S*[\s.,!~]+"
                   r"|^(?:(?:sorry|oops),?\s+){0,2}wrong\s+(?:chat|window|person|message)[\s.,!~]+",
                   re.IGNORECASE)
"""A slip owned before the decision ("ㅋㅋ 잘못 보냈어요 네 …", "oops wrong chat, yes go ahead"):
it was the last message; said after a yes ("넵 앗 잘못 쳤어요") it takes the yes back."""


def decided_of(text: str, values: Mapping[str, Any], words: YesNoWords) -> Answer | None:
    """The yes or the cancel said of the task's own value as its topic or owner ("지수는
    취소" at the second of two transfers, to 지수; "지수는 보내줘", "네, 엄마 돈은 보내주세요",
    "Jake's money, send it"); None for another's ("민지는 취소").

    >>> from engine.nlu.words import default_words
    >>> decided_of("ㄴㄴ 지수는 취소", {"target": "지수"}, default_words("ko"))
    'cancel'
    """
    for value in values.values():
        for said_as in _said_as(value):
            if said_as not in text:
                continue
            said = re.sub(rf"(?<!\S){re.escape(said_as)}(?:{_TOPIC}|의|'s|"
                          r"\s?(?:건은|건도|거는|것은|건|거|꺼|것))?"
                          r"(?=$|\s|[,.!~])", " ", text)
            answer = (yes_no(said, words) or decided_before_why(said, words)) \
                if said != text else None
            if answer == "cancel" or answer == "confirm":
                return answer
    return None


def _said_as(value: Any) -> tuple[str, ...]:
    """A string value as it may be said: whole, or by its last word ("이모" of 큰 이모)."""
    if not isinstance(value, str) or not value:
        return ()
    last = value.rsplit(" ", 1)[-1]
    return (value, last) if last != value and len(last) >= 2 else (value,)


_TOPIC = "은|는|한테는|에게는|께는|한텐|에겐|것은|건"


def decided_after_why(text: str, words: YesNoWords) -> Answer | None:
    """The yes or the cancel that follows only why ("할머니 생신이라서요 네 보내주세요", "바빠서요
    취소할게요"): the why a clause of cause (-라서, -니까, -거든요, 때문에; before a cancel -어서
    too) with no number, no decision word, no verb of the flow and nothing not known or put
    off in it.

    >>> from engine.nlu.words import YesNoWords, default_words
    >>> sending = default_words("ko").merge(YesNoWords(act=("보내", "send")))
    >>> decided_after_why("생신이라서요 네 보내주세요", sending)
    'confirm'
    >>> decided_after_why("잘 몰라서 네", sending), decided_after_why("보내야 해서 네", sending)
    (None, None)
    >>> decided_after_why("월급 들어와서 보내줘", sending)  # and then: no why
    >>> decided_after_why("바빠서 취소", sending)
    'cancel'
    >>> decided_after_why("계좌 번호 다시 봤어요. 보내주세요", sending)
    'confirm'
    >>> decided_after_why("네, 미리 드리는 게 예의니까 보내주세요", sending)
    'confirm'
    >>> decided_after_why("취소, 급하니까 보내주세요", sending) is None
    True
    >>> decided_after_why("그 사람이 확인했습니다. 보내 주세요.", sending) is None
    True
    """
    said = decision_text(text)
    tokens = said.split(" ") if said is not None else []
    for cut in range(1, min(len(tokens) - 1, _MOST_FELT) + 1):
        if _because(tokens[cut - 1]):
            head, answer = tokens[:cut], yes_no(" ".join(tokens[cut:]), words)
            if answer == "confirm" and _BECAUSE_AND_THEN.search(tokens[cut - 1]):
                continue  # "월급 들어와서 보내줘", "퇴근하고 나서": and then, not why
            same = int(yes_no(head[0], words) == answer)  # "네, … 예의니까 보내주세요": the
            if answer in ("confirm", "cancel") and not not_knowing(" ".join(head)) and \
                    (HOLD | _LATER).isdisjoint(head) and not any(  # same decision opens it
                        any(c.isdigit() for c in t) or words.acts(t) or words.known(t) and
                        yes_no(t, words) is not None or words.cancels(t)
                        for t in head[same:]) and not any(c.isdigit() for c in head[0]):
                return answer  # never "그 사람이 확인했습니다. 보내 주세요"
    return None


def decided_before_why(text: str, words: YesNoWords) -> Answer | None:
    """The yes or the cancel followed only by why ("네 보내주세요 생일 선물이라서요", "넵 보내
    주세요~ 생신 선물이에요", "yes send it, it's for her birthday", "취소요 돈이 없어서요",
    "forget it, not hungry anymore"): the why a clause of cause (-라서, -니까, -거든요, 때문에,
    -어서; because, since, for), a gift or a bill named with the copula, or after a cancel
    what is no longer so; with no number, no decision word, no verb of the flow, no
    contrast, no question and no one named in it (the task's own one is taken out first, by
    ``decided_of``); after a yes, no negation either. Anything else said after a decision
    ("네 ㅋㅋ 농담이에요", "네 밥은 먹었어요") is no why.

    >>> from engine.nlu.words import YesNoWords, default_words
    >>> sending = default_words("ko").merge(YesNoWords(act=("보내", "send")))
    >>> decided_before_why("네 보내주세요 이번 달 용돈이에요", sending)
    'confirm'
    >>> decided_before_why("네 보내주세요 아빠 거예요", sending)  # whose? for whom?
    >>> decided_before_why("네 ㅋㅋ 농담이에요", sending)
    >>> decided_before_why("네 보내주세요 오만원이에요", sending)
    >>> decided_before_why("don't cancel it", sending)
    """
    said = decision_text(text) or ""
    tokens = said.split(" ") if said else []
    if len(tokens) < 2 or not (_caused(tokens[-1]) or _BILL.search(tokens[-1]) or
                               _WHY_WORD_EN.search(said) or _NO_NEED.search(said) or
                               _OWN_PLAN_EN.search(said)) \
            or is_question(text):
        return None  # most messages: no why ends them
    for cut in range(max(1, len(tokens) - 2 * _MOST_FELT), len(tokens)):
        head, why = " ".join(tokens[:cut]), tokens[cut:]
        answer = yes_no(head, words)
        if answer in ("confirm", "cancel") and _only_why(why, words, answer == "cancel"):
            return answer
    return None


def _only_why(why: list[str], words: YesNoWords, cancelling: bool) -> bool:
    """Whether ``why`` (the words after a decision) is only why; after a cancel it may say
    what is not so."""
    said = " ".join(why)
    plan = cancelling and _OWN_PLAN_EN.match(said) is not None  # its verbs are the speaker's
    if (CONTRAST | HOLD | _LATER).intersection(why) - ({"now"} if plan else set()) or \
            not_knowing(said) or find_money(said) \
            or any(any(c.isdigit() for c in t) or words.cancels(t) or not plan and (
                words.acts(t) or words.known(t) and yes_no(t, words) is not None) for t in why):
        return False
    if said.isascii():
        return (_WHY_EN.match(said) is not None or cancelling and (
            _NO_NEED.search(said) or _OWN_PLAN_EN.match(said)) is not None) and \
            not (_ELSE_EN if cancelling else _NOT_EN).search(said)
    return (_caused(why[-1]) or _BILL.search(why[-1]) is not None) and \
        (cancelling or _NEGATED.search(said) is None) and not any(map(_someone, why))


def _someone(word: str) -> bool:
    """Whether ``word`` names a person ("아빠 거예요": whose, or for whom? no why)."""
    bare = _WHOSE.sub("", word)
    return relation(bare) or full_name(bare) or bare != word and len(bare) >= 2


_WHOSE = re_compile(r"(?:한테|에게|께|의|꺼|거)$")
_BILL = re_compile(r"(?:선물|용돈|생활비|축의금|부조금|조의금|월세|관리비|회비|곗돈|학원비"
                   r"|병원비|등록금|밥값|세뱃돈|경조사비|빌린\s?돈|갚는\s?돈)"
                   r"(?:이에요|예요|에요|이야|야|입니다|이거든요|거든요)$")
"""A gift or a bill said as what the money is ("생신 선물이에요", "이번 달 월세예요")."""
_NEGATED = re_compile(r"(?<!\S)(?:안|못)(?!\S)|아니|않|없|말[고아]")
"""A turn against the decision in its why ("안 급해요", "아니에요", "필요 없어요")."""
_WHY_EN = re_compile(r"^(?:because|cause|cuz|since|it'?s for|its for|for)\s+[a-z' ]+$",
                     re.IGNORECASE)
_OWN_PLAN_EN = re_compile(r"\bi\s?(?:ll|will|m going to|am going to|m gonna|am gonna)\s+"
                          r"(?:just\s+)?[a-z ]+$|\bi\s+(?:just\s+)?(?:cant|cannot)\s+"
                          r"(?:do|deal with|handle|face)\s+(?:this|it|that)\b[a-z ]*$")
"""The speaker's own plan instead, or giving up, after a cancel ("forget it, I'll just go
into the branch", "cancel. sorry. I just can't do this right now")."""
_WHY_WORD_EN = re_compile(r"\b(?:because|cause|cuz|since|for)\b", re.IGNORECASE)
_ELSE_EN = re.compile(r"\b(?:wait|but|later|if|unless|when|maybe|think|guess|joke|joking|"
                      r"kidding)\b", re.IGNORECASE)
"""Not only why: a wait, a turn, a condition, a doubt ("cancel it, but keep the drinks")."""
_NOT_EN = re.compile(rf"{_ELSE_EN.pattern}|\b(?:not|no|dont|don't|never)\b|n't\b", re.IGNORECASE)


def _caused(word: str) -> bool:
    """Whether ``word`` ends a clause of cause: -니까, -거든요, -길래, 때문에, or -서 after a
    verb's 아/어 form ("바빠서요", "급해서", "생신이라서"; not "김영서", "계좌에서").

    >>> [_caused(w) for w in ("바빠서요", "급해서", "생신이라", "김영서", "계좌에서", "때문에")]
    [True, True, True, False, False, True]
    """
    if word in _BECAUSE_WORDS or _CAUSE.search(word):
        return True
    stem = word.removesuffix("요").removesuffix("서")
    if stem == word.removesuffix("요") or len(stem) < 2 or not "가" <= stem[-1] <= "힣":
        return False
    code = ord(stem[-1]) - 0xAC00
    return code % 28 == 0 and code // 28 % 21 in _OPEN_VOWELS


def _because(word: str) -> bool:
    """Whether ``word`` ends a clause of cause or tells what the speaker has done before a
    decision ("계좌 맞는지 봤어요. 이체해 주세요")."""
    return _caused(word) or _DONE.search(word) is not None


_CAUSE = re_compile(r"[가-힣](?:니까|니까요|거든|거든요|길래|길래요)$|[가-힣]이라$")
_DONE = re_compile(r"[았었였했봤왔줬셨](?:어요|죠|지요)$|했습니다$")
"""What the speaker has done, told before the decision ("계좌 맞는지 봤어요. 이체해 주세요")."""
_BECAUSE_AND_THEN = re_compile(r"(?<!라)서요?$")
"""-서 that may join what happens first ("들어와서 보내줘": after it comes in), not why:
before a yes only -(이)라서 is why ("생신이라서요 네"); before a cancel any -서 is ("바빠서요
취소할게요")."""
_BECAUSE_WORDS = frozenset({"때문에", "때문이에요", "because", "cause", "cuz", "since"})
_OPEN_VOWELS = frozenset({0, 1, 4, 6, 9, 10, 14})
"""ㅏ ㅐ ㅓ ㅕ ㅘ ㅙ ㅝ: the vowels a verb's 아/어 form ends in (바빠, 급해, 와, 봐, 져)."""


def _felt(head: list[str]) -> bool:
    """Whether ``head`` says how the speaker feels: a Korean exclamation or plain predicate
    ending it ("귀찮다", "복잡하네"), or an English word of annoyance ("ugh", "hassle"); not a
    condition ("수수료 없으면") nor only who ("저")."""
    last = head[-1] if head else ""
    return bool(_FEELING.search(last) or _ANNOYED.intersection(head)) and \
        not any(t.endswith("면") or t in ("if", "unless") for t in head)


_FEELING = re_compile(r"[가-힣](?:다|네|네요|군|군요|잖아|잖아요|죽겠네|죽겠다)$")
_ANNOYED = frozenset({"ugh", "meh", "argh", "hassle", "forever", "annoying", "complicated",
                      "tired", "bored", "whatever", "ㅡㅡ", "짜증", "짜증나", "짜증나네", "아이고",
                      "아이구", "에휴", "휴", "몰라", "아몰라", "몰라요", "모르겠어", "모르겠어요",
                      "에라", "에라이", "idk", "dunno"})
"""Annoyance and a shrug ("아 몰라 취소", "idk just cancel it"): before a cancel, why."""
_LATER = frozenset({"나중에", "다음에", "later", "another"})
"""A cancel word that puts off ("결정은 나중에 할게요"): waiting, never after a feeling."""
_LONGEST_CANCEL = 3
_MOST_FELT = 6
"""Words: a feeling said before a cancel is short ("아 근데 귀찮다")."""


def only_reason(text: str, rest: str, words: YesNoWords) -> bool:
    """Whether ``rest``, what follows the leading cancel of ``text`` (``cancel_first``), only
    says why ("forget it, I don't need a new card", "됐어요, 그냥 다음에 할게요"): ``text`` no
    question, ``rest`` no contrast ("말고", "but") and no yes; the caller checks it holds no
    value and asks for no other flow.

    >>> from engine.nlu.words import default_words
    >>> en = default_words("en")
    >>> only_reason("never mind, I'll keep the old one", "ill keep the old one", en)
    True
    >>> only_reason("forget it, what's the fee?", "whats the fee", en)
    False
    >>> only_reason("cancel, but send it", "but send it", en)
    False
    """
    return decision_text(text) is not None and not CONTRAST.intersection(rest.split(" ")) \
        and yes_no(rest, words) != "confirm"


_OWN_PLAN = re_compile(r"(?:[가-힣](?:게요?|겠어요?|겠습니다|래요?)|(?:^|\s)(?:괜찮아요?|괜찮습니다"
                       r"|됐어요?|충분해요?|충분합니다)|[가-힣](?:이)?면\s?(?:돼요?|됩니다|충분해요?)"
                       r"|^(?:ill|i will|i would|id|i d|im|i am|i m|ive|i have)\b.*"
                       r"|^(?:(?:i|we)\s)?(?:found|got)\s(?:it|them)\b.*"
                       r"|^(?:(?:i|we)\s)?(?:dont|do not)\s+need\s(?:it|one|them|a new one)\b.*"
                       r"|^(?:just\s)?(?:keep|leave)\s(?:it|that|them|the\s\w+)"
                       r"(?:\s(?:as\sis|as\sit\swas|the\ssame|like\sthat|alone|then))?(?:\splease)?"
                       r"|^(?:(?:그냥\s)?(?:그대로|원래대로)\s?)?(?:둬|둬요|두세요|놔둬|놔두세요|할게요"
                       r"|해\s?주세요)|^(?:그냥\s)?(?:그대로|원래대로))$")
"""What the speaker will do or is ("좀 더 써볼게요", "생각해보니 괜찮아요", "I'll keep it",
"I'm good", "한번이면 돼요", "found it", "don't need one"), or keeping what is ("no, keep it",
"아니요 그대로 두세요"): a plan of one's own, no request."""
_LONGEST_NO = 3


def denied_with_reason(text: str, words: YesNoWords) -> bool:
    """Whether ``text`` is a no followed only by what the speaker will do instead or is ("아뇨
    좀 더 써볼게요", "no, I'll keep it", "nah I'm good"): not a question, no yes, no contrast,
    no wait ("no, I'll wait until friday" holds off), no verb of the flow ("아니요 그냥
    보낼게요" says both); the caller reads no value in it ("아뇨 아빠한테 보낼게요" is a
    change).

    >>> from engine.nlu.words import default_words
    >>> ko, en = default_words("ko"), default_words("en")
    >>> denied_with_reason("아뇨 좀 더 써볼게요", ko), denied_with_reason("no, i'll keep it", en)
    (True, True)
    >>> denied_with_reason("아뇨 뭐가 다른데요?", ko), denied_with_reason("no wait till 9", en)
    (False, False)
    >>> denied_with_reason("no but i'll pay by card", en), denied_with_reason("아뇨", ko)
    (False, False)
    >>> denied_with_reason("no, leave it as is", en), denied_with_reason("아니요 그대로 두세요", ko)
    (True, True)
    """
    said = decision_text(text)
    tokens = said.split() if said is not None else []
    if len(tokens) < 2 or yes_no(tokens[0], words) != "deny":
        return False  # most messages: no no opens them
    cut = next((n for n in range(min(len(tokens) - 1, _LONGEST_NO), 0, -1)
                if yes_no(" ".join(tokens[:n]), words) == "deny"), 0)
    rest = tokens[cut:]
    if rest[-2:] == ["for", "now"] and _WAITING.isdisjoint(rest):  # "nah, i'll keep the old
        rest = rest[:-2]  # one for now": no, as it is ("no, i'll hold off for now" waits)
    return bool(cut) and bool(rest) and not (CONTRAST | HOLD).intersection(rest) and \
        not any(map(words.acts, rest)) and yes_no(" ".join(rest), words) != "confirm" and \
        _OWN_PLAN.search(" ".join(rest)) is not None  # "아니요 그냥 보낼게요": which one?


_WAITING = frozenset({"hold", "wait", "think", "decide", "pause", "check", "sleep"})
"""Words of putting the decision off: with them "for now" is a wait, not a no."""
_AGREES_TOO = re_compile(
    r"(?<!\S)\S+도\s+(?:\S*(?:하|보내)(?:라네|래|라고\s?하네)요?|괜찮대요?|괜찮다네요?|좋대요?|"
    r"좋다네요?|된대요?|된다네요?|동의했어요?|찬성이래요?)[,.!~]*(?!\S)"
    r"|(?i:\bmy\s+\w+\s+(?:agrees|says\s+(?:yes|ok|okay|go\s+ahead)|is\s+(?:fine|ok|okay)"
    r"\s+with\s+it)\s+(?:too|as\s+well)\b[,.!]*)")
"""Someone else agreeing too ("남편도 하라네요", "my wife agrees too"): said with the user's own
yes, it takes nothing from it; alone it is no yes."""
_STOP = frozenset({"그만", "stop", "quit"})
_QUITTING = ("하", "해", "할", "합", "했", "둬", "두", "둘", "둡", "뒀")
"""그만 before these is quitting itself ("그만해", "그만 둘래"), not stopping something else."""
_THEN = frozenset({"and", "then", "just", "그리고", "그냥"})


def stopped_doing(text: str, words: YesNoWords) -> str | None:
    """What follows "stop" said of something other than the flow's doing ("그만 물어보고
    보내" -> "보내", "stop asking and send it" -> "send it", "stop asking me" -> ""), or None
    when the message does not open so ("그만", "그만해", "stop sending it" cancel).

    >>> from engine.nlu.words import YesNoWords, default_words
    >>> sending = default_words("ko").merge(YesNoWords(act=("보내", "send")))
    >>> stopped_doing("그만 좀 물어보고 보내", sending), stopped_doing("stop asking me", sending)
    ('보내', '')
    >>> stopped_doing("그만해", sending), stopped_doing("stop sending it", sending)
    (None, None)
    """
    said = decision_text(text)
    tokens = said.split(" ") if said is not None else []
    if len(tokens) < 2 or tokens[0] not in _STOP:
        return None
    verb = 2 if tokens[1] in ("좀", "with") and len(tokens) > 2 else 1
    doing = tokens[verb]
    if words.acts(doing) or yes_no(doing, words) is not None or \
            not (doing.endswith("ing") if doing.isascii() else _KO_VERB.search(doing)) or \
            doing.startswith(_QUITTING):
        return None
    end = next((i for i in range(verb, len(tokens))
                if tokens[i].endswith(("고", "구")) or tokens[i] in _THEN), len(tokens))
    rest = tokens[end + 1:]
    while rest and rest[0] in _THEN:
        rest = rest[1:]
    return " ".join(rest)


_KO_VERB = re_compile(r"[가-힣](?:고|구|봐|봐요|어|어요|아|아요|라|해|해요|세요|게|지)$")
"""A Korean verb's ending, as after 그만 ("물어봐", "묻고", "귀찮게")."""


def caused(word: str) -> bool:
    """Whether ``word`` ends a clause of cause ("용돈이니까", "더치페이라", "있어서")."""
    return _caused(word)


__all__ = ["answer_of", "caused", "cancelled_after_feeling", "denied_with_reason",
           "only_reason", "stopped_doing"]
