"""DONE's hooks -> signed HTTP POSTs to the hook handlers of a flow or an app, after the turn
is saved.

Each hook a DONE carries may have a server-side handler; here a handler is a webhook,
declared under ``hooks:`` in a flow file (``hooked_engine``: what ``flowctl serve
FLOW.yaml`` runs, the engine telling ``FlowHooks`` of each DONE) or an app file
(``engine.app.engine.AppEngine``). ``Webhooks.deliver``
only schedules: each delivery runs in a task of its own, so a slow or dead endpoint never
delays or breaks a turn. Each attempt has a timeout; a failed
one (connection error, timeout, 5xx, 429) is retried with exponential backoff and jitter
(tenacity); a 4xx other than 429 is final. The body is JSON ``{id, type, data, session_id,
service, turn_id}``; with a secret, ``X-Flowctl-Signature: sha256=<hex HMAC of the body>``.
``X-Flowctl-Delivery`` (the ``id``) lets a receiver drop a repeated delivery. Every attempt
is logged (logger ``flowctl.hooks``) and kept in ``log``.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
import uuid
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.compiler.compiled import CompiledService
from engine.config import Settings
from engine.dsl.hooks import HookSpec, resolve_url
from engine.errors import FlowRuntimeError
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done, Hook

log = logging.getLogger("flowctl.hooks")

__all__ = ["Attempt", "FlowHooks", "Target", "Webhooks", "flow_hooks", "hooked_engine",
           "signature", "targets"]


def signature(secret: str, body: bytes) -> str:
    """The ``X-Flowctl-Signature`` value of ``body``: ``sha256=`` + hex HMAC-SHA256."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


@dataclass(frozen=True, slots=True)
class Target:
    """A hook handler, its URL and secret read from the environment."""

    url: str
    spec: HookSpec
    secret: str | None = None

    def wants(self, hook_type: str) -> bool:
        return not self.spec.types or hook_type in self.spec.types


def targets(hooks: Sequence[HookSpec], env: Mapping[str, str], where: str) -> list[Target]:
    """The handlers ``hooks`` declare, their URLs and secrets read from ``env`` now;
    FlowRuntimeError (one line naming ``where``, the file) when a variable is not set."""
    out = []
    for index, spec in enumerate(hooks):
        url = resolve_url(spec.url, env)
        if url is None:
            raise FlowRuntimeError(f"{where}: hooks[{index}] needs {spec.url}, which is not "
                                   "set; set it where the server runs")
        secret = env.get(spec.secret_env) if spec.secret_env else None
        if spec.secret_env and not secret:
            raise FlowRuntimeError(f"{where}: hooks[{index}] signs with {spec.secret_env}, "
                                   "which is not set")
        out.append(Target(url, spec, secret))
    return out


@dataclass(frozen=True, slots=True)
class Attempt:
    """One line of the delivery log."""

    delivery: str
    url: str
    type: str
    attempt: int
    status: int | None
    error: str | None
    elapsed_ms: float


if TYPE_CHECKING:
    import httpx


class _Retryable(Exception):
    pass


def _retryable(err: BaseException) -> bool:
    import httpx

    return isinstance(err, _Retryable | httpx.TransportError)


class Webhooks:
    """Delivers hooks to ``targets`` in the background; ``drain`` waits for the rest."""

    def __init__(self, targets: Sequence[Target], *, client: httpx.AsyncClient | None = None,
                 keep: int = 1000) -> None:
        import httpx  # here, not at import: importing httpx loads rich and pygments (its CLI)

        self.targets = tuple(targets)
        self.client = client or httpx.AsyncClient()
        self.log: deque[Attempt] = deque(maxlen=keep)
        self.running: set[asyncio.Task[None]] = set()

    def deliver(self, hooks: Sequence[Hook], context: Mapping[str, Any]) -> None:
        """Schedule every hook for every target that wants it; returns at once."""
        for hook in hooks:
            for target in self.targets:
                if target.wants(hook["type"]):
                    body = {"id": uuid.uuid4().hex, "type": hook["type"], "data": hook["data"],
                            **context}
                    task = asyncio.create_task(self._send(target, body))
                    self.running.add(task)
                    task.add_done_callback(self.running.discard)

    async def _send(self, target: Target, body: dict[str, Any]) -> None:
        data = json.dumps(body, ensure_ascii=False, default=str).encode()
        headers = {"Content-Type": "application/json", "X-Flowctl-Delivery": body["id"],
                   "X-Flowctl-Hook": body["type"]}
        if target.secret:
            headers["X-Flowctl-Signature"] = signature(target.secret, data)
        spec = target.spec
        from tenacity import (  # imported by the first delivery, not by every server
            AsyncRetrying,
            retry_if_exception,
            stop_after_attempt,
            wait_exponential,
            wait_random,
        )

        try:
            retrying = AsyncRetrying(stop=stop_after_attempt(spec.retries + 1),
                                     wait=wait_exponential(multiplier=spec.backoff_sec)
                                     + wait_random(0, spec.backoff_sec),
                                     retry=retry_if_exception(_retryable), reraise=True)
            async for attempt in retrying:
                with attempt:
                    await self._attempt(target, body, data, headers,
                                        attempt.retry_state.attempt_number)
        except Exception as err:  # given up: logged; the turn was never waiting for it
            log.warning("hook %s (%s) to %s not delivered: %s", body["type"], body["id"],
                        target.url, err)

    async def _attempt(self, target: Target, body: Mapping[str, Any], data: bytes,
                       headers: Mapping[str, str], number: int) -> None:
        import httpx

        started = time.perf_counter()
        status: int | None = None
        error: str | None = None
        try:
            response = await self.client.post(target.url, content=data, headers=headers,
                                              timeout=target.spec.timeout_sec)
            status = response.status_code
            if status >= 500 or status == 429:
                error = f"HTTP {status}"
                raise _Retryable(error)
            if status >= 400:
                error = f"HTTP {status}"
        except httpx.TransportError as err:
            error = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
            raise
        finally:
            entry = Attempt(str(body["id"]), target.url, str(body["type"]), number, status,
                            error, round((time.perf_counter() - started) * 1000, 1))
            self.log.append(entry)
            log.info("hook %s %s attempt %d to %s: %s", entry.type, entry.delivery, number,
                     target.url, error or f"HTTP {status}")

    async def drain(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for deliveries still running, then cancel them."""
        if self.running:
            _, late = await asyncio.wait(set(self.running), timeout=timeout)
            for task in late:
                task.cancel()

    async def aclose(self, timeout: float = 5.0) -> None:
        await self.drain(timeout)
        await self.client.aclose()


@dataclass(slots=True)
class FlowHooks:
    """A flow's webhooks as a listener of its engine: each DONE's hooks delivered (only
    scheduled: the turn waits for no endpoint) once the turn was saved."""

    webhooks: Webhooks
    service: str

    def done(self, session_id: str, done: Done) -> None:
        self.webhooks.deliver(done.hooks, {"session_id": session_id, "service": self.service,
                                           "turn_id": done.trace.get("turn_id", "")})

    async def aclose(self) -> None:
        await self.webhooks.aclose()


def hooked_engine(service: CompiledService, *, settings: Settings | None = None,
                  **options: Any) -> Engine:
    """An ``Engine`` for ``service`` that also delivers DONE's hooks to the flow file's
    ``hooks:`` handlers (what ``flowctl serve FLOW.yaml`` runs); a plain one when the file
    declares none. A handler whose URL variable is unset is a FlowRuntimeError here."""
    settings = settings or Settings()
    found = targets(service.spec.hooks, settings.env, service.source.file)
    listeners = [FlowHooks(Webhooks(found), service.name)] if found else []
    return Engine(service, settings=settings, listeners=listeners, **options)


def flow_hooks(engine: Engine) -> FlowHooks | None:
    """The flow's webhooks ``engine`` delivers to, if any."""
    return next((h for h in engine.listeners if isinstance(h, FlowHooks)), None)
