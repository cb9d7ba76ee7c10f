"""(message no rule routed, an app's services) -> the service AND its understanding: one call.

The keyword router settles most messages for free. With a ``router:`` model, a message it
sends to the default only for want of a match is tried against each local service's own
intents (their keywords, patterns and examples: still no call); only when none claims it is
the model asked, once, with every service and the intents and slots of every local one in
one prompt. Its reply names the service and carries the intent and slot operations for
it, which that service's engine takes instead of making its own understanding call
(``Engine.turn(understood=...)``), so a routed turn costs exactly one call. A reply that is
not usable (no JSON, an unknown service, a provider error) routes to the default service,
which then makes no call either: the turn's one call has been spent.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.app.checks import service_keywords
from engine.app.loaded import LoadedApp
from engine.app.router import Reason
from engine.compiler.compiled import CompiledService
from engine.compiler.filters import GLOBALS
from engine.compiler.rendering import Compiled
from engine.errors import ProviderError
from engine.providers.base import ChatMessage, ChatRequest
from engine.runtime.calls.agent import JsonCheck, ModelCall
from engine.runtime.calls.models import LiveModel, ModelPool
from engine.runtime.calls.trace import Tracer
from engine.runtime.understanding.llm import (
    UNDERSTANDING_SCHEMA,
    LlmUnderstanding,
    model_slots,
    parse_understanding,
)
from engine.runtime.understanding.routing import ranked
from engine.runtime.values.events import TraceEntry

__all__ = ["Choice", "LlmRouter", "ROUTER_SCHEMA", "router_models"]

ROUTER_SCHEMA: dict[str, Any] = {
    **UNDERSTANDING_SCHEMA,
    "properties": {"service": {"type": "string"}, **UNDERSTANDING_SCHEMA["properties"]},
    "required": ["service"],
}
_CHECK = JsonCheck(ROUTER_SCHEMA)


@dataclass(frozen=True, slots=True)
class Choice:
    """Where the message goes: by a local service's intents (no call) or by the model."""

    service: str
    reason: Reason
    """``intent``, ``llm`` or ``llm_failed`` (the default answers: the reply was unusable)."""
    understood: LlmUnderstanding | None = None
    """For a local service after a call: what it uses instead of its own call."""
    call: TraceEntry | None = None


@lru_cache(maxsize=1)
def _prompt() -> Compiled:
    from engine.compiler.templates import compile_template  # jinja2: its loops need it

    path = Path(__file__).resolve().parents[1] / "data" / "app_router.j2"
    return compile_template(path.read_text(encoding="utf-8"))


def router_models(app: LoadedApp, env: Mapping[str, str]) -> ModelPool | None:
    """The router's model as a one-model pool (provider keys, ``FLOWCTL_MODEL_ROUTER``,
    offline without a key, exactly as a flow's models); None when the app has no router."""
    if app.spec.router is None:
        return None
    first = next(iter(app.flows.values()))
    # a pool is built from a compiled service: lend it the first one, with only this model
    holder = replace(first, models={"router": app.spec.router.model}, base_dir=app.path.parent)
    return ModelPool(holder, env)


class LlmRouter:
    """The app's services as the router model sees them, built once; ``choose`` per message."""

    def __init__(self, app: LoadedApp, live: LiveModel, *, redact: bool = True) -> None:
        self.app, self.live, self.redact = app, live, redact
        self.local: dict[str, CompiledService] = dict(app.flows)
        self.view = {"app": app.spec.app, "description": app.spec.description,
                     "default": app.spec.default,
                     "services": [self._service_view(name) for name in app.spec.services]}

    def _service_view(self, name: str) -> dict[str, Any]:
        spec, compiled = self.app.spec.services[name], self.local.get(name)
        view: dict[str, Any] = {"name": name, "description": spec.description,
                                "keywords": service_keywords(self.app, name),
                                "intents": {}, "slots": []}
        if compiled is not None:
            view["intents"] = {i: compiled.spec.intents[i] for i in compiled.intent_names
                               if i in compiled.routes}
            view["slots"] = [{"name": n, "type": compiled.slots[n].spec.type,
                              "description": compiled.slots[n].spec.description,
                              "choices": list(compiled.slots[n].spec.values or {})}
                             for n in _slot_names(compiled)]
        return view

    def by_intents(self, message: str) -> Choice | None:
        """The first local service (in file order) whose own intents claim ``message``."""
        for name, compiled in self.local.items():
            if self.app.spec.services[name].intents and ranked(message, compiled):
                return Choice(name, "intent")
        return None

    async def choose(self, message: str, today: dt.date) -> Choice | None:
        """The service for ``message`` and its understanding, by one call; None when the
        model cannot be asked now (its circuit is open): the rules' default stands."""
        if not self.live.breaker.allow():
            return None
        call = ModelCall(self.live, "router", Tracer(redact=self.redact))
        prompt = _prompt()
        request = ChatRequest(system=prompt.render({**GLOBALS, **self.view,
                                                       "today": today.isoformat()}),
                              messages=(ChatMessage(role="user", content=message),),
                              json_output=True)
        try:
            obj = await call.json(request, _CHECK, attempts=1)
        except ProviderError as err:
            call.failed(err)
            return self._fallback(call)
        self.live.breaker.success()
        service = obj.get("service") if obj is not None else None
        if obj is None or service not in self.app.spec.services:
            if obj is not None and call.last is not None:
                call.tracer.unusable(call.last, f"unknown service {service!r}")
            return self._fallback(call)
        compiled = self.local.get(str(service))
        understood = None if compiled is None else _understood(obj, compiled)
        return Choice(str(service), "llm", understood, call.last)

    def _fallback(self, call: ModelCall) -> Choice:
        """The default service, told the message was read (so it makes no second call)."""
        default = self.app.spec.default
        understood = LlmUnderstanding() if default in self.local else None
        return Choice(default, "llm_failed", understood, call.last)


def _slot_names(compiled: CompiledService) -> list[str]:
    return model_slots(compiled, compiled.flows.values())


def _understood(obj: Mapping[str, Any], compiled: CompiledService) -> LlmUnderstanding:
    """The reply read as the chosen service's own understanding call would be read; an
    intent that is not one of its routed intents is dropped."""
    result = parse_understanding(obj, _slot_names(compiled))
    if result.intent not in compiled.routes:
        result.intent = None
    return result
