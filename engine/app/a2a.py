"""The open agent-to-agent protocol (A2A) through the official ``a2a-sdk``, both ways.

Server (mounted by ``engine.app.a2a_routes``): the served service (or app) is an A2A agent,
its agent card at ``/.well-known/agent-card.json`` and JSON-RPC at ``/a2a`` (``SendMessage`` /
``SendStreamingMessage``, and ``message/send`` / ``message/stream`` of A2A 0.3). The A2A
``context_id`` is the session id; each message is one turn: the reply's tokens stream as
chunks of the ``reply`` artifact, and the turn ends with the task ``completed`` (the
conversation is over, DONE's next_action DONE) or ``input-required`` (it waits for the
user), its status message carrying DONE's message as text and the whole DONE payload as
a data part.

Client: ``A2AService`` holds a remote A2A agent as a service of an app: it streams the
message to the agent with the SDK's client and turns what comes back into the runtime's
events (a text chunk is an ``LLM_TOKEN``; the final status is the DONE, taken whole from
a flowctl agent's data part).
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
from a2a.helpers import get_message_text, new_data_part, new_task, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandlerV2
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes import DefaultServerCallContextBuilder, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    TaskState,
)
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.requests import Request

from engine.app.a2a_routes import RPC_PATH, Principal
from engine.app.remote import from_wire
from engine.app.services import empty_snapshot, failure_done
from engine.runtime.engine import Engine
from engine.runtime.events import Done, Event, LlmToken, UiHint
from engine.runtime.session import owned_key

log = logging.getLogger("flowctl.a2a")

__all__ = ["A2AService", "agent_card", "card_json", "rpc_app"]


def agent_card(engine: Engine, base_url: str) -> AgentCard:
    """The agent card of ``engine``'s service (one skill per intent it routes), or of its
    app (one skill per service, its keywords as tags)."""
    app = getattr(engine, "app", None)  # an AppEngine's LoadedApp
    spec = engine.service.spec
    if app is not None:
        name, description, version = app.spec.app, app.spec.description, app.spec.version
        skills = [AgentSkill(id=n, name=n, description=s.description or n,
                             tags=list(s.keywords)) for n, s in app.spec.services.items()]
    else:
        name, description, version = engine.service.name, spec.description, spec.version
        skills = [AgentSkill(id=n, name=n, description=intent.description or n,
                             tags=list(intent.keywords), examples=list(intent.examples))
                  for n, intent in spec.intents.items() if n in spec.routes]
    if not skills:
        skills = [AgentSkill(id="chat", name="chat", description=description or "chat",
                             tags=["chat"])]
    return AgentCard(name=name, description=description or "", version=str(version or "0"),
                     supported_interfaces=[AgentInterface(protocol_binding="JSONRPC",
                                                          protocol_version="1.0",
                                                          url=base_url + RPC_PATH)],
                     capabilities=AgentCapabilities(streaming=True),
                     default_input_modes=["text/plain"],
                     default_output_modes=["text/plain", "application/json"], skills=skills)


class TurnExecutor(AgentExecutor):
    """One A2A message -> one turn of ``engine``; its events -> task updates."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None and context.context_id is not None
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        owner = context.call_context.state.get("principal")
        if context.current_task is None:  # the SDK wants the task before its updates
            history = [context.message] if context.message is not None else []
            await event_queue.enqueue_event(new_task(
                context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED,
                history=history))
        chunks = 0
        given = _forwarded_context(context)
        async for event in self.engine.turn(owned_key(context.context_id, owner),
                                            context.get_user_input(),
                                            owner=owner,
                                            context=given):
            if isinstance(event, LlmToken):
                await updater.add_artifact([new_text_part(event.text)], artifact_id="reply",
                                           name="reply", append=chunks > 0, last_chunk=False)
                chunks += 1
            elif isinstance(event, Done):
                message = updater.new_agent_message(
                    [new_text_part(event.message), new_data_part(event.payload())])
                state = TaskState.TASK_STATE_COMPLETED if event.next_action == "DONE" \
                    else TaskState.TASK_STATE_INPUT_REQUIRED
                await updater.update_status(state, message=message)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """A turn is not cancelled half-way (it commits whole); nothing to do."""


def _forwarded_context(context: RequestContext) -> dict[str, Any] | None:
    """The request context an app forwarded as the message's ``context`` metadata."""
    if context.message is None or not context.message.HasField("metadata"):
        return None
    given = MessageToDict(context.message.metadata).get("context")
    return given if isinstance(given, dict) else None


class _Callers(DefaultServerCallContextBuilder):
    """The SDK's call context plus the caller's principal (who owns the session)."""

    def __init__(self, principal: Principal) -> None:
        self.principal = principal

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        context.state["principal"] = self.principal(request.scope)
        return context


def rpc_app(engine: Engine, principal: Principal) -> Starlette:
    """The SDK's JSON-RPC endpoint for ``engine``, at ``RPC_PATH``."""
    handler = DefaultRequestHandlerV2(TurnExecutor(engine), InMemoryTaskStore(),
                                      agent_card(engine, "http://127.0.0.1"))
    return Starlette(routes=create_jsonrpc_routes(
        handler, RPC_PATH, context_builder=_Callers(principal), enable_v0_3_compat=True))


def card_json(engine: Engine, base_url: str) -> dict[str, Any]:
    """The agent card as JSON, pointing at ``base_url``."""
    return dict(agent_card_to_dict(agent_card(engine, base_url)))


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
