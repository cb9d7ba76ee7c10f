"""A service's intents -> the verbs each flow is asked for with, and whether a flow acts.

The compiler gives each flow's stages its verbs (the one-word keywords of the intents routed
to it) so that "네 보내주세요" confirms and "보내지 마" cancels there, and tells the intent
rules which intents act (their flow confirms, then does something): a question to such an
intent is not a request of it.
"""

from __future__ import annotations

from engine.dsl import spec as s
from engine.nlu import asks


def acts(flow: str | None, spec: s.ServiceSpec) -> bool:
    """Whether ``flow`` does something once confirmed (it has a confirmation stage)."""
    target = spec.flows.get(flow or "")
    return target is not None and any(st.decide for st in target.stages.values())


def flow_verbs(name: str, spec: s.ServiceSpec) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The flow's own verbs for doing its thing: the one-word keywords of the intents that
    route to it ("보내", "이체", "send"), never a question word, so at its stages "네
    보내주세요" confirms and "보내지 마" cancels; and the verbs every one of those intents
    has, which alone may hold a cancel word that is then the flow's doing, not a cancel (a
    flow only for cancelling appointments is not cancelled by "cancel")."""
    keywords = [[k for k in spec.intents[intent].keywords if " " not in k.strip() and not asks(k)]
                for intent, flow in spec.routes.items() if flow == name and intent in spec.intents]
    verbs = tuple(dict.fromkeys(k for group in keywords for k in group))
    shared = tuple(k for k in verbs if all(k in group for group in keywords))
    return verbs, shared


__all__ = ["acts", "flow_verbs"]
