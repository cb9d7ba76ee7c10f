"""An app + store + settings -> ``AppEngine``: the runtime's ``Engine`` API over many services.

Each turn: lock the app's record of the session, route the message (``router``), run the
chosen service's turn and relay its events as they come, then add to its DONE which service
answered (``state_snapshot.service``, and ``switched_from`` when the conversation moved) and
a ``router`` entry in ``_trace``, save the app record (service in progress, mid-flow or
not), send the DONE, and only then hand its hooks to the webhooks. ``AppEngine`` is a
``TurnEngine`` (``runtime/serving.py``), so everything serving a flow serves an app; what
is not the app's own (texts, settings, the flow the playground draws) is its first local
service's.
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import replace
from typing import Any, cast

from engine.app.callers import forwarded
from engine.app.checks import service_keywords
from engine.app.llm_router import LlmRouter, router_models
from engine.app.load import resolve_url
from engine.app.loaded import LoadedApp
from engine.app.remote import RemoteService
from engine.app.router import Route, Router
from engine.app.services import LocalService, Service
from engine.app.store import APP, AppStore, ServiceStore, key
from engine.compiler.compiled import CompiledService
from engine.config import Settings
from engine.errors import FlowRuntimeError
from engine.runtime.calls.folding import BackgroundFolds
from engine.runtime.calls.models import ModelPool
from engine.runtime.engine import Clock, plain_done, refusal_done, system_clock
from engine.runtime.serving import About, Skill, last_done
from engine.runtime.understanding.llm import LlmUnderstanding
from engine.runtime.values.admission import Refusal, admission, caller_of
from engine.runtime.values.events import Done, Event, wire
from engine.runtime.values.session import SessionState, StreamLog, replayed
from engine.runtime.webhooks import Webhooks, hooked_engine, targets
from engine.store.base import SessionStore

log = logging.getLogger("flowctl.app")

__all__ = ["AppEngine", "is_mid_flow"]


def is_mid_flow(done: Done) -> bool:
    """Whether the service is mid-flow: collecting slots, waiting for a yes or a
    choice, or working through a batch (read from its DONE, so a remote's counts too)."""
    snap: Mapping[str, Any] = done.state_snapshot
    return done.next_action in ("CONFIRM", "ASK_CONTINUE") or bool(snap.get("task_queue")) \
        or bool(snap.get("filling_turns")) \
        or any(v is not None for v in (snap.get("slots") or {}).values())


class AppEngine:
    """Routes each turn of an app to one of its services; a ``TurnEngine``."""

    def __init__(self, app: LoadedApp, *, store: SessionStore, settings: Settings | None = None,
                 clock: Clock = system_clock) -> None:
        settings = settings or Settings()
        self.app = app
        self.raw = store
        self.clock = clock
        sensitive = {name: compiled.sensitive for name, compiled in app.flows.items()}
        self.store = AppStore(store, sensitive)
        self.services: dict[str, Service] = {
            name: self._service(name, store, settings, clock) for name in app.spec.services}
        self.store.elsewhere = {n: s for n, s in self.services.items()
                                if not isinstance(s, LocalService)}
        self.locals = [s.engine for s in self.services.values() if isinstance(s, LocalService)]
        """The engines of the services run in this process, in the app's order."""
        first = self.locals[0]
        for engine in self.locals:  # one count of a caller's turns for the app
            engine.rate = first.rate
        self.first = first
        """The first local service: the app's texts, settings, models and drawn flow."""
        skills = tuple(Skill(n, s.description or n, tuple(s.keywords))
                       for n, s in app.spec.services.items())
        # any context object passes here: each local service checks it against its own schema
        self.about = About(app.spec.app, app.spec.description or "",
                           str(app.spec.version or "0"), {"type": "object"}, skills)
        self.router = Router({n: service_keywords(app, n) for n in app.spec.services},
                             app.spec.default)
        self.webhooks = Webhooks(targets(app.spec.hooks, settings.env, str(app.path)))
        self.router_models = router_models(app, settings.env)
        live = self.router_models.get("router") if self.router_models else None
        self.llm_router = LlmRouter(app, live, redact=not settings.dev_mode) if live else None

    @property
    def service(self) -> CompiledService:
        """The first local service's flow (the one the playground draws)."""
        return self.first.service

    @property
    def settings(self) -> Settings:
        return self.first.settings

    @property
    def models(self) -> ModelPool:
        return self.first.models

    @property
    def folds(self) -> BackgroundFolds:
        return self.first.folds

    def text(self, key: str, **values: Any) -> str:
        """A built-in text, or the first local service's message of the same name."""
        return self.first.text(key, **values)

    def admit(self, message: str, context: Mapping[str, Any] | None = None, *,
              session_id: str | None = None, owner: str | None = None) -> Refusal | None:
        """``Engine.admit`` for the app: any context object (its services check theirs);
        its local services share one rate (each counts the turns it runs)."""
        caller = caller_of(session_id, owner) if session_id is not None else None
        return admission(message, context, self.about.context_schema, rate=self.first.rate,
                         caller=caller, limit=self.settings.max_message_chars, text=self.text)

    async def refused(self, session_id: str, refusal: Refusal, owner: str | None, *,
                      turn_id: str | None = None, started: float | None = None) -> Done:
        """``Engine.refused`` over the app's record."""
        return await refusal_done(self.store, self.service, session_id, refusal, owner,
                                  turn_id=turn_id, started=started)

    async def reply(self, session_id: str, message: str, *, owner: str | None = None,
                    context: Mapping[str, Any] | None = None) -> Done:
        """Run a turn and return only its ``Done``."""
        return await last_done(self.turn(session_id, message, owner=owner, context=context))

    def _service(self, name: str, store: SessionStore, settings: Settings,
                 clock: Clock) -> Service:
        spec = self.app.spec.services[name]
        if spec.flow is not None:
            return LocalService(name, hooked_engine(self.app.flows[name],  # its own hooks too
                                                    store=ServiceStore(store, name),
                                                    settings=settings, clock=clock))
        url = self._url(spec.remote or spec.a2a or "", f"services.{name}", settings.env)
        api_key = settings.env.get(spec.api_key_env) if spec.api_key_env else None
        failed = self.app.spec.messages.remote_failed
        if spec.a2a is not None:
            from engine.app.a2a import A2AService  # the a2a-sdk only for apps that use it

            return A2AService(name, url, timeout=spec.timeout_sec, failed_text=failed,
                              api_key=api_key)
        return RemoteService(name, url, app=self.app.spec.app, timeout=spec.timeout_sec,
                             failed_text=failed, api_key=api_key,
                             forward=name in forwarded(settings.env))

    def _url(self, template: str, where: str, env: Mapping[str, str]) -> str:
        url = resolve_url(template, env)
        if url is None:
            raise FlowRuntimeError(f"{self.app.path}: {where} needs {template}, which is not "
                                   "set; set it (see docs/apps.md)")
        return url

    async def turn(self, session_id: str, message: str, *, owner: str | None = None,
                   stream: str | None = None,
                   context: Mapping[str, Any] | None = None,
                   understood: LlmUnderstanding | None = None) -> AsyncIterator[Event]:
        """Route and run one turn; yields the service's events, always ending with DONE
        (a store that cannot lock or load gives the runtime's failure DONE). ``stream``: the
        events are kept in the app record for ``replay``, as ``Engine.turn`` keeps them.
        ``context`` goes to the chosen service (a local one that declares a context schema,
        a remote one, an A2A agent). ``understood`` is not for an app (its router makes
        the understanding of a turn); it is ignored."""
        started = time.perf_counter()
        done: Done | None = None
        try:
            async with self.raw.lock(key(APP, session_id)):
                async for event in self._routed_turn(session_id, message, owner, started,
                                                     stream, context):
                    if isinstance(event, Done):
                        done = event
                    else:
                        yield event
        except Exception as err:
            log.error("app turn of session %s failed: %s: %s", session_id,
                      type(err).__name__, err)
            if done is None:
                done = plain_done(self.text("turn_failed"), SessionState(), self.service,
                                  f"{random.getrandbits(32):08x}", started, error="turn_failed")
        assert done is not None
        yield done
        self.webhooks.deliver(done.hooks, {"session_id": session_id,
                                           "service": done.state_snapshot.get("service"),
                                           "turn_id": done.trace.get("turn_id", "")})

    async def _routed_turn(self, session_id: str, message: str, owner: str | None,
                           started: float, stream: str | None = None,
                           context: Mapping[str, Any] | None = None) -> AsyncIterator[Event]:
        record = await self.raw.load(key(APP, session_id))
        state = dict(record.data) if record else {}
        if record is not None and state.get("owner") != owner:
            yield self._refused(started)
            return
        route = self.router.route(message, state.get("service"),
                                  mid_flow=bool(state.get("mid_flow")),
                                  suspended=state.get("suspended"))
        if route.reason == "default" and self.llm_router is not None:
            route = await self._by_model(message) or route
        done: Done | None = None
        sent: list[tuple[str, Any]] = []
        answer = self.services[route.service].turn(session_id, message, owner=owner,
                                                   context=context, understood=route.understood)
        async with contextlib.aclosing(cast(AsyncGenerator[Event, None], answer)) as events:
            async for event in events:
                if isinstance(event, Done):
                    done = event
                    break
                if stream is not None:
                    sent.append(wire(event))
                yield event
        assert done is not None, "a service's turn always ends with DONE"
        done = self._annotated(done, route, state.get("service"), started)
        after = self._next_state(state, route, owner, is_mid_flow(done))
        if stream is not None:
            after["stream"] = StreamLog(id=stream, events=[*sent, wire(done)])
        # a remote service's refusal comes over the wire: its DONE's `_trace.error` says it
        if done.trace.get("error") not in ("forbidden", "rate_limited") and after != state:
            try:
                await self.raw.commit(key(APP, session_id), after,
                                      expected_version=record.version if record else 0)
            except Exception as err:  # the service's turn is saved; only routing state is lost
                log.error("the app record of session %s was not saved: %s: %s", session_id,
                          type(err).__name__, err)
        yield done

    async def _by_model(self, message: str) -> Route | None:
        """No keyword claimed ``message``: a local service's intents, else the router model's
        one call (None when it cannot be asked: the default stands)."""
        assert self.llm_router is not None
        choice = self.llm_router.by_intents(message) or \
            await self.llm_router.choose(message, self.clock().date())
        if choice is None:
            return None
        return Route(choice.service, choice.reason, understood=choice.understood,
                     call=choice.call)

    @staticmethod
    def _next_state(state: Mapping[str, Any], route: Route, owner: str | None,
                    mid_flow: bool) -> dict[str, Any]:
        """The app record after a turn: who answered, whether it is mid-flow, and which
        service a switch left mid-flow (until it answers again)."""
        suspended = state.get("suspended")
        if route.reason == "switch":
            suspended = state.get("service")
        elif route.service == suspended:
            suspended = None
        return {"owner": owner, "service": route.service, "mid_flow": mid_flow,
                "suspended": suspended}

    def _refused(self, started: float) -> Done:
        turn_id = f"{random.getrandbits(32):08x}"  # a trace id, not a secret
        return plain_done(self.text("not_yours"), SessionState(), self.service, turn_id, started,
                          refusal=Refusal("forbidden", self.text("not_yours")))

    def _annotated(self, done: Done, route: Route, before: str | None, started: float) -> Done:
        """``done`` with the service that answered in its snapshot and a router trace entry."""
        snapshot: dict[str, Any] = {**done.state_snapshot, "service": route.service}
        if before is not None and before != route.service:
            snapshot["switched_from"] = before
        entry: dict[str, Any] = {"agent": "router", "elapsed_ms": 0.0, "success": True,
                                 "retries": 0, "error": None, "service": route.service,
                                 "reason": route.reason}
        if route.keyword:
            entry["keyword"] = route.keyword
        if route.call is not None:  # the router model's call: its provider, time and tokens
            entry = {**route.call, **entry, "elapsed_ms": route.call["elapsed_ms"],
                     "success": route.call["success"], "retries": route.call["retries"],
                     "error": route.call["error"]}
        trace = {**done.trace, "agents": [entry, *done.trace.get("agents", [])]}
        trace["total_elapsed_ms"] = round((time.perf_counter() - started) * 1000, 1)
        return replace(done, state_snapshot=snapshot,  # type: ignore[arg-type]
                       trace=trace)  # type: ignore[arg-type]

    async def replay(self, session_id: str, stream: str, after: int, *,
                     owner: str | None = None) -> list[tuple[int, str, Any]]:
        """``Engine.replay`` over the app record (where an app keeps its last stream)."""
        async with self.raw.lock(key(APP, session_id)):
            record = await self.raw.load(key(APP, session_id))
        if record is None or record.data.get("owner") != owner:
            return []
        return replayed(record.data.get("stream"), stream, after)

    async def finish_pending(self, session_id: str) -> Done | None:
        """``Engine.finish_pending`` in every local service of the app (the last DONE)."""
        done = None
        for engine in self.locals:
            done = await engine.finish_pending(session_id) or done
        return done

    async def prepare(self) -> None:
        """``Engine.prepare`` in every local service of the app."""
        for engine in self.locals:
            await engine.prepare()

    async def finish_all_pending(self) -> int:
        return sum([await engine.finish_all_pending() for engine in self.locals])

    async def may_use(self, session_id: str, owner: str | None) -> bool:
        record = await self.raw.load(key(APP, session_id))
        return record is None or record.data.get("owner") == owner

    async def delete(self, session_id: str, owner: str | None) -> bool:
        async with self.raw.lock(key(APP, session_id)):
            record = await self.raw.load(key(APP, session_id))
            if record is None or record.data.get("owner") != owner:
                return False
            for service in self.services.values():
                await service.delete(session_id, owner)
            return await self.store.delete(session_id)

    async def aclose(self) -> None:
        await self.webhooks.aclose()
        if self.router_models is not None:
            await self.router_models.close()
        for service in self.services.values():
            await service.aclose()
