"""(a service's models, a model's name, a prompt) -> Probe: one short completion, timed.

A probe says whether a model answers right now: ``reachable`` with its reply and latency,
``unreachable`` with the provider's error (its ``kind``: connection, timeout, server...), or
``offline`` with the reason it has no provider (no key, provider ``offline``), in which case
nothing is called. It makes exactly one call: no retry, at most ``PROBE_TIMEOUT_SEC`` (or the
model's own shorter timeout) and ``PROBE_MAX_TOKENS`` output tokens. It neither asks nor
feeds the model's circuit breaker: a ping must reach a provider the turns are skipping for
a while, and must not change what they do.

Example::

    found = await probe(engine.models, "dev", "Respond with one short line: ping accepted")
    found.status, found.reply, found.latency_ms   # ('reachable', 'ping accepted', 412.3)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from engine.errors import ProviderError
from engine.providers.base import ChatMessage, ChatRequest
from engine.providers.reliability import complete_reliably, record_of
from engine.runtime.calls.models import ModelPool

Status = Literal["reachable", "unreachable", "offline"]
PROBE_TIMEOUT_SEC = 15.0
PROBE_MAX_TOKENS = 64

__all__ = ["PROBE_MAX_TOKENS", "PROBE_TIMEOUT_SEC", "Probe", "Status", "probe"]


@dataclass(frozen=True, slots=True)
class Probe:
    """What one probe of a model found."""

    model: str
    status: Status
    reply: str | None = None
    latency_ms: float | None = None
    """From sending to the answer, or to the error (None: nothing was sent)."""
    reason: str | None = None
    """Why the model is offline, or the provider's error when it is unreachable."""
    kind: str | None = None
    """The error's kind (timeout, rate_limit, server, client, connection, malformed)."""


async def probe(models: ModelPool, name: str, prompt: str, *,
                timeout_sec: float = PROBE_TIMEOUT_SEC,
                max_tokens: int = PROBE_MAX_TOKENS) -> Probe:
    """Send ``prompt`` once to model ``name`` (one of ``models``) and say what came back."""
    live = models.get(name)
    if live is None:
        return Probe(name, "offline", reason=models.offline.get(name, "provider `offline`"))
    config = replace(live.config, max_retry=0,
                     timeout_sec=min(live.config.timeout_sec, timeout_sec),
                     max_tokens=min(live.config.max_tokens or max_tokens, max_tokens))
    request = ChatRequest(system="", messages=(ChatMessage("user", prompt),))
    try:
        completion, record = await complete_reliably(live.provider, request, config,
                                                     agent="probe")
    except ProviderError as err:
        failed = record_of(err)
        return Probe(name, "unreachable", reason=str(err), kind=err.kind,
                     latency_ms=round(failed.elapsed_ms, 1) if failed else None)
    return Probe(name, "reachable", reply=completion.text.strip(),
                 latency_ms=round(record.elapsed_ms, 1))
