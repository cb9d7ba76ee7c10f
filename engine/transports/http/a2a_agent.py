"""An engine -> the A2A agent it serves through the official ``a2a-sdk``: card and JSON-RPC.

Mounted by ``a2a_routes.py`` on the first A2A request (the SDK, and protobuf under it, is
imported only then), which hands in the paths. The served service (or app) is an A2A agent,
its agent card at ``/.well-known/agent-card.json`` and JSON-RPC at ``/a2a`` (``SendMessage``
/ ``SendStreamingMessage``, and ``message/send`` / ``message/stream`` of A2A 0.3). The A2A
``context_id`` is the session id; each message is one turn: the reply's tokens stream as
chunks of the ``reply`` artifact, and the turn ends with the task ``completed`` (the
conversation is over, DONE's next_action DONE) or ``input-required`` (it waits for the
user), its status message carrying DONE's message as text and the whole DONE payload as
a data part.

The other direction (a remote A2A agent as a service of an app) is ``engine.app.a2a``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from a2a.helpers import new_data_part, new_task, new_text_part
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
    TaskState,
)
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.requests import Request

from engine.runtime.serving import TurnEngine
from engine.runtime.values.events import Done, LlmToken
from engine.runtime.values.session import owned_key

Principal = Callable[[Any], str | None]

__all__ = ["Principal", "agent_card", "card_json", "rpc_app"]


def agent_card(engine: TurnEngine, rpc_url: str) -> AgentCard:
    """The agent card of ``engine``'s service (one skill per intent it routes), or of its
    app (one skill per service, its keywords as tags); messages go to ``rpc_url``."""
    about = engine.about
    skills = [AgentSkill(id=skill.id, name=skill.id, description=skill.description,
                         tags=list(skill.tags), examples=list(skill.examples))
              for skill in about.skills]
    if not skills:
        skills = [AgentSkill(id="chat", name="chat", description=about.description or "chat",
                             tags=["chat"])]
    name, description, version = about.name, about.description, about.version
    return AgentCard(name=name, description=description or "", version=str(version or "0"),
                     supported_interfaces=[AgentInterface(protocol_binding="JSONRPC",
                                                          protocol_version="1.0",
                                                          url=rpc_url)],
                     capabilities=AgentCapabilities(streaming=True),
                     default_input_modes=["text/plain"],
                     default_output_modes=["text/plain", "application/json"], skills=skills)


class TurnExecutor(AgentExecutor):
    """One A2A message -> one turn of ``engine``; its events -> task updates."""

    def __init__(self, engine: TurnEngine) -> None:
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


def rpc_app(engine: TurnEngine, principal: Principal, path: str) -> Starlette:
    """The SDK's JSON-RPC endpoint for ``engine``, at ``path``."""
    handler = DefaultRequestHandlerV2(TurnExecutor(engine), InMemoryTaskStore(),
                                      agent_card(engine, "http://127.0.0.1" + path))
    return Starlette(routes=create_jsonrpc_routes(
        handler, path, context_builder=_Callers(principal), enable_v0_3_compat=True))


def card_json(engine: TurnEngine, rpc_url: str) -> dict[str, Any]:
    """The agent card as JSON, its messages going to ``rpc_url``."""
    return dict(agent_card_to_dict(agent_card(engine, rpc_url)))
