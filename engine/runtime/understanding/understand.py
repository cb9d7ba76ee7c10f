"""(message, flow, stage) -> Understanding: the deterministic rules that settle most turns.

Rules first: a branch that can be decided in code is decided in code. At a ``decide: confirm``
stage only yes/no words and corrections count, so no LLM is ever needed there. Slot
values are found by each slot's type and hints; several tasks in one message (one slot
given twice, e.g. two recipients) become a task list for the batch queue.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.compiler.compiled import CompiledFlow, CompiledService, CompiledSlot, extraction_order
from engine.nlu import (
    Match,
    YesNoWords,
    classify,
    is_question,
    names,
    normalise,
    yes_no,
)
from engine.nlu.certainty import inexact, leftover, named_by, negated, ranged
from engine.nlu.phrases import thanked_off
from engine.nlu.reasons import answer_of, decided_of
from engine.nlu.resets import named_resets
from engine.nlu.retractions import retracted_at, taken_back
from engine.nlu.segments import each_to, last_sentence, merge_tasks, task_parts, without_told
from engine.precompiled import re_compile
from engine.runtime.understanding.accounted import (
    accounted_by,
    asked_for,
    light_verbs_off,
    not_a_change,
    sure_of,
    told_off,
)
from engine.runtime.understanding.bare import (
    a_note,
    bare_ok,
    bare_value,
    free_text,
    instead,
    named_after,
    named_ahead,
    named_values,
)
from engine.runtime.understanding.confirming import (
    TOPIC_OFF,
    another_value,
    says_cancel,
    things_elsewhere,
    without,
)
from engine.runtime.understanding.finders import (
    answer_after_echo,
    changes_by,
    exact,
    quits,
    said_away,
    set_aside,
    somebody_matches,
    usable,
    widened,
    words_of,
)
from engine.runtime.understanding.refused import BadAmount, ForeignAmount, UnreadTime, time_op
from engine.runtime.understanding.said_amounts import find_with_verbs, referring, with_verb
from engine.runtime.understanding.stories import asked_sentences

Decision = Literal["confirm", "cancel", "deny"]
_DECISIONS: dict[str, Decision] = {"confirm": "confirm", "deny": "deny"}  # by yes_no answer


@dataclass(frozen=True, slots=True)
class SlotOp:
    op: Literal["set", "clear"]
    slot: str
    value: Any = None


@dataclass(slots=True)
class Understanding:
    ops: list[SlotOp] = field(default_factory=list)
    decision: Decision | None = None
    tasks: list[dict[str, Any]] = field(default_factory=list)
    """Two or more when the message holds several tasks; the first is also in ``ops``."""
    unclear: bool = False
    """The LLM's reply could not be parsed (it shows as ``slot_errors._unclear``)."""


@dataclass(frozen=True, slots=True)
class Intent:
    name: str | None
    confidence: float
    reason: str = ""


def understand(text: str, service: CompiledService, flow: CompiledFlow, stage: str, *,
               asked: str | None, batching: bool, today: dt.date,
               values: Mapping[str, Any] | None = None, started: bool = False
               ) -> Understanding:
    """Slot operations and a yes/no decision for one message, by rules alone.

    The slot being asked has priority; a slot marked ``asked_only`` is looked for only
    then; a boolean slot being asked takes a yes or a no as its value. At a confirmation,
    a yes that repeats the task's own ``values`` ("네 엄마한테 5만원 보내주세요") confirms.
    ``started``: the message started the flow, so its values are the request's own, a
    question's too ("ORD-1001 어디쯤 왔어?"); later, rules are not sure of a question's.
    A value in a part of the message that tells what someone else said or what was already
    sent gives way to the one said after it ("작년엔 30만원 드렸거든요 근데 올해는 50만원으로
    할게요": 50만원)."""
    current = flow.stages[stage]
    words = current.words or service.words
    if asked is not None and asked in service.slots:  # "Mina, thanks", "pin? 5309": the answer
        text = answer_after_echo(thanked_off(text), service.slots[asked])
    answer = answer_of(text, words)
    confirming = (values or {}) if current.decide == "confirm" else None  # what it asks
    text = told_off(text) if confirming is None else text
    text = each_to(text) if batching and confirming is None else text  # "엄마랑 아빠한테 각각"
    verbs = flow.amount_verbs
    slots, found = _found(text, flow, asked, today, verbs)
    if (ask := asked_sentences(text)) is not None:
        told = _found(ask, flow, asked, today, verbs)  # "학생이니까 체크카드가 무난할 것
        if any(ms for _, ms in told[1]):  # 같아요. 체크카드로 할게요": the asking sentence's
            text, (slots, found) = ask, told
    early = _answered(text, service, asked, answer, found, confirming, words)
    if early is not None:
        return early
    segments = _segments(text, found, verbs) if batching and confirming is None else []
    tasks = merge_tasks(without_told(segments, [
        extract(with_verb(seg, text, verbs), slots, today, verbs=verbs) for seg in segments
    ])) if segments[1:] \
        else [_values(text, service, slots, found, asked=asked, answer=answer, words=words,
                      started=started, confirming=confirming, here=flow.name)]
    result = Understanding(ops=[SlotOp("set", k, v) for k, v in tasks[0].items()],
                           tasks=tasks if len(tasks) > 1 else [])
    result.ops += [SlotOp("clear", name, None) for name in _taken_back(text, service, flow,
                                                                          values, result.ops)]
    result.ops = _timed(text, service, flow, slots, asked, today, answer, tasks, result.ops)
    if not result.ops:
        put = instead(text, service, flow, values, words) if answer is None else None
        result.ops = [SlotOp("set", *put)] if put else []
        result.decision = None if result.ops else _decision(answer, confirming is not None)
    if confirming is not None and not result.ops and result.decision is None and \
            (last := last_sentence(text)) is not None:  # "…퇴근이 늦어졌어. 아빠로 바꿔줘."
        changed = understand(last, service, flow, stage, asked=asked, batching=False,
                             today=today, values=values)
        result.ops = [op for op in changed.ops if op.op == "set"]  # a change, asked again
    return result



def _timed(text: str, service: CompiledService, flow: CompiledFlow,
           slots: tuple[CompiledSlot, ...], asked: str | None, today: dt.date,
           answer: str | None, tasks: Sequence[object], ops: list[SlotOp]) -> list[SlotOp]:
    """``ops`` with what a time in ``text`` does to the flow's date slot: "다음 달 초에" is
    asked for (never "now") and is no name as well; a time in another flow's request
    ("이번달 이체 기록") does nothing here."""
    timed = time_op(text, slots, asked, today, {o.slot for o in ops}, answer, tasks)
    if timed is None or not ops and _elsewhere(text, service, flow.name):
        return ops
    said = timed[2].said if timed[2] is not None else None
    return [*(o for o in ops if said is None or not (isinstance(o.value, str) and said in o.value)),
            SlotOp(*timed)]


def _segments(text: str, found: Sequence[tuple[CompiledSlot, list[Match]]],
              verbs: tuple[str, ...] = ()) -> list[str]:
    """The message's parts, one per task (a batch), or [] where it holds no tasks."""
    if retracted_at(text) is not None or _no_tasks(text, found) or referring(text, found, verbs):
        return []
    return task_parts(text, somebody_matches(found))


def _no_tasks(text: str, found: Sequence[tuple[CompiledSlot, list[Match]]]) -> bool:
    """Whether the values found cannot be tasks of a batch: none at all ("Jake, he covered
    the gas bill"), one end of a range ("만원에서 2만원 사이"), an amount inside a sum ("1만원
    + 1만원"), a choice not made ("3만원 할까 4만원 할까") or a question."""
    return not any(ms for _, ms in found) or bool(names.CONDITION.search(text)) or \
        names.conditional(text) or names.undecided(text) or is_question(text) or any(
        ranged(text, m) or exact(s) and inexact(text, m) for s, ms in found for m in ms) or \
        _corrected(text, found)


def _corrected(text: str, found: Sequence[tuple[CompiledSlot, list[Match]]]) -> bool:
    """Only one value said away and one in its place ("3만 말고 4만"): one task, not two."""
    repeated = [ms for _, ms in found if len(ms) > 1]
    return len(repeated) == 1 and len(repeated[0]) == 2 and negated(text, repeated[0][0])


def _answered(text: str, service: CompiledService, asked: str | None, answer: str | None,
              found: list[tuple[CompiledSlot, list[Match]]],
              confirming: Mapping[str, Any] | None, words: YesNoWords) -> Understanding | None:
    """A yes/no slot's yes or no, or a yes repeating what a confirmation asks; else None."""
    if answer in ("confirm", "deny") and asked is not None and \
            service.slots[asked].spec.type == "boolean":
        return Understanding(ops=[SlotOp("set", asked, answer == "confirm")])
    restated = _restated(text, found, confirming, words) or (
        decided_of(text, confirming, words) if not another_value(found, confirming) else None) \
        if answer is None and confirming else None
    return Understanding(decision=restated) if restated is not None else None



def _decision(answer: str | None, deciding: bool) -> Decision | None:
    """What a message with no value decides: a cancel anywhere, a yes or no at a confirmation."""
    if answer == "cancel":
        return "cancel"
    return _DECISIONS.get(answer or "") if deciding else None


def _found(text: str, flow: CompiledFlow, asked: str | None, today: dt.date,
           verbs: tuple[str, ...] = ()
           ) -> tuple[tuple[CompiledSlot, ...], list[tuple[CompiledSlot, list[Match]]]]:
    """The slots looked for (the asked one first, ``asked_only`` ones when asked or named
    ahead of their value) and each one's matches in ``text``, a plain number said with one
    of the flow's ``verbs`` its amount; a value taken back is none ("2만원, 아니 3만원": the
    amount is 3만원)."""
    slots = _asked_first(flow.extraction, asked)
    named = named_ahead(text, flow.extraction, asked)
    slots += tuple(s for s in flow.extraction if s.name in named)
    cut = retracted_at(text) or 0
    found = [(s, named_after(text, cut, s, [*(m for m in ms if m.start >= named.get(s.name, 0)),
                                            *named_values(text, s)]))
             for s, ms in find_with_verbs(text, slots, today, verbs)]
    if cut and taken_back(text, cut) and not any(m.start >= cut for _, ms in found for m in ms):
        return slots, [(s, []) for s, _ in found]  # "5만원 보내줘 아니다 잠깐만": all taken back
    if _noted(slots[0] if slots else None, asked):  # "zero regrets" in a review's comment
        found = [(s, [m for m in ms if s.name == asked or not m.text.isalpha()])
                 for s, ms in found]
    return slots, [(s, [m for m in ms if m.start >= cut] or ms) for s, ms in found]


def _noted(slot: CompiledSlot | None, asked: str | None) -> bool:
    """Whether ``slot`` is the asked one and takes free text: a number said in words in it
    ("zero regrets", "one of the best") is no other slot's value."""
    return slot is not None and slot.name == asked and slot.spec.extract is not None and \
        slot.spec.extract.free_text


def _values(text: str, service: CompiledService, slots: tuple[CompiledSlot, ...],
            found: list[tuple[CompiledSlot, list[Match]]], *, asked: str | None,
            answer: str | None, words: YesNoWords, started: bool,
            confirming: Mapping[str, Any] | None, here: str) -> dict[str, Any]:
    """One task's values in ``text``; none when the rules cannot be sure of them. At a
    confirmation (``confirming``: the values it asks about) a change is sure only when the
    rest of the message is accounted for ("아빠한테로 바꿔줘"), never in a sentence about
    something else ("엄마한테 물어보고 말씀드릴게요", "네 5천원만 더 얹어서요")."""
    picked, spans = _pick_spans(text, slots, found, asked=asked, words=words,
                                may_be_bare=lambda: _bare_ok(text, service, asked, answer, words,
                                                             here))
    if a_note(text, service, asked, picked):
        return picked
    if started:  # the request's own values, unless someone else's ("보내준대", "보내달래"),
        # weighed ("보낼까 말까") or on a condition not met yet ("월급 들어오면"); why, said
        # after the request, is none of it ("ORD-1003 구매 취소요 회사에서 지급해준대서요")
        said = asked_for(light_verbs_off(text), spans)  # "lost 했어요" tells what happened
        return {} if names.reported(said) or names.asks_if_possible(said) or \
            names.undecided(said) or names.conditional(said) else picked
    named = named_by(said for name in picked  # "금액을 3만원으로", "받는 사람 아빠로"
                     for said in service.slots[name].spec.names or [name.replace("_", " ")])
    own = {f"{v}{topic}" for v in (confirming or {}).values() if v not in (None, "")  # "아빠는
           for topic in ("은", "는", "한테는", "에게는", "께는", "한텐", "에겐", "씨는", "님은")}
    own |= {w for v in (confirming or {}).values() if isinstance(v, str) and v and  # "엄마 건은
            re.search(rf"(?<!\S){re.escape(v)}\s+(?:건|것|거|씨는|님은)", text)  # 만 오천원으로",
            for w in (v, "씨는", "님은")}  # "박지영 씨는 3만 5천원으로"
    if confirming:  # "그 마우스는 환불로 바꿀게요": a thing the service knows, as the topic
        things = things_elsewhere(service, here)
        own |= {w for w in text.split() if TOPIC_OFF.sub("", w) in things}

    accounted = accounted_by(words)

    def changing(w: str) -> bool:  # what a change says besides its values ("날짜를 …로 바꿔줘")
        return accounted(w) or named(w) or w in own

    known: Callable[[str], bool] = words.known
    by = changes_by(text, found, picked, confirming)
    if by is None:  # "2만원 줄여줘" of 1만원: no amount left to send
        return {}
    picked, spans = {**picked, **by[0]}, [*spans, *by[1]]  # "5천원 더": the amount plus 5천원
    if confirming and any(confirming.get(k) not in ("", v) for k, v in picked.items()):
        spans = [*spans, *words_of(text, [m for _, ms in found for m in ms]),  # "5만원 말고 7만원"
                 *set_aside(text, {k: confirming.get(k) for k in picked}),  # "아빠 말고 오빠한테"
                 (0, retracted_at(text) or 0)]  # taken back: "4만원 아니 3만원으로 해줘"
        adding = all(service.slots[k].spec.type == "boolean" for k in picked)  # "add cheese too"
        if not_a_change(text, spans, changing, adding=adding) or \
                quits(leftover(text, spans, lambda w: False), words):
            return {}  # "오늘은 그만할래요": no date
        known = changing
    else:
        spans += said_away(text, found, picked)
    return picked if sure_of(text, picked, spans, service, asked, words, known) else {}


def _bare_ok(text: str, service: CompiledService, asked: str | None, answer: str | None,
             words: YesNoWords, here: str) -> bool:
    """Whether the whole message may be the asked slot's value (a free-text slot, unless the
    message is a cancel or a lone yes/no: a lone "네" is no note); never a message that asks
    for another flow's task ("저번달 송금 내역" while a name is asked)."""
    lone_answer = bool(answer) and len(normalise(text).split()) == 1
    if free_text(service, asked) and answer != "cancel" and not lone_answer:
        return True
    return bare_ok(text, answer, words) and not _elsewhere(text, service, here)


def routed_intents(text: str, service: CompiledService) -> list[Intent]:
    """The routed intents whose rules match ``text`` over their threshold (unranked)."""
    return [Intent(score.name, score.confidence, score.reason)
            for score in classify(text, service.intents)
            if score.name in service.routes and
            score.confidence >= service.intent_thresholds.get(score.name, 0.5)]


def _elsewhere(text: str, service: CompiledService, here: str) -> bool:
    """Whether ``text`` names an intent, over its threshold, that another flow than ``here``
    takes."""
    return any(service.routes[i.name or ""] != here for i in routed_intents(text, service))


def _restated(text: str, found: Sequence[tuple[CompiledSlot, list[Match]]],
              values: Mapping[str, Any], words: YesNoWords) -> Decision | None:
    """The message's decision once the values it names, each equal to the task's own, are
    taken out: a yes ("맞아 엄마한테 보내줘" at "엄마에게 5만원을 이체할까요?"), or a cancel of
    the task it names ("엄마한테는 보내지 마": the name is turned down with its task; a choice
    turned down may be the choice of another, "결제는 하지 마", and cancels nothing unless a
    cancel word says so: "체크카드는 취소해 주세요")."""
    picked, spans = _pick_spans(text, [s for s, _ in found], found, asked=None)
    said = [(m.start, m.end) for _, ms in found for m in ms]
    if not said or any(not _same(values.get(slot.name), picked.get(slot.name, m.value))
                       for slot, ms in found for m in ms):  # as read: "이정희 씨에게" names 이정희
        return None  # no value, or one not the task's
    chosen = any(ms and slot.spec.type == "enum" for slot, ms in found)
    rest = without(text, said)
    if yes_no(rest, words) == "cancel" and (not chosen or says_cancel(rest, words)):
        return "cancel"
    same = bool(picked) and all(_same(values.get(name), value) for name, value in picked.items())
    return "confirm" if same and yes_no(without(text, spans), words) == "confirm" else None


def _same(held: Any, said: Any) -> bool:
    """Whether a value said is the one held (a date is held as its ISO text)."""
    return held == said or isinstance(said, dt.date) and held == said.isoformat()


def _asked_first(slots: tuple[CompiledSlot, ...], asked: str | None
                 ) -> tuple[CompiledSlot, ...]:
    """The flow's slots in extraction order, the asked one first, ``asked_only`` ones only
    when asked."""
    first = tuple(s for s in slots if s.name == asked)
    return first + tuple(s for s in slots if s.name != asked and not (
        s.spec.extract is not None and s.spec.extract.asked_only))


def extract(text: str, slots: Sequence[CompiledSlot], today: dt.date, *,
            asked: str | None = None, verbs: tuple[str, ...] = ()) -> dict[str, Any]:
    """Values for ``slots`` found in ``text``; each span of text feeds at most one slot."""
    return _pick(text, slots, [(s, [*ms, *named_values(text, s)]) for s, ms in
                               find_with_verbs(text, extraction_order(slots), today, verbs)],
                 asked=asked)


def _pick(text: str, slots: Sequence[CompiledSlot],
          found: Sequence[tuple[CompiledSlot, list[Match]]], *,
          asked: str | None) -> dict[str, Any]:
    return _pick_spans(text, slots, found, asked=asked)[0]


def _pick_spans(text: str, slots: Sequence[CompiledSlot],
                found: Sequence[tuple[CompiledSlot, list[Match]]], *,
                asked: str | None, words: YesNoWords | None = None,
                may_be_bare: Callable[[], bool] = lambda: True
                ) -> tuple[dict[str, Any], list[tuple[int, int]]]:
    """The values found (and the spans of text they came from): a value corrected away
    ("5만원 말고"), one end of a range ("3~4만원"), a question word or a filler is none, and
    a slot given two different values ("모니터랑 키보드 둘 다") takes neither. With none
    found, the whole message as the ``asked`` slot's value when ``may_be_bare()`` (asked
    last: it may classify the message)."""
    claimed: list[tuple[int, int]] = []
    values: dict[str, Any] = {}
    for slot, matches in found:
        fit = [widened(text, slot, m) for m in matches
               if not _overlaps(m, claimed) and usable(text, slot, m)]
        new = [m for m in fit if not _old(text, m)]  # "my old number was 010-1111-2222, now
        if len({repr(m.value) for m in new}) == 1:  # it's 010-3434-5656": the new one
            fit = new
        if len({repr(m.value) for m in fit}) > 1:  # "모니터랑 키보드 둘 다": which one?
            claimed.extend((m.start, m.end) for m in fit)
            if slot.spec.type == "date":  # never "now" for it: asked which
                values[slot.name] = UnreadTime(text[fit[0].start:fit[-1].end])
        elif fit:
            values[slot.name] = _value(slot, fit[0])
            claimed.append((fit[0].start, fit[0].end))
    refused = any(s.name == asked and s.spec.type == "string" and ms for s, ms in found)
    if not values and asked is not None and not refused and may_be_bare():  # "동생과 엄마에게"
        bare = bare_value(text, next((s for s in slots if s.name == asked), None), words)
        if bare is not None:
            values[asked], span = bare
            claimed.append(span)
    return values, claimed


def _old(text: str, match: Match) -> bool:
    """Whether ``match`` is said as what used to be ("my old number was …", "…was my old
    one", "예전 번호 …"), in the clause around it."""
    start = max(text.rfind(",", 0, match.start), text.rfind(".", 0, match.start)) + 1
    ends = [i for i in (text.find(",", match.end), text.find(".", match.end)) if i >= 0]
    return _OLD.search(text, start, min(ends, default=len(text))) is not None


_OLD = re_compile(r"\b(?:old|previous|former|used to)\b|예전|옛날|이전|전에 쓰던|안 쓰는",
                  re.IGNORECASE)


def _taken_back(text: str, service: CompiledService, flow: CompiledFlow,
                values: Mapping[str, Any] | None, ops: Sequence[SlotOp]) -> list[str]:
    """Filled slots the message takes back by name, with no new value ("날짜는 빼줘")."""
    setting = {op.slot for op in ops}
    filled = {name: service.slots[name].spec.names or [name.replace("_", " ")]
              for name in flow.slots
              if name not in setting and (values or {}).get(name) not in (None, "")}
    return named_resets(text, filled) if filled else []


def _value(slot: CompiledSlot, match: Match) -> Any:
    """The match's value; an amount in another currency than the slot's is marked as such,
    and text that only looks like an amount as a bad one."""
    if slot.spec.type == "money" and isinstance(match.value, str):
        return BadAmount(match.value)
    currency = slot.spec.currency
    if currency and slot.spec.type == "money":
        unit = match.unit
        if unit is not None and unit != currency:
            return ForeignAmount(match.value, unit)
    return match.value


def _overlaps(match: Match, claimed: Sequence[tuple[int, int]]) -> bool:
    return any(match.start < end and start < match.end for start, end in claimed)
