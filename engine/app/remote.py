"""(session, message) -> a remote server's ``/v1/agent/chat/stream`` -> the same Events.

Any server speaking flowctl's wire protocol (another ``flowctl serve``, or any other
implementation of it) becomes a service of the app. Events are relayed as they arrive, in
order, unchanged; the session id is mapped (one remote session per caller and session, so
two callers' ``user-1`` never meet at the remote); the key the operator configured goes
along as ``Authorization: Bearer``, or the caller's own credentials when the operator
allows it (``engine.app.callers``). A refused connection, a timeout (connecting, or waiting
for the next event), an HTTP error, a stream that breaks or ends without DONE, or one that
is not the protocol: the turn ends with a DONE saying the service did not answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any, cast

import httpx
from httpx_sse import SSEError, aconnect_sse

from engine.app.callers import caller_authorization
from engine.app.services import failure_done
from engine.runtime.values.events import (
    AgentDone,
    AgentStart,
    Done,
    Event,
    LlmDone,
    LlmToken,
    StateSnapshot,
    TaskProgress,
    Trace,
    UiHint,
)

log = logging.getLogger("flowctl.app")
LOOKUP_SECONDS = 3.0
"""Longest wait for a remote's completed tasks: a dead remote must not hold /completed."""

__all__ = ["RemoteService", "from_wire", "remote_session"]


class Malformed(Exception):
    """The remote stream is not the protocol (unknown event, payload of the wrong shape)."""


def remote_session(app: str, session_id: str, owner: str | None) -> str:
    """The remote's session id of ``session_id`` of ``owner``: stable, and distinct for
    every (owner, session) pair (an unguessable 160-bit digest)."""
    digest = hashlib.sha256(f"{owner or ''}\0{session_id}".encode()).hexdigest()[:40]
    return f"{app}-{digest}"


def from_wire(name: str, data: str) -> Event:
    """An SSE frame of the protocol -> its Event; Malformed when it is not one."""
    try:
        payload = json.loads(data)
        return _event(name, payload)
    except (ValueError, KeyError, TypeError) as err:
        raise Malformed(f"{name}: {err}") from None


def _event(name: str, p: Any) -> Event:
    if name == "LLM_TOKEN":
        if not isinstance(p, str):
            raise TypeError("LLM_TOKEN is not a string")
        return LlmToken(p)
    if not isinstance(p, dict):
        raise TypeError(f"{name} payload is not an object")
    if name == "AGENT_START":
        return AgentStart(str(p["agent"]), str(p.get("label", "")))
    if name == "AGENT_DONE":
        return AgentDone(str(p["agent"]), str(p.get("label", "")), bool(p["success"]),
                         p.get("stage"), p.get("result"))
    if name == "LLM_DONE":
        return LlmDone(p)
    if name == "TASK_PROGRESS":
        return TaskProgress(int(p["index"]), int(p["total"]), dict(p.get("slots") or {}))
    if name == "DONE":
        return _done(p)
    raise KeyError(f"unknown event {name!r}")


def _done(p: dict[str, Any]) -> Done:
    """The remote's DONE as it sent it (its snapshot and trace are passed on unchanged)."""
    hint = p.get("ui_hint") or {}
    trace = p.get("_trace") or {"turn_id": "", "total_elapsed_ms": 0.0, "agents": []}
    return Done(message=str(p["message"]), next_action=str(p["next_action"]),
                ui_hint=UiHint(buttons=list(hint.get("buttons") or [])),
                state_snapshot=cast(StateSnapshot, dict(p.get("state_snapshot") or {})),
                hooks=list(p.get("hooks") or []), trace=cast(Trace, dict(trace)),
                requires_confirmation=_flag(p.get("requires_confirmation")),
                next_suggested_actions=[str(a) for a in p.get("next_suggested_actions") or []])


def _flag(value: Any) -> bool | None:
    """A remote's ``requires_confirmation``; None (from next_action) when it sent none."""
    return value if isinstance(value, bool) else None


class RemoteService:
    """A service on another server, over ``POST {base}/chat/stream``."""

    def __init__(self, name: str, base_url: str, *, app: str, timeout: float,
                 failed_text: str, api_key: str | None = None, forward: bool = False,
                 client: httpx.AsyncClient | None = None) -> None:
        """``api_key``: sent as ``Authorization: Bearer``; ``forward``: the caller's own
        ``Authorization`` goes instead, when the request has one (the operator's choice)."""
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.app = app
        self.timeout = timeout
        self.failed_text = failed_text
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.forward = forward
        self.client = client or httpx.AsyncClient(timeout=httpx.Timeout(timeout))

    async def turn(self, session_id: str, message: str, *, owner: str | None = None,
                   context: Mapping[str, Any] | None = None,
                   understood: object = None) -> AsyncIterator[Event]:
        """The remote's turn; the request ``context`` goes along in the body."""
        started = time.perf_counter()
        body: dict[str, Any] = {"session_id": remote_session(self.app, session_id, owner),
                                "message": message}
        if context is not None:
            body["context"] = dict(context)
        try:
            async with contextlib.aclosing(self._relay(body)) as events:
                async for event in events:
                    yield event
                    if isinstance(event, Done):
                        return
            error = "the stream ended without DONE"
        except (TimeoutError, httpx.TimeoutException):
            error = f"no answer within {self.timeout:g} s"
        except (httpx.HTTPError, SSEError, Malformed) as err:
            error = f"{type(err).__name__}: {err}"[:300]
        log.warning("remote service %s (%s) failed: %s", self.name, self.base_url, error)
        turn_id = f"{random.getrandbits(32):08x}"  # a trace id, not a secret
        yield failure_done(self.failed_text.replace("{service}", self.name), self.name,
                           started, turn_id, error)

    async def _relay(self, body: Mapping[str, Any]) -> AsyncGenerator[Event, None]:
        async with asyncio.timeout(self.timeout) as deadline:
            async with aconnect_sse(self.client, "POST", f"{self.base_url}/chat/stream",
                                    json=body, headers=self._headers()) as source:
                if source.response.status_code != 200:
                    await source.response.aread()
                    raise httpx.HTTPStatusError(
                        f"HTTP {source.response.status_code}: {source.response.text[:200]}",
                        request=source.response.request, response=source.response)
                frames = source.aiter_sse()
                try:
                    async for sse in frames:
                        event = from_wire(sse.event, sse.data)
                        deadline.reschedule(None)  # the consumer's time is not the remote's
                        yield event
                        # the timeout is the longest wait for the next event, not for all
                        deadline.reschedule(asyncio.get_running_loop().time() + self.timeout)
                finally:
                    await frames.aclose()

    def _headers(self) -> dict[str, str]:
        caller = caller_authorization() if self.forward else None
        return {"Authorization": caller} if caller else dict(self.headers)

    async def completed(self, session_id: str, owner: str | None) -> list[dict[str, Any]]:
        """The remote's completed tasks of this session ([] when it cannot say)."""
        params = {"session_id": remote_session(self.app, session_id, owner)}
        try:
            response = await self.client.get(f"{self.base_url}/completed", params=params,
                                             headers=self._headers(),
                                             timeout=min(self.timeout, LOOKUP_SECONDS))
            tasks = response.json().get("completed", []) if response.status_code == 200 else []
        except (httpx.HTTPError, ValueError, AttributeError) as err:
            log.warning("completed tasks of remote service %s unknown: %s", self.name, err)
            return []
        return [t for t in tasks if isinstance(t, dict)]

    async def delete(self, session_id: str, owner: str | None) -> None:
        mapped = remote_session(self.app, session_id, owner)
        try:
            await self.client.delete(f"{self.base_url}/sessions/{mapped}",
                                     headers=self._headers())
        except httpx.HTTPError as err:
            log.warning("could not delete the session at remote service %s: %s", self.name, err)

    async def aclose(self) -> None:
        await self.client.aclose()
