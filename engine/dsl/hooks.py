"""Closed models of hook handlers (webhooks), shared by flow files and app files.

A hook handler POSTs DONE's hooks of the types it names to a URL, after the turn is saved.
The URL may be written out or read from the environment (``${NOTIFY_URL}``); the signing
key is only ever named (``secret_env``), never written in a file, so the operator decides
who can sign. The delivery itself is ``engine.runtime.webhooks``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from engine.dsl.base import Name
from engine.precompiled import re_compile

EnvName = Annotated[str, Field(pattern=r"^[A-Z_][A-Z0-9_]*$", description="An environment variable name, e.g. CARD_SERVICE_URL.")]
UrlTemplate = Annotated[str, Field(pattern=r"^(\$\{[A-Z_][A-Z0-9_]*(:-[^}]*)?\}|https?://)", description="A URL, or `${NAME}` / `${NAME:-default}` (optionally followed by a path): read from the environment when the app starts.")]

__all__ = ["EnvName", "HookSpec", "Name", "UrlTemplate", "resolve_url", "url_variable"]

_VARIABLE = re_compile(r"^\$\{(?P<name>[A-Z_][A-Z0-9_]*)(?::-(?P<default>[^}]*))?\}")


def url_variable(template: str) -> tuple[str, str | None] | None:
    """``${NAME}`` or ``${NAME:-default}`` at the start of ``template``: (NAME, default)."""
    found = _VARIABLE.match(template)
    return (found["name"], found["default"]) if found else None


def resolve_url(template: str, env: Mapping[str, str]) -> str | None:
    """The URL ``template`` names, its variable read from ``env``; None when it is unset and
    has no default."""
    found = _VARIABLE.match(template)
    if found is None:
        return template.rstrip("/")
    value = env.get(found["name"]) or found["default"]
    return (value + template[found.end():]).rstrip("/") if value else None


class HookSpec(BaseModel):
    """A server-side hook handler: DONE's hooks of these types are POSTed to `url`."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    url: UrlTemplate = Field(description="Where to POST the hook, e.g. `${NOTIFY_URL}/hooks`.")
    types: list[Name] = Field(default_factory=list, description="Hook types to deliver; none means every type.")
    secret_env: EnvName | None = Field(None, description="Environment variable holding the HMAC-SHA256 key of the `X-Flowctl-Signature` header.")
    timeout_sec: float = Field(2.0, gt=0, le=60, description="Timeout of one delivery attempt.")
    retries: int = Field(3, ge=0, le=10, description="Further attempts after a failed one, with exponential backoff.")
    backoff_sec: float = Field(0.5, ge=0, le=60, description="First backoff; it doubles each retry (with jitter).")
