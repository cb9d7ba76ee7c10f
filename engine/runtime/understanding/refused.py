"""Values said that are refused with a reason: text written as an amount that is none, an
amount in another currency than the slot's, a time that names no date.

A time said that names no date ("다음 달 초에", "설 전에", "end of the month"), in a flow
with one date slot, gives the slot an ``UnreadTime``, which the turn refuses with the
``date_unread`` text and keeps asked for — even an optional slot — until a date comes, or
an answer that means "now" ("지금 바로요") leaves it empty. An empty date slot often means
"now", so a time that could not be read never turns into one."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.compiler.compiled import CompiledSlot
from engine.nlu import names
from engine.nlu.certainty import PARTICLE
from engine.nlu.keywords import undoing
from engine.nlu.phrases import FILLERS, is_question
from engine.nlu.reasons import caused
from engine.nlu.vague_times import right_away, vague_time
from engine.precompiled import re_compile


@dataclass(frozen=True, slots=True)
class BadAmount:
    """Text written as an amount that is none ("1e400원", "NaN원", twenty digits): refused
    with the slot's error, never read as a smaller amount."""

    text: str


@dataclass(frozen=True, slots=True)
class ForeignAmount:
    """An amount written in a currency the money slot does not hold ("$50" for a KRW slot):
    refused with a message that names both, never relabelled."""

    amount: Any
    currency: str


@dataclass(frozen=True, slots=True)
class UnreadTime:
    """What was said for a date slot that names no date."""

    said: str


Op = tuple[Literal["set", "clear"], str, UnreadTime | None]


def time_op(text: str, slots: Sequence[CompiledSlot], asked: str | None, today: dt.date,
            given: Collection[str], answer: str | None, tasks: Sequence[object]) -> Op | None:
    """The operation a time in ``text`` makes on the flow's one date slot (None: none): an
    ``UnreadTime`` for a time that names no date, a clear for "now" while it is asked.
    ``given``: the slots the message gave values to (a date read is no unread time); none
    for a message that is a yes or a no (``answer``) or several tasks."""
    dated = [slot.name for slot in slots if slot.spec.type == "date"]
    if len(tasks) > 1 or len(dated) != 1 or dated[0] in given:
        return None
    if asked == dated[0] and right_away(text):  # "지금 보내주세요" reads as a yes too
        return "clear", dated[0], None
    said = vague_time(text, today)
    if said is None or answer is not None or is_question(text) or undoing(text):
        return None  # "can I cancel it later?": a time of undoing it, no date of doing it
    if asked != dated[0] and _put_off(text, said):
        return None  # "maybe later" at a confirmation: not now, no date to ask for
    if _told_of_before(text, said) or _of_a_thing(text, said) or _of_another(text, said) \
            or _after_if_done(text, said) or _AGAIN.search(text) or _heard(text, said) \
            or _in_why(text, said):
        return None  # "그때는 다음 달로 미뤘다가", "이번 달 생활비가", "아들이 이번 달에
        # 장가간다", "보내면 나 이번달 라면만 먹어야됨": no date to ask for
    return "set", dated[0], UnreadTime(said)


_LATER = re_compile(r"(?:later|someday|sometime|soon|나중에|언젠가|조만간|이따가?)",
                    re.IGNORECASE)
_HEDGES = frozenset({"maybe", "mabye", "maybee", "perhaps", "probably", "prolly", "probs",
                     "just", "hmm", "um", "uh", "well", "ok", "okay", "then", "아마", "아마도",
                     "좀", "그냥", "음", "흠", "일단", "확인은", "결정은", "할게", "할게요", "할께",
                     "할께요", "할래", "할래요", "하겠습니다", "할게여", "할게용", "할께용",
                     "할래용", "할게유", "i", "ll", "will",
                     "let", "me", "confirm", "decide"})
"""Hedges, and putting off the decision itself ("확인은 이따가 할게", "I'll decide later")."""


def _told_of_before(text: str, said: str) -> bool:
    """Whether the time ``said`` is of something already done: a Korean past-tense verb
    among the two words after it ("다음 달로 미뤘다가 후회했던", "나중에 했었는데")."""
    start = text.find(said)
    after = text[start + len(said):].split()[:2] if start >= 0 else []
    return any(_PAST.search(word) for word in after)


_PAST = re_compile(r"[가-힣]*[갔났랐렀렸뤘았었였했혔췄쳤졌줬봤왔됐웠썼냈셨]"
                   r"(?:다|는데|던|었|지|어|고|으니|더니|다가|거든)")
"""A Korean verb in the past ("미뤘다가", "했었는데", "보냈던"); not the future 겠."""


def _of_a_thing(text: str, said: str) -> bool:
    """Whether the time ``said`` names which of a thing, with no particle of its own: the
    word after it is a subject or topic ("이번 달 생활비가 빠듯해", "다음 주 일정은")."""
    start = text.find(said)
    after = text[start + len(said):] if start >= 0 else ""
    return _THINGS_OF.match(after) is not None and not said.endswith(("에", "로", "까지"))


_THINGS_OF = re_compile(r"\s+[가-힣]{2,}(?:이|가|은|는|도|의)(?=[\s.,!?~]|$)")


def _of_another(text: str, said: str) -> bool:
    """Whether the time ``said`` is of what someone or something else does: the word right
    before it is another's subject ("아들이 이번 달에 장가가요", "월급이 다음 주에 들어와"), not
    the speaker's own ("제가 다음 달에 보낼게요")."""
    before = text[:max(text.find(said), 0)].split()[-1:]
    return bool(before) and _SUBJECT.fullmatch(before[0]) is not None and \
        before[0] not in _OWN_SUBJECTS


def _in_why(text: str, said: str) -> bool:
    """Whether the time ``said`` is in a clause of why that ends before the request ("다음
    달에 이사라서 집주인한테 600만원 보내줘": the move's time, not the transfer's)."""
    start = text.find(said)
    for word in text[start + len(said):].split() if start >= 0 else ():
        if caused(word) or word.rstrip(".!~…").endswith(_SO_ENDS):  # "…늦으면 안 돼서요"
            return True
        if _ASKS.search(word):
            return False
    return False


_SO_ENDS = ("돼서", "돼서요", "되서", "되서요", "해서", "해서요")
_ASKS = re_compile(r"(?:보내|이체|송금|부치|부쳐|입금|쏴|줘|주세요|주십시오|해줘|할게|할래)")


def _heard(text: str, said: str) -> bool:
    """Whether the time ``said`` is in what someone else said they would do ("5천원은 다음
    달에 받겠대요", "he said next week"): their plan, no date of this task."""
    return names.reported(text[max(text.find(said), 0):])


def _after_if_done(text: str, said: str) -> bool:
    """Whether the time ``said`` comes after the act itself said as a condition ("보내면 나
    이번달 라면만 먹어야됨", "이체하면 다음 주에 카드값 못 내"): it is the time of what would
    follow, not of the act ("보내면 돼요 다음 주에" says when)."""
    start = text.find(said)
    return start > 0 and _IF_DONE.search(text, 0, start) is not None


_IF_DONE = re_compile(r"(?:보내|이체하|송금하|부치|쏘|입금하|결제하|주문하|신청하|예약하)"
                      r"(?:시|드리)?면(?:은)?(?![가-힣])(?!\s*(?:돼|되|좋|될|됩|된|충분|끝))")
"""The act said as a condition ("보내면", "이체하시면"), not as what would do ("보내면 돼요")."""


_AGAIN = re_compile(r"(?:또|다시|한\s?번\s?더)\s*(?:보내|보낼|이체|송금|부치|부칠)"
                    r"|\b(?:again|another one)\b", re.IGNORECASE)
"""Another sending ("다음 주에 또 보낼지도 몰라", "I might send again next week"): its time is
none of this one's."""


_SUBJECT = re_compile(r"[가-힣]+[이가]")
_OWN_SUBJECTS = frozenset({"제가", "내가", "저희가", "우리가", "본인이"})


def _put_off(text: str, said: str) -> bool:
    """Whether the whole message is only "later" and hedges around it ("maybe later",
    "나중에요", "hmm someday"): putting off, no date of doing it ("monday or tuesday" and
    "다음 달 초" name one)."""
    start = text.find(said)
    rest = re.sub(r"[^\w\s]", " ", f"{text[:start]} {text[start + len(said):]}").casefold()
    return _LATER.fullmatch(said) is not None and \
        all(w in _HEDGES or w in FILLERS or PARTICLE.match(w) for w in rest.split())


__all__ = ["BadAmount", "ForeignAmount", "Op", "UnreadTime", "time_op"]
