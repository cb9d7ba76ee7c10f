"""Closed pydantic models of an app file; schemas/app.schema.json is generated here.

An app holds several services behind one ``/v1/agent`` API: local flow files, remote
services that speak the same SSE protocol, and remote agents over the open A2A protocol.
Each service may claim keywords; the router picks a service per message. Nothing here can
switch on trusted code: URLs and secrets are read from environment variables the operator
sets (``${NAME}``), never written in the file.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.dsl.hooks import EnvName, HookSpec, Name, UrlTemplate
from engine.dsl.spec import ModelSpec

__all__ = ["AppSpec", "HookSpec", "MessagesSpec", "RouterSpec", "ServiceSpec"]


class Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ServiceSpec(Spec):
    """One service of the app: exactly one of `flow`, `remote` or `a2a`."""

    description: str = Field("", description="What the service does (shown in the graph).")
    flow: str | None = Field(None, description="A local flow file, relative to the app file.")
    remote: UrlTemplate | None = Field(None, description="Base URL of a server speaking the flowctl chat protocol (`/v1/agent/chat/stream`), ending in /v1/agent, e.g. `${CARD_SERVICE_URL}`.")
    a2a: UrlTemplate | None = Field(None, description="Base URL of a remote A2A agent; its agent card is read from /.well-known/agent-card.json there.")
    keywords: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list, description="Words that send a message to this service (the longest match over all services wins).")
    intents: bool = Field(True, description="A local service's own intent keywords route to it too.")
    timeout_sec: float = Field(10.0, gt=0, le=300, description="A remote or A2A service: longest wait for its connection and for each next event.")
    api_key_env: EnvName | None = Field(None, description="A remote service: the environment variable holding the key sent as `Authorization: Bearer ...`.")

    @model_validator(mode="after")
    def _one_kind(self) -> ServiceSpec:
        if sum(k is not None for k in (self.flow, self.remote, self.a2a)) != 1:
            raise ValueError("a service takes exactly one of `flow`, `remote` or `a2a`")
        return self


class RouterSpec(Spec):
    """The optional LLM router: when no keyword and no local service's intent claims a
    message, ONE call of this model picks the service and understands the message for it
    (that service then makes no understanding call of its own)."""

    model: ModelSpec = Field(description="The model that routes, e.g. `{provider: openai, model: gpt-4.1-mini}`; with no key for its provider the app routes by rules alone.")


class MessagesSpec(Spec):
    """What the app itself says (its services say everything else)."""

    remote_failed: str = Field("{service} 서비스가 지금 응답하지 않아요. 잠시 후 다시 시도해 주세요.", description="Said when a remote service times out, refuses the connection or breaks its stream; `{service}` is its name.")


class AppSpec(Spec):
    """An app file: several services behind one /v1/agent API and how a message picks one."""

    app: Name = Field(description="Name of the app.")
    description: str = Field("", description="What the app does.")
    version: str | int | None = Field(None, description="Version of the app file.")
    services: dict[Name, ServiceSpec] = Field(min_length=1, description="The services, in priority order (ties between keywords go to the one listed first).")
    default: Name = Field(description="The service of a message no rule claims.")
    router: RouterSpec | None = Field(None, description="An LLM router for messages no keyword or intent claims; none means rules alone.")
    hooks: list[HookSpec] = Field(default_factory=list, description="Server-side hook handlers (webhooks), delivered after the turn is saved.")
    messages: MessagesSpec = Field(default_factory=MessagesSpec, description="The app's own sentences.")
