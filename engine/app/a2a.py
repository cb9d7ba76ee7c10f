"""An app's A2A service -> a remote A2A agent, through the official ``a2a-sdk``'s client.

``A2AService`` holds a remote A2A agent as a service of an app: it streams the message to
the agent with the SDK's client and turns what comes back into the runtime's events (a text
chunk is an ``LLM_TOKEN``; the final status is the DONE, taken whole from a flowctl agent's
data part).

The other direction (every served service or app answering A2A itself) is a transport:
``engine.transports.http.a2a_routes``.
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any, cast

import httpx
from a2a.client import Client, ClientConfig, create_client
from a2a.helpers import get_message_text
from a2a.types import Message, Part, Role, SendMessageRequest, StreamResponse, TaskState
from google.protobuf.json_format import MessageToDict

from engine.app.remote import from_wire
from engine.app.services import empty_snapshot, failure_done
from engine.runtime.values.events import Done, Event, LlmToken, UiHint

log = logging.getLogger("flowctl.a2a")

__all__ = ["A2AService"]


class A2AService:
    """A remote A2A agent as a service of an app, through the SDK's client."""

    def __init__(self, name: str, url: str, *, timeout: float, failed_text: str,
                 api_key: str | None = None) -> None:
        self.name = name
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.failed_text = failed_text
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.http = httpx.AsyncClient(timeout=httpx.Timeout(timeout), headers=headers)
        self.client: Client | None = None  # made from the agent card on first use

    async def turn(self, session_id: str, message: str, *, owner: str | None = None,
                   context: Mapping[str, Any] | None = None,
                   understood: object = None) -> AsyncIterator[Event]:
        """The agent's turn; the request ``context`` goes as the message's ``context``
        metadata (a flowctl agent hands it to its turn)."""
        started = time.perf_counter()
        try:
            async for event in self._relay(session_id, message, owner, context):
                yield event
                if isinstance(event, Done):
                    return
            error = "the agent ended without a final status"
        except Exception as err:  # the SDK's errors, transport errors, timeouts: one DONE
            error = f"{type(err).__name__}: {err}"[:300]
            self.client = None  # read the card again next time: the agent may have moved
        log.warning("A2A service %s (%s) failed: %s", self.name, self.url, error)
        turn_id = f"{random.getrandbits(32):08x}"  # a trace id, not a secret
        yield failure_done(self.failed_text.replace("{service}", self.name), self.name,
                           started, turn_id, error)

    async def _relay(self, session_id: str, message: str, owner: str | None,
                     context: Mapping[str, Any] | None = None) -> AsyncIterator[Event]:
        from engine.app.remote import remote_session

        if self.client is None:
            self.client = await create_client(self.url, ClientConfig(streaming=True,
                                                                     httpx_client=self.http))
        client = self.client
        request = SendMessageRequest(message=Message(
            role=Role.ROLE_USER, message_id=uuid.uuid4().hex, parts=[Part(text=message)],
            context_id=remote_session("a2a", session_id, owner)))
        if context is not None:
            request.message.metadata.update({"context": dict(context)})
        started = time.perf_counter()
        stream = cast(AsyncGenerator[StreamResponse, None], client.send_message(request))
        async with contextlib.aclosing(stream) as responses:
            async for response in responses:
                for event in _events(response, started):
                    yield event

    async def completed(self, session_id: str, owner: str | None) -> list[dict[str, Any]]:
        return []  # an A2A agent keeps its own record

    async def delete(self, session_id: str, owner: str | None) -> None:
        """A2A has no way to forget a context."""

    async def aclose(self) -> None:
        await self.http.aclose()


_FINAL = {TaskState.TASK_STATE_COMPLETED: "DONE", TaskState.TASK_STATE_INPUT_REQUIRED: "ASK",
          TaskState.TASK_STATE_FAILED: "DONE", TaskState.TASK_STATE_REJECTED: "DONE",
          TaskState.TASK_STATE_CANCELED: "DONE"}


def _events(response: StreamResponse, started: float) -> list[Event]:
    """What one A2A stream response says, as the runtime's events."""
    if response.HasField("artifact_update"):
        return [LlmToken(p.text) for p in response.artifact_update.artifact.parts if p.text]
    if response.HasField("message"):  # an agent that answers with one message
        return [_done(response.message, "DONE", started)]
    status = response.status_update.status if response.HasField("status_update") else \
        response.task.status if response.HasField("task") else None
    if status is not None and status.state in _FINAL:
        return [_done(status.message, _FINAL[status.state], started)]
    return []


def _done(message: Message, next_action: str, started: float) -> Done:
    """A flowctl agent's DONE (its data part), or one made of the agent's text."""
    for part in message.parts:
        if part.HasField("data"):
            data = MessageToDict(part.data)
            if isinstance(data, dict) and {"message", "next_action"} <= set(data):
                import json

                event = from_wire("DONE", json.dumps(data))
                assert isinstance(event, Done)
                return event
    elapsed = round((time.perf_counter() - started) * 1000, 1)
    return Done(message=get_message_text(message), next_action=next_action,
                ui_hint=UiHint(buttons=[]),
                state_snapshot=empty_snapshot(),
                trace={"turn_id": uuid.uuid4().hex[:8], "total_elapsed_ms": elapsed,
                       "agents": []})
