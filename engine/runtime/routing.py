"""(message, service, current flow) -> which flow should take the message.

Used by the turn before any LLM call: the intents a message names (best first), several
flows asked for in one message ("잔액 확인하고 엄마한테 만원 보내줘"), intents that fit about
equally well (a clarification), another flow's intent in the middle of a flow (an
interruption), a question the current flow cannot use (a digression), and the answer to
"which one?".
"""

from __future__ import annotations

import re

from engine.compiler.compiled import CompiledFlow, CompiledService, CompiledStage
from engine.nlu import classify
from engine.nlu.words import normalise
from engine.runtime.llm import LlmUnderstanding
from engine.runtime.understand import Intent, Understanding

_PARTS = re.compile(r"\s*(?:,|그리고|그 다음에?|다음에|\band then\b|\bthen\b|\band\b)\s*"
                    r"|(?<=[가-힣])(?:하고|고)\s+", re.IGNORECASE)
_QUESTION = re.compile(r"(?:[?？]|나요|까요?|니까|어때요?|뭐야|뭐예요|인가요?|는지|니)"
                       r"\s*[.!~]*\s*$")
_EN_QUESTION = re.compile(r"^(?:what|how|why|when|where|who|which|can|could|do|does|is|are|"
                          r"tell me)\b", re.IGNORECASE)
_ORDINALS = {"1": 0, "첫": 0, "first": 0, "2": 1, "두": 1, "둘": 1, "second": 1, "3": 2,
             "세": 2, "셋": 2, "third": 2}


def ranked(message: str, service: CompiledService) -> list[Intent]:
    """The routed intents whose rules match ``message`` over their threshold, best first."""
    out = []
    for score in classify(message, service.intents):
        if score.name in service.routes and \
                score.confidence >= service.intent_thresholds.get(score.name, 0.5):
            out.append(Intent(score.name, score.confidence, score.reason))
    return out


def ambiguous(candidates: list[Intent], service: CompiledService) -> list[str]:
    """Intents of different flows as likely as the best one (same priority, within the
    clarification margin): the user is asked which one was meant."""
    if len(candidates) < 2:
        return []
    priority = {rule.name: rule.priority for rule in service.intents}
    best = candidates[0]
    margin = service.patterns.clarify_margin
    flows: dict[str, str] = {}
    for intent in candidates:
        name = intent.name or ""
        if best.confidence - intent.confidence <= margin and \
                priority.get(name) == priority.get(best.name or ""):
            flows.setdefault(service.routes[name], name)
    return list(flows.values()) if len(flows) > 1 else []


def several(message: str, service: CompiledService) -> list[tuple[Intent, str]]:
    """(intent, the words said for it) for each part of ``message`` that asks for another
    flow, in the order said, when there are two or more; else []."""
    parts = [p for p in _PARTS.split(message) if p and p.strip()]
    if len(parts) < 2:
        return []
    found: list[tuple[Intent, str]] = []
    for part in parts:
        intents = ranked(part, service)
        if intents:
            found.append((intents[0], part.strip()))
        elif found:  # words with no intent of their own belong to the part before
            intent, text = found[-1]
            found[-1] = (intent, f"{text} {part.strip()}")
    flows = [service.routes[i.name or ""] for i, _ in found]
    if len(found) < 2 or len(set(flows)) != len(flows):
        return []
    return found


def elsewhere(intent: Intent, service: CompiledService, flow: CompiledFlow) -> Intent | None:
    """``intent`` when it routes to another flow than ``flow``."""
    target = service.routes.get(intent.name or "")
    return intent if target is not None and target != flow.name else None


def other_intent(message: str, service: CompiledService, flow: CompiledFlow) -> Intent | None:
    """The best rule intent of ``message`` when it routes away from ``flow``."""
    intents = ranked(message, service)
    return elsewhere(intents[0], service, flow) if intents else None


def digression(message: str, service: CompiledService, stage: CompiledStage,
               flow: CompiledFlow) -> bool:
    """A question the flow could not use, outside a confirmation: the chit-chat flow
    answers it and the flow resumes after."""
    chitchat = service.patterns.chitchat
    if chitchat is None or chitchat == flow.name or stage.decide:
        return False
    text = message.strip()
    return bool(_QUESTION.search(text) or _EN_QUESTION.match(text))


def choose(message: str, options: list[str], service: CompiledService) -> str | None:
    """Which of ``options`` (intent names) the answer to "which one?" picks, or None."""
    text = normalise(message)
    for name in options:
        label = normalise(service.patterns.labels.get(name, name))
        if text and (text == label or label in text or normalise(name) == text):
            return name
    for token in text.split():
        index = next((i for word, i in _ORDINALS.items() if token.startswith(word)), None)
        if index is not None and index < len(options):
            return options[index]
    best = next((i.name for i in ranked(message, service) if i.name in options), None)
    return best


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


__all__ = ["ambiguous", "choose", "digression", "elsewhere", "llm_intent", "merge",
           "other_intent", "ranked", "settled", "several"]
