"""(message, service, current flow) -> which flow should take the message.

Used by the turn before any LLM call: the intents a message names (best first), several
flows asked for in one message ("잔액 확인하고 엄마한테 만원 보내줘"), intents that fit about
equally well (a clarification), another flow's intent in the middle of a flow (an
interruption), a question the current flow cannot use (a digression), and the answer to
"which one?".
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from engine.compiler.compiled import CompiledFlow, CompiledService, CompiledStage, LinkStep
from engine.nlu import classify, is_statement, names, not_knowing
from engine.nlu.intents import EXAMPLE, INTERRUPT_SURE, LEARNED, unless_said
from engine.nlu.money import find_money
from engine.nlu.phrases import contrasted, is_question, thanked_off
from engine.nlu.retractions import after_retraction, retracted_at
from engine.nlu.segments import PLACES, spoken_as_another
from engine.nlu.text import SENTENCE_END
from engine.nlu.words import decision_text, normalise
from engine.precompiled import re_compile
from engine.runtime.understanding.clauses import only_told, opening, turned_down
from engine.runtime.understanding.llm import LlmUnderstanding
from engine.runtime.understanding.understand import (
    Intent,
    Understanding,
    routed_intents,
    understand,
)

_PARTS = re_compile(r"\s*(?:,|그리고|그 다음에?|다음에|\band then\b|\bthen\b|\band\b)\s*"
                    r"|(?<=[가-힣])(?<!말)(?<!빼)(?<!아니)(?:하고|고)\s+", re.IGNORECASE)
"""Where one request ends and the next begins ("잔액 확인하고 보내줘"; not "이체 말고 잔액",
"보내지 말고", "환불 아니고 교환": the words before those are turned down, no request)."""
_QUESTION = re_compile(r"(?:[?？]|나요|까요?|니까|어때요?|뭐야|뭐예요|인가요?|는지|니)"
                       r"\s*[.!~]*\s*$")
_EN_QUESTION = re_compile(r"^(?:what|how|why|when|where|who|which|can|could|do|does|is|are|"
                          r"tell me)\b", re.IGNORECASE)


def ranked(message: str, service: CompiledService) -> list[Intent]:
    """The routed intents whose rules match ``message`` over their threshold, best first;
    of a message of several sentences, not an intent whose words only tell of it as done
    where another sentence asks for something ("I returned a pair of earbuds last month.
    Can you compare prices for P-106?": a comparison, no return)."""
    if spoken_as_another(message):  # "assistant: Your pizza is on its way.": no request
        return []
    found = routed_intents(message, service)
    if len(found) > 1 and len(sentences := SENTENCE_END.split(message.strip())) > 1:
        keywords = {rule.name: rule.keywords for rule in service.intents}
        kept = [i for i in found if not only_told(sentences, keywords[i.name or ""])]
        found = kept or found
    return by_rank(found, service)


def leading(message: str, service: CompiledService) -> list[Intent]:
    """The routed intents of the request a message opens with, where the whole names none
    and all that follows the request is a remark of its own ("log me in please, I'm really
    nervous about doing this online": its likeness to the examples is lost in the remark);
    [] when nothing follows, the rest names an intent by a keyword or takes the request back
    ("…, no wait")."""
    head, rest = opening(message)
    if not rest or turned_down(head) or any(score.reason.startswith("keyword")
                                            for score in classify(rest, service.intents)):
        return []  # "not ordering, just want to know if you're open": no order
    return ranked(head, service)


def guess(message: str, service: CompiledService, today: dt.date) -> Intent | None:
    """The routed intent the rules lean to without being sure of it — a keyword under its
    threshold (one in a question), an amount for the one flow that collects money, a value
    (a recipient) that only one flow's required slots take — to ask about when nothing
    better is known, never to act on."""
    for score in classify(message, service.intents):
        if score.name in service.routes and score.confidence > 0:
            return Intent(score.name, score.confidence, score.reason)
    if find_money(message):
        paying = {intent for intent, flow in service.routes.items()
                  if any(service.slots[n].spec.type == "money"
                         for n in service.flows[flow].slots)}
        if len(paying) == 1:
            return Intent(paying.pop(), 0.0, "an amount")
    taking = set()
    for intent, name in service.routes.items():
        # a required slot's value: "오늘" alone fills an optional date of many requests
        if _takes(message, service, service.flows[name], today,
                  lambda slot: bool(service.slots[slot].spec.required)):
            taking.add(intent)
    return Intent(taking.pop(), 0.0, "a value its flow takes") if len(taking) == 1 else None


def tied(message: str, service: CompiledService, leaning: Intent) -> list[str]:
    """The routed intents scored as high as ``leaning`` by their keywords ("where is my new
    card": a new card's and a card's status, both in a question), best first."""
    return [s.name for s in classify(message, service.intents)
            if s.name in service.routes and s.confidence == leaning.confidence > 0
            and s.reason.startswith("keyword")]


def complete(message: str, service: CompiledService, today: dt.date) -> Intent | None:
    """The one routed intent whose flow the message, by its values alone, gives every
    required value of — two or more ("medium, no extra cheese" of a pizza's size and
    cheese, "외삼촌께 2만 5천원" of a transfer): a request said without its keyword, started as
    if it had been (its confirmation still asks). Slots required only on a condition do not
    count. None when no flow or several take them all, or the message asks, hedges or says
    them of someone else."""
    if is_question(message) or names.hedged(message) or contrasted(message):
        return None
    whole = set()
    vetoed = {rule.name for rule in service.intents if unless_said(message, rule)}
    for intent, name in service.routes.items():
        if intent in vetoed:
            continue  # "엄마한테 문자 좀 보내줘. 어제 보내주신 10만원 잘 받았다고": a text
        flow = service.flows[name]
        required = {s for s in flow.slots if service.slots[s].spec.required is True}
        if len(required) > 1 and _takes(message, service, flow, today, required.__contains__,
                                        every=True):
            whole.add(intent)
    return Intent(whole.pop(), INTERRUPT_SURE, "every value its flow needs") \
        if len(whole) == 1 else None


def gives_values(message: str, service: CompiledService, intent: str, today: dt.date) -> bool:
    """Whether ``message`` gives values the flow of ``intent`` requires, as a request of its
    own would ("to Jake, 35k" after "did you mean a transfer?"; not "tomorrow" alone, an
    optional date); never a question or a hedge."""
    return not (is_question(message) or names.hedged(message)) and _takes(
        message, service, service.flows[service.routes[intent]], today,
        lambda slot: bool(service.slots[slot].spec.required))


def _takes(message: str, service: CompiledService, flow: CompiledFlow, today: dt.date,
           counts: Callable[[str], bool], *, every: bool = False) -> bool:
    """Whether ``flow``, started by ``message``, reads a value for a slot that ``counts``
    (``every``: for each slot that counts)."""
    if not flow.slots:
        return False
    read = understand(message, service, flow, flow.initial, asked=None, batching=every and
                      flow.batch, today=today, started=True)  # "민지랑 지수한테 각각 2만씩"
    tasks = read.tasks or [{op.slot: op.value for op in read.ops if op.op == "set"}]
    given = [{slot for slot in task if counts(slot)} for task in tasks]
    wanted = {s for s in flow.slots if counts(s)}
    return all(g == wanted for g in given) if every else any(given)


def taken_by_one(options: list[str], ranked: list[Intent], message: str,
                 service: CompiledService, today: dt.date) -> str | None:
    """Of intents tied by one keyword they share, the one whose flow alone takes a value the
    message gives by a slot of its own ("my card is broken": "card" is a replacement's and
    a card order's, "broken" a replacement's reason); None when none does, or more than one,
    when each intent was named by words of its own ("이어폰 찾아서 추천해줘": which one?), or
    when the message holds its values at a distance (a question, a hedge, someone else's:
    "my wife lost her card", a contrast: "…damaged last year but now my balance")."""
    if len({i.reason for i in ranked if i.name in options}) != 1 or \
            "?" in message.rstrip().rstrip("?？") or is_question(message) or \
            names.hedged(message) or contrasted(message):  # "…broken? can I get a new one"
        return None
    flows = {name: service.flows[service.routes[name]] for name in options}

    def its_own(name: str) -> Callable[[str], bool]:  # a slot no other tied flow has
        return lambda slot: all(slot not in f.slots for o, f in flows.items() if o != name)

    taking = [name for name, flow in flows.items()
              if _takes(message, service, flow, today, its_own(name))]
    return taking[0] if len(taking) == 1 else None


def under_act(intent: Intent, service: CompiledService) -> bool:
    """Whether ``intent`` scores under its ``act`` bound (``patterns.confidence``): the
    rules would ask to confirm it, or to say more."""
    bounds = service.patterns.bands.get(intent.name or "")
    return bounds is not None and intent.confidence < bounds[0]


def by_rank(intents: list[Intent], service: CompiledService) -> list[Intent]:
    """``intents`` (best score first) in the service's ranking: unchanged, or with
    ``patterns.ranking: priority`` the highest priority first among those sure enough to
    act on (a stable sort, so the score still orders intents of one priority); intents under
    their ``act`` bound follow, by score."""
    if not service.patterns.by_priority:
        return intents
    priority = _priorities(service)
    sure = [i for i in intents if not under_act(i, service)]
    unsure = [i for i in intents if i not in sure]  # a near miss never outranks a sure match
    return sorted(sure, key=lambda i: -priority.get(i.name or "", 0)) + unsure


def _priorities(service: CompiledService) -> dict[str, int]:
    return {rule.name: rule.priority for rule in service.intents}


def ambiguous(candidates: list[Intent], service: CompiledService) -> list[str]:
    """Intents of different flows as likely as the best one (same priority, within the
    clarification margin), or the best one and two or more alternatives of other flows
    over ``patterns.clarify.alternatives``: the user is asked which one was meant."""
    if len(candidates) < 2:
        return []
    priority = _priorities(service)
    best = candidates[0]
    margin = service.patterns.clarify_margin
    flows: dict[str, str] = {}
    for intent in candidates:
        name = intent.name or ""
        if best.confidence - intent.confidence <= margin and \
                priority.get(name) == priority.get(best.name or ""):
            flows.setdefault(service.routes[name], name)
    if len(flows) > 1:
        return list(flows.values())
    return _alternatives(candidates, service)


def _alternatives(candidates: list[Intent], service: CompiledService) -> list[str]:
    """The best intent and its alternatives over ``clarify.alternatives``, one per flow,
    when two or more such alternatives route elsewhere; else []."""
    floor = service.patterns.clarify_alternatives
    if floor is None:
        return []
    best = candidates[0].name or ""
    flows = {service.routes[best]: best}
    for intent in candidates[1:]:
        if intent.confidence >= floor:
            flows.setdefault(service.routes[intent.name or ""], intent.name or "")
    return list(flows.values()) if len(flows) > 2 else []


def several(message: str, service: CompiledService, today: dt.date
            ) -> list[tuple[Intent, str]]:
    """(intent, the words said for it) for each part of ``message`` that asks for another
    flow, in the order said, when there are two or more (or one said in place of another:
    "whats my balance, actually no, replace my card"); else []. A part that is only like
    another intent's example and gives the flow before it a value is that request's own
    ("a new card asap, express delivery please")."""
    parts = [p for p in _PARTS.split(message) if p and p.strip()]
    if len(parts) < 2:
        return []
    found: list[tuple[Intent, str]] = []
    corrected = False
    for part in parts:
        intents = ranked(part, service)
        if found and intents and _corrects(found[-1][1], part):  # "…, no wait, it was stolen"
            found[-1], corrected = (intents[0], f"{found[-1][1]} {part.strip()}"), True
        elif found and intents and _only_like(found[-1][0]) and not _only_like(intents[0]):
            found[-1] = (intents[0], f"{found[-1][1]} {part.strip()}")  # "버즈3하고 소니
            # WF-1000XM5 담아줘": a name only like another's example is this request's
        elif intents and not (found and _gives_to(part, intents[0], found[-1][0], service,
                                                   today)):
            found.append((intents[0], part.strip()))
        elif found:  # words with no intent of their own belong to the part before
            intent, text = found[-1]
            found[-1] = (intent, f"{text} {part.strip()}")
    found = _one_task(found, service)  # "new card please, my card was stolen": one card
    flows = [service.routes[i.name or ""] for i, _ in found]
    if len(found) < 2 and not corrected or len(set(flows)) != len(flows):
        return []  # one request (unless it took another's place: that one is no request)
    if service.patterns.by_priority:
        priority = _priorities(service)
        ranks = [priority.get(i.name or "", 0) for i, _ in found]
        if len(set(ranks)) != len(ranks) and not corrected:
            return []  # "노트북 찾아봐 주고 추천도 해줘": two of one rank, which one? (below)
        found.sort(key=lambda part: -priority.get(part[0].name or "", 0))
    return found


def _only_like(intent: Intent) -> bool:
    """Whether ``intent`` was found only by a likeness to its examples (no keyword said)."""
    return intent.reason.startswith((EXAMPLE, LEARNED))


def _one_task(found: list[tuple[Intent, str]], service: CompiledService
              ) -> list[tuple[Intent, str]]:
    """``found`` without a request whose flow another request's flow hands over to ("report a
    lost card" links to "replace a card"): said together, they ask for one task, not two."""
    flows = {service.routes[i.name or ""] for i, _ in found}
    handed = {target for name in flows for target in _links(service.flows[name])}
    kept = [(i, text) for i, text in found if service.routes[i.name or ""] not in handed]
    return kept if kept else found


def _links(flow: CompiledFlow) -> set[str]:
    """The flows ``flow``'s stages hand the conversation over to (``link``)."""
    return {step.flow for stage in flow.stages.values() for step in stage.steps
            if isinstance(step, LinkStep)}


def _gives_to(part: str, intent: Intent, before: Intent, service: CompiledService,
             today: dt.date) -> bool:
    """Whether ``part``, only like one of ``intent``'s examples, gives the flow of the
    request ``before`` it a value ("…, express delivery please"): that request's words."""
    flow = service.flows[service.routes[before.name or ""]]
    return intent.reason.startswith("example") and _takes(part, service, flow, today,
                                                          lambda slot: True)


def _corrects(before: str, part: str) -> bool:
    """Whether ``part`` corrects what was said ``before`` it: one ends with a correction's
    own words or the other opens with them ("my card is damaged, no wait, it was stolen")."""
    rest = after_retraction(before)  # "…, wait no, …": a no with it is the correction's own
    return rest is not None and rest.strip(" ,.!").casefold() in ("", "no", "nope", "아니") \
        or retracted_at(part.strip()) == 0


def elsewhere(intent: Intent, service: CompiledService, flow: CompiledFlow) -> Intent | None:
    """``intent`` when it routes to another flow than ``flow``, one that does not hand over
    to ``flow`` ("stolen, or lost" while a replacement runs: its answer, no lost report that
    would start a second replacement)."""
    target = service.routes.get(intent.name or "")
    if target is None or target == flow.name or flow.name in _links(service.flows[target]):
        return None
    return intent


def other_intent(message: str, service: CompiledService, flow: CompiledFlow) -> Intent | None:
    """The best rule intent of ``message`` when it routes away from ``flow`` (one only
    an example's likeness or the learned model found needs ``INTERRUPT_SURE``), or of the
    request the message opens with, a remark after it ("how much can i spend right now? I
    need to know before anything else")."""
    for intents in (ranked(message, service), leading(message, service)):
        if intents and not (intents[0].reason.startswith((LEARNED, EXAMPLE)) and
                            intents[0].confidence < INTERRUPT_SURE):
            return elsewhere(intents[0], service, flow)
    return None  # a likeness alone must be surer to leave the task at hand ("네 등록해
    # 주세요" is a little like "환불해 주세요": no refund)


def digression(message: str, service: CompiledService, stage: CompiledStage,
               flow: CompiledFlow) -> bool:
    """A question the flow could not use, or a sentence saying something else ("오늘 너무
    피곤해", "I had a long day"), outside a confirmation: the chit-chat flow answers it and
    the flow resumes after."""
    chitchat = service.patterns.chitchat
    if chitchat is None or chitchat == flow.name or stage.decide:
        return False
    text = thanked_off(message.strip())  # "미나요 감사합니다" answers; it says nothing else
    return bool(_QUESTION.search(text) or _EN_QUESTION.match(text)) or \
        is_statement(text) and not not_knowing(text)  # "모르겠어" tried; it is no digression


def choose(message: str, options: list[str], service: CompiledService) -> str | None:
    """Which of ``options`` (intent names) the answer to "which one?" picks, or None.

    The answer is the whole message: an option's label or name said alone or in a
    sentence that names no other option, an ordinal said alone ("2", "두 번째요", "the
    first one"), or words whose intents rank one option clearly first. A question, a
    message naming two options, or the same ambiguous words again is no answer."""
    text = decision_text(message)
    if text is None:  # a question ("둘 다 뭐가 달라?"), a quote: not a choice
        return None
    named = [name for name in options
             if (label := normalise(service.patterns.labels.get(name, name))) and
             (text == label or f" {label} " in f" {text} " or normalise(name) == text)]
    if len(named) == 1:
        return named[0]
    if named:
        return None
    index = ordinal(text)
    head, rest = opening(message)
    if index is None and rest:
        index = ordinal(head)  # "the second one, I just want to know where things stand"
    if index is not None:
        return options[index] if index < len(options) else None
    candidates = [i for i in ranked(message, service) if i.name in options]
    if not candidates or len(ambiguous(candidates, service)) > 1:
        return None
    return candidates[0].name


_ORDINAL = re_compile(
    r"(?:(?:the|number|no|번호|option|choice)\s)?"
    r"(?P<n>[1-9]|첫|두|세|first|second|third|1st|2nd|3rd)"
    r"(?:\s?(?:번째|번|째|번 째|one|option|choice))?"
    r"(?:\s?(?:요|이요|거|거요|걸로|걸로요|것|꺼|꺼요|으로|로|주세요|할게요|부탁해요|please|pls|plz|"
    r"thanks|thx|ty|then|i guess|i think|i suppose|i reckon|obviously|of course|is fine|"
    r"thank you))*")


def ordinal(text: str) -> int | None:
    """The option index a whole message names by its place, or None.

    >>> ordinal("두 번째요"), ordinal("the first one"), ordinal("2"), ordinal("2nd one pls")
    (1, 0, 1, 1)
    >>> ordinal("두고 볼게"), ordinal("10"), ordinal("4")
    (None, None, 3)
    """
    match = _ORDINAL.fullmatch(normalise(text))
    return PLACES[match.group("n")] - 1 if match else None


def settled(u: Understanding) -> bool:
    """Rules settled the turn: a yes/no decision, or slot values, were found."""
    return u.decision is not None or bool(u.ops) or bool(u.tasks)


def merge(rules: Understanding, llm: LlmUnderstanding | None) -> Understanding:
    """Rules' values win; the LLM fills what they missed. Only code ever confirms."""
    if llm is None:
        return rules
    if llm.parse_error:
        rules.unclear = not settled(rules)
        return rules
    have = {op.slot for op in rules.ops}
    rules.ops.extend(op for op in llm.ops if op.slot not in have)
    if len(llm.tasks) > 1 and not rules.tasks:
        rules.tasks = llm.tasks
    if llm.cancel and rules.decision is None:
        rules.decision = "cancel"
    return rules


def llm_intent(service: CompiledService, llm: LlmUnderstanding | None) -> Intent:
    """The intent an understanding call named, if it is routed and confident enough."""
    if llm is None or llm.intent is None or llm.intent not in service.routes:
        return Intent(None, 0.0)
    threshold = service.intent_thresholds.get(llm.intent, 0.5)
    if llm.confidence < threshold:
        return Intent(None, llm.confidence, f"llm {llm.intent} below threshold")
    return Intent(llm.intent, llm.confidence, "llm")


def llm_ranked(service: CompiledService, llm: LlmUnderstanding | None) -> list[Intent]:
    """The intent an understanding call named, then its alternatives (most confident first),
    each routed and over its threshold, in the service's ranking; [] when the named intent
    is not."""
    if llm_intent(service, llm).name is None:
        return []  # alternatives never stand in for an unsure or unknown intent
    assert llm is not None
    alternatives = sorted(llm.alternatives, key=lambda named: -named[1])
    found: dict[str, float] = {}
    for name, confidence in [(llm.intent, llm.confidence), *alternatives]:
        if name is not None and name in service.routes and name not in found \
                and confidence >= service.intent_thresholds.get(name, 0.5):
            found[name] = confidence
    return by_rank([Intent(name, confidence, "llm") for name, confidence in found.items()],
                   service)


__all__ = ["ambiguous", "by_rank", "choose", "digression", "elsewhere", "gives_values", "guess",
           "leading", "llm_intent", "llm_ranked", "merge", "ordinal", "other_intent", "ranked",
           "settled", "several", "under_act"]
