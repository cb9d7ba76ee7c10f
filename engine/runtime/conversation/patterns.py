"""The conversation patterns of a turn: route a new message, or handle one mid-flow.

``route``: no flow in progress — the message picks one (rules, then the turn's one LLM
call), asks "which one?" when intents tie, or queues several flows said in one message.
``mid_flow``: a flow in progress keeps its own answers; the answer to its own question
(go on? apply the correction?), a cancel that starts another flow, another flow's intent
or a question it cannot use start a flow on top. ``clarified``: the answer to "which
one?". The flow stack itself is ``turn/stack.py``; the turn's bookkeeping is ``turn_run.py``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from engine.compiler.compiled import CompiledFlow
from engine.nlu import cancel_first, names, only_reason, stopped_doing, yes_no
from engine.nlu.keywords import negates
from engine.nlu.money import names_a_share
from engine.nlu.phrases import is_question, is_social
from engine.nlu.reasons import answer_of
from engine.nlu.retractions import after_retraction
from engine.runtime.conversation.unwind import correct_caller
from engine.runtime.understanding import routing
from engine.runtime.understanding.refused import UnreadTime
from engine.runtime.understanding.understand import Intent, Understanding
from engine.runtime.values.events import AgentDone, AgentStart
from engine.runtime.values.session import Clarify

if TYPE_CHECKING:
    from engine.runtime.turn.run import Turn


async def route(run: Turn) -> None:
    """No flow in progress: the message picks one (or asks which one was meant)."""
    label = run.reply.label("intent")
    run.emit(AgentStart("intent", label))
    started = time.perf_counter()
    service = run.service
    ranked = routing.ranked(run.state.message, service) or \
        routing.leading(run.state.message, service)
    # rules under the intent's `act` bound are not sure: a configured model decides
    by_rules = bool(ranked) and not (run.engine.understanding is not None and
                                     routing.under_act(ranked[0], service))
    by_model = ranked if by_rules else await _by_model(run, ranked)
    if by_model is None:  # the model missed, and the turn said so
        run.tracer.step("intent", started)
        run.emit(AgentDone("intent", label, True, result=None))
        return
    intent = by_model[0] if by_model else Intent(None, 0.0)
    run.tracer.step("intent", started)["confidence"] = round(intent.confidence, 4)
    run.emit(AgentDone("intent", label, True, result=intent.name))
    await _start_routed(run, by_model, by_rules)


async def _by_model(run: Turn, ranked: list[Intent]) -> list[Intent] | None:
    """The model's ranking where the rules are not sure: read before the turn (an app's
    router), or by the turn's one call; the rules' own when no model is configured or its
    call failed quietly; None when it failed and the turn told the user so."""
    service = run.service
    if run.llm is not None:  # understood before the turn (an app)
        return routing.llm_ranked(service, run.llm)
    live = run.engine.understanding
    if live is None:
        return ranked
    routed = [service.flows[f] for f in dict.fromkeys(service.routes.values())]
    if await run.ask_llm(live, routed, current=None, answering=service.default_flow):
        return routing.llm_ranked(service, run.llm)
    if run.missed and _model_missed(run, run.state.message):
        return None
    return ranked


async def _start_routed(run: Turn, ranked: list[Intent], by_rules: bool) -> None:
    """Start the flow the message asked for: the first of several said in one message
    (the others queued), the one ``clarify.prefer`` takes, or the top intent unless the
    turn asks which one was meant or to confirm it."""
    service, message = run.service, run.state.message
    intent = ranked[0] if ranked else Intent(None, 0.0)
    parts = routing.several(message, service, run.state.now.date()) if by_rules else []
    if parts:
        (intent, message), later = parts[0], parts[1:]
        run.stack.queue([(service.routes[i.name or ""], text) for i, text in later])
    elif len(options := routing.ambiguous(ranked, service)) > 1:
        preferred = _preferred(run, options) or \
            routing.taken_by_one(options, ranked, message, service, run.state.now.date())
        if preferred is None:
            _ask_which(run, options, message)
            return
        intent = next(i for i in ranked if i.name == preferred)
    elif (whole := _whole(run, intent, message, by_rules)) is not None:
        intent = whole  # "medium, no extra cheese": every value the order needs
    elif _unsure(run, intent, message) or (intent.name is None and _leaning(run, message)):
        return
    flow = service.flows[service.routes.get(intent.name or "", service.default_flow)]
    if run.stack.start(flow, intent, "intent"):
        await run.work(message)


async def mid_flow(run: Turn) -> None:
    """A flow in progress: its own answers, a cancel, or another flow's intent on top."""
    state = run.state
    awaiting = state.session.meta.get("awaiting")
    if awaiting is not None and (moved := await _awaited(run, awaiting)) is not None:
        await run.settle(moved)
        return
    rules = run.rules(state.message)
    if await _cancelled(run, rules) or await correct_caller(run, rules):
        return  # correct_caller: a value of the flow that called this one
    other = await _elsewhere(run, rules)
    if other is not None:
        await _interrupt(run, other)
        return
    await run.work(state.message, rules)


async def _cancelled(run: Turn, rules: Understanding) -> bool:
    """A message that starts with a cancel: followed by another flow's request ("취소하고
    잔액 알려줘") the task is cancelled and that flow starts; followed only by why, the task
    is cancelled where the flow can be. True when the turn was that."""
    state = run.state
    words = state.stage.words or run.service.words
    if stopped_doing(state.message, words) is not None or \
            any(op.op == "clear" for op in rules.ops):
        return False  # "그만 물어보고 보내": stop asking; "never mind the date": that value
    rest = cancel_first(state.message, words)
    if rest is None or after_retraction(rest) is not None:
        return False  # "취소... 아니다 그냥 보내": the cancel taken back
    other = routing.other_intent(rest, run.service, state.flow)
    if other is not None:
        await run.settle(run.fire("cancel"))
        await _switch(run, other, "cancel and start")
        return True
    return only_reason(state.message, rest, words) and await _cancelled_with_reason(run, rest)


async def _elsewhere(run: Turn, rules: Understanding) -> Intent | None:
    """Another flow's request or a digression the flow in progress waits under (None: the
    message is the flow's own). A message whose values the task already has may be another
    flow's request ("그냥 에어팟 검색해줘"); one the rules settle is the flow's."""
    flow, message = run.state.flow, run.state.message
    if not flow.interruptible or run.stack.full():
        return None
    if _restated(run, rules) and \
            (other := routing.other_intent(message, run.service, flow)) is not None:
        return other
    if routing.settled(rules):
        return None
    return await _unsettled(run, flow)


async def _unsettled(run: Turn, flow: CompiledFlow) -> Intent | None:
    """What the rules could not settle: another flow's intent (by the rules, else by the
    turn's one model call), small talk the call answered, or a digression the rules see
    in a message that holds no answer."""
    service, message = run.service, run.state.message
    share = _share_answered(run)
    held = bool(run.state.stage.decide) and names.CONDITION.search(message) is not None
    other = None if share or held else routing.other_intent(message, service, flow)  # held:
    # a condition at a confirmation is of the task asked ("only if it hasnt shipped yet")
    if other is not None:
        return other
    live = run.engine.understanding
    if live is not None:
        routed = [flow, *(service.flows[f] for f in dict.fromkeys(service.routes.values())
                          if f != flow.name)]
        if await run.ask_llm(live, routed, current=flow, answering=service.patterns.chitchat):
            other = routing.elsewhere(routing.llm_intent(service, run.llm), service, flow)
            if other is not None:
                return other
    llm = run.llm if run.llm is not None and not run.llm.parse_error else None
    if llm is not None and run.answer is not None and run.answer.stream is not None:
        return Intent(None, 0.0, "digression")  # the one call answered it as small talk
    if (llm is None or not llm.ops) and not share and \
            routing.digression(message, service, run.state.stage, flow):
        return Intent(None, 0.0, "digression")  # the model, if asked, read no answer
    return None


def _share_answered(run: Turn) -> bool:
    """An amount asked for and answered as a share of a whole ("잔액 전부", "남은 돈 다",
    "all of it"): the flow's own answer, which no rule can count, never another flow's
    request for the words in it ("잔액" is the balance flow's)."""
    slot = run.service.slots.get(run.asked_slot) if run.asked_slot else None
    message = run.state.message
    return slot is not None and slot.spec.type == "money" and names_a_share(message) and \
        not is_question(message)


def _restated(run: Turn, rules: Understanding) -> bool:
    """The rules found only values the task already has ("에어팟" while the category is
    earphone): nothing for the flow, so the message may be another flow's request."""
    slots = run.state.session.slots
    return bool(rules.ops) and rules.decision is None and not rules.tasks and \
        all(op.op == "set" and slots.get(op.slot) == op.value for op in rules.ops)


async def _cancelled_with_reason(run: Turn, reason: str) -> bool:
    """A leading cancel followed only by why ("forget it, I don't need a new card"): no
    value, no other flow, no question — the task is cancelled, where the flow can be."""
    state = run.state
    stage = state.session.stage or state.flow.initial
    said = [op for text in (reason, state.message) for op in run.rules(text).ops
            if not isinstance(op.value, UnreadTime)]  # the message's own too: "dont use that
    # one, use 010-5656-7878" (a value the normalised words no longer show) is no cancel
    if said or not state.flow.machine.can(stage, "cancel"):  # "I'll do it later": no date
        return False
    run.reading["decision"] = "cancel"
    await run.settle(run.fire("cancel"))
    return True


async def _interrupt(run: Turn, other: Intent) -> None:
    """The flow in progress waits under ``other``'s flow (or the chit-chat flow's)."""
    run.stack.push("interrupted", other.reason or "intent")
    await _switch(run, other, other.reason or "intent")


async def _switch(run: Turn, intent: Intent, reason: str) -> None:
    """Start the flow ``intent`` routes to (the chit-chat flow for a digression)."""
    service = run.service
    name = service.routes.get(intent.name or "") or service.patterns.chitchat \
        or service.default_flow
    if run.stack.start(service.flows[name], intent, reason):
        await run.work(run.state.message)


async def _awaited(run: Turn, awaiting: str) -> bool | None:
    """The answer to the flow's own question (go on? apply the correction?): None when the
    message is no answer to it, else whether the stage changed (the turn is settled then)."""
    state = run.state
    correction = state.session.meta.get("correction")
    state.await_answer(None)
    words = run.service.patterns.resume if awaiting == "continue" else \
        (state.stage.words or run.service.words)
    answer = answer_of(state.message, words)  # "no, keep it": a no
    if answer is None and awaiting == "continue":  # "네 이체해주세요": a yes to going on, which
        answer = yes_no(state.message, state.stage.words or run.service.words)  # asks again
    if answer is None:
        return None
    run.reading["decision"] = answer
    if awaiting == "continue" or correction is None:
        return answer != "confirm" and run.fire("cancel")
    if answer == "confirm":  # every slot the message changed, together
        changes = correction.get("slots") or {correction["slot"]: correction}
        for name, change in changes.items():
            run.set_slot(name, change["new"], confirmed=True)
        return run.fire("update")
    if answer == "cancel":  # "취소" at "change it?" stops the task, as anywhere else
        return run.fire("cancel")
    if state.flow.correction_denied is not None:  # no: the values stay; said so
        state.show_correction(correction)  # the message may name the change refused
        run.reply.say(state.flow.correction_denied)
        state.show_correction(None)
    return False


def _whole(run: Turn, intent: Intent, message: str, by_rules: bool) -> Intent | None:
    """The intent whose flow the message gives every required value of, by its values
    alone (``routing.complete``), where no intent was named sure enough and no model
    decided otherwise; else None."""
    bounds = run.service.patterns.bands.get(intent.name or "")
    if intent.name is not None and (bounds is None or intent.confidence >= bounds[0]) or \
            not by_rules and run.engine.understanding is not None:
        return None
    whole = routing.complete(message, run.service, run.state.now.date())
    return whole if whole is not None and intent.name in (None, whole.name) else None


def _unsure(run: Turn, intent: Intent, message: str) -> bool:
    """Confidence bands: below the intent's `act` bound ask to confirm it, or below its
    `confirm` bound ask to say more (nothing is routed then); True when it asked."""
    patterns = run.service.patterns
    if intent.name is None and run.llm is not None and run.llm.intent in run.service.routes:
        intent = Intent(run.llm.intent, run.llm.confidence, "llm")  # below its threshold
    if intent.name is None and patterns.clarify_unmatched and not run.asked and \
            not is_social(message):  # a request, however vague, that names nothing
        run.tracer.tag("INTENT_LOW_CONFIDENCE")
        run.reply.say(patterns.low_confidence)
        return True
    bounds = patterns.bands.get(intent.name or "")
    if bounds is None or intent.confidence >= bounds[0]:
        return False
    run.state.name_intent(intent)  # the question sees turn.intent and turn.confidence
    if intent.confidence < bounds[1]:
        run.tracer.tag("INTENT_LOW_CONFIDENCE")
        run.reply.say(patterns.low_confidence)
    else:
        run.state.session.clarify = Clarify(options=[intent.name or ""], message=message,
                                            attempts=0)
        run.reply.say(patterns.confirm_ask)
    return True


def _leaning(run: Turn, message: str) -> bool:
    """Offline, a message no intent takes that the rules half-understood — a value only one
    flow takes ("5만원", "u482"), a keyword under its threshold — is asked about ("혹시 돈을
    보내는 요청 말씀이신가요?") rather than answered with the default flow; not when it is
    small talk, negated ("보내지 마"), or hedged (a condition, someone else's words, money
    already sent). True when asked."""
    if run.engine.understanding is not None or is_social(message) or negates(message) or \
            names.hedged(message):
        return False  # a model decides (or missed, and said so); nobody asks for it
    return _ask_leaning(run, message)


def _model_missed(run: Turn, message: str) -> bool:
    """The model was asked and gave no usable answer in time: the user is told so, and a
    message the rules half-understood (a keyword in a question, an amount) is asked about
    rather than answered with the default flow's menu; True when it asked."""
    run.reply.parts.append(run.engine.text("model_missed"))
    run.missed = False  # told
    return _ask_leaning(run, message)


def _ask_leaning(run: Turn, message: str) -> bool:
    leaning = routing.guess(message, run.service, run.state.now.date())
    if leaning is None or leaning.name is None:
        return False
    name, options = leaning.name, routing.tied(message, run.service, leaning)
    if len(options) > 1:  # "where is my new card?": which one, unless the service prefers one
        name = _preferred(run, options) or ""
        if not name:
            _ask_which(run, options, message)
            return True
        leaning = Intent(name, leaning.confidence, leaning.reason)
    run.state.name_intent(leaning)
    run.state.session.clarify = Clarify(options=[name], message=message, attempts=0)
    _did_you_mean(run, name)
    return True


def _did_you_mean(run: Turn, name: str) -> None:
    """Ask whether the message asks for intent ``name``: the service's ``confirm_ask``, or
    the ``did_you_mean`` text with the intent's description."""
    if run.service.patterns.confirm_ask is not None:
        run.reply.say(run.service.patterns.confirm_ask)
        return
    intent = run.service.spec.intents.get(name)
    what = (intent.description if intent is not None and intent.description
            else f"'{run.reply.labels([name])[0]}'")
    run.reply.parts.append(run.engine.text("did_you_mean", option=what))


def _preferred(run: Turn, options: list[str]) -> str | None:
    """The option ``patterns.clarify.prefer`` takes without asking (its condition holds)."""
    prefer = run.service.patterns.clarify_prefer
    view = run.state.view()
    return next((o for o in options if o in prefer and prefer[o].render(view)), None)


def _ask_which(run: Turn, options: list[str], message: str) -> None:
    """Several intents fit about equally well: ask which one was meant."""
    run.state.session.clarify = Clarify(options=options, message=message, attempts=0)
    run.tracer.tag("MULTIPLE_INTENTS_CONFLICT")
    run.reply.say_which(options)


async def clarified(run: Turn) -> None:
    """The answer to "which one?": start that flow with the first message's words."""
    session, service = run.state.session, run.service
    clarify = session.clarify
    assert clarify is not None
    choice = routing.choose(run.state.message, clarify["options"], service)
    if choice is None and len(clarify["options"]) == 1:  # "did you mean …?" (bands)
        answer = yes_no(run.state.message, service.words)
        if answer == "confirm":
            choice = clarify["options"][0]
        elif answer is None and routing.gives_values(run.state.message, service,
                                                     clarify["options"][0],
                                                     run.state.now.date()):
            choice = clarify["options"][0]  # "to Jake, 35k": the request's values, its yes
        elif answer is not None:  # no: ask to say more, or the default flow answers
            session.clarify = None
            if service.patterns.low_confidence is not None:
                run.reply.say(service.patterns.low_confidence)
            elif run.stack.start(service.flows[service.default_flow], Intent(None, 0.0),
                                 "declined"):
                await run.work(clarify["message"])
            return
    if choice is None and routing.ranked(run.state.message, service):
        session.clarify = None  # not an answer but a new request: route it afresh
        await route(run)
        return
    if choice is None and yes_no(run.state.message, service.words) != "cancel":
        clarify["attempts"] += 1
        if clarify["attempts"] < service.patterns.clarify_limit:
            run.tracer.tag("MULTIPLE_INTENTS_CONFLICT")
            if len(clarify["options"]) == 1:  # "did you mean …?" asked again, as it was
                _did_you_mean(run, clarify["options"][0])
            else:
                run.reply.say_which(clarify["options"])
            return
        session.clarify = None
        handoff = service.patterns.handoff or service.default_flow
        if run.stack.start(service.flows[handoff], Intent(None, 0.0), "handoff"):
            await run.work(run.state.message)
        return
    session.clarify = None
    if choice is None:  # "never mind": nothing starts; the default flow answers
        if run.stack.start(service.flows[service.default_flow], Intent(None, 0.0), "cancel"):
            await run.work(run.state.message)
        return
    flow = service.flows[service.routes[choice]]
    if run.stack.start(flow, Intent(choice, 1.0, "clarified"), "clarified"):
        await run.work(_request(run, clarify["message"]))


def _request(run: Turn, first: str) -> str:
    """What the chosen flow reads: the answer when it is a request with values of its own
    ("send 40k to mom" after "did you mean a transfer?" of "mom sent me 100k yesterday"),
    else the first message, which the question was about ("yes", "the transfer")."""
    said = run.state.message
    return said if any(op.op == "set" for op in run.rules(said).ops) else first


def read_on_link(run: Turn) -> None:
    """A linked flow reads the message that led to the link for its own slots, as if that
    message had started it ("I lost my card": the lost flow links to the replacement,
    whose reason is then "lost")."""
    for op in run.rules(run.state.message).ops:
        if op.op == "set":
            run.set_slot(op.slot, op.value)


__all__ = ["clarified", "mid_flow", "read_on_link", "route"]
