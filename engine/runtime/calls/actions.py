"""(CompiledAction, arguments, idempotency key) -> result dict, or ActionFailed.

Built-in tools are a fixed table: YAML names a tool, it never brings code. ``sandbox_bank``
is a deterministic stand-in for a bank API so the transfer service runs with no
credentials: it accepts any transfer up to ``limit`` and refuses the rest. HTTP actions
send an ``Idempotency-Key`` that stays the same across retries of one task (the runtime
derives it from the task's random id). A target that refuses the connection was sent
nothing: that is a definite failure (``ActionUnreached``), never an unknown outcome.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.compiler.compiled import CompiledAction

if TYPE_CHECKING:
    import httpx


log = logging.getLogger("flowctl.actions")


class ActionFailed(Exception):
    """The action ran and did not succeed; the flow takes its `error` trigger."""


# "conflict: the same key is still being processed", "too early", "too many requests": the
# target has not settled the request yet, so these are retried like a 5xx
_NOT_YET = frozenset({409, 425, 429})


@dataclass(frozen=True, slots=True)
class ActionStub:
    """A canned outcome for an action: its result, or the error it fails with (an
    irreversible action's outcome is journalled as if it had run)."""

    result: Any = None
    error: str | None = None

    def outcome(self) -> dict[str, Any]:
        if self.error is not None:
            raise ActionFailed(self.error)
        return self.result if isinstance(self.result, dict) else {"value": self.result}


class ActionUnknown(ActionFailed):
    """Every attempt ended without an answer that settles it (timeouts, transport faults,
    5xx, 409/425/429): the target may or may not have acted. An irreversible action stays
    pending and is asked again, with the same key, on the session's next turn."""


class ActionUnreached(ActionFailed):
    """The target could not be reached (connection refused, no route, no TLS handshake) on
    every attempt: no request was ever sent, so nothing happened there. A definite failure:
    told, and the flow may retry or cancel."""


class _Transient(Exception):
    """A transport fault or 5xx: worth a retry with the same idempotency key."""


class _Unreached(_Transient):
    """The connection was never made: this attempt sent nothing."""


def never_sent(err: Exception) -> bool:
    """Whether an httpx transport error happened before any byte of the request was sent."""
    import httpx

    return isinstance(err, httpx.ConnectError | httpx.ConnectTimeout | httpx.UnsupportedProtocol)


async def sandbox_bank(args: Mapping[str, Any], key: str) -> dict[str, Any]:
    amount, to = args.get("amount"), args.get("to")
    limit = args.get("limit", 5_000_000)
    if not isinstance(amount, int | float) or isinstance(amount, bool) or amount <= 0:
        raise ActionFailed(f"invalid amount {amount!r}")
    if not to:
        raise ActionFailed("no recipient")
    if amount > limit:
        raise ActionFailed(f"amount {amount} is over the limit {limit}")
    tx = hashlib.sha256(key.encode()).hexdigest()[:12]
    return {"transaction_id": f"tx-{tx}", "to": to, "amount": amount}


SANDBOX_BALANCE = 10_000_000


async def sandbox_balance(args: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The sandbox account's balance: a fixed 10,000,000 KRW (``balance`` overrides it)."""
    balance = args.get("balance", SANDBOX_BALANCE)
    return {"balance": balance, "currency": "KRW"}


async def calculator(args: Mapping[str, Any], key: str) -> dict[str, Any]:
    from engine.providers.tools import BUILTIN_TOOLS  # the same calculator agents call

    text = await BUILTIN_TOOLS["calculator"]({"expression": str(args.get("expression", ""))})
    return {"value": text}


TOOLS: Mapping[str, Callable[[Mapping[str, Any], str], Awaitable[dict[str, Any]]]] = {
    "sandbox_bank": sandbox_bank,
    "sandbox_balance": sandbox_balance,
    "calculator": calculator,
}


async def run_action(action: CompiledAction, args: Mapping[str, Any], key: str, *,
                     url: str | None = None, headers: Mapping[str, str] | None = None,
                     client: httpx.AsyncClient | None = None) -> dict[str, Any]:
    """Run once plus ``action.retries`` retries, each bounded by its timeout.

    Only transport faults, timeouts and 5xx answers are retried (with exponential backoff
    and jitter, the same idempotency key every time); a 4xx answer or a tool's refusal is
    final at once."""
    if action.retries == 0:  # one attempt: no retry machinery (most tool actions)
        return await _attempt(action, args, key, url or "", headers or {}, client)
    from tenacity import (  # only for an action with retries
        AsyncRetrying,
        retry_if_exception_type,
        stop_after_attempt,
        wait_random_exponential,
    )

    retrying = AsyncRetrying(stop=stop_after_attempt(action.retries + 1),
                             wait=wait_random_exponential(multiplier=0.2, max=5.0),
                             retry=retry_if_exception_type((TimeoutError, _Transient)),
                             reraise=True)
    sent = False  # whether any attempt may have reached the target
    try:
        async for attempt in retrying:
            with attempt:
                try:
                    async with asyncio.timeout(action.timeout_sec):
                        return await _once(action, args, key, url or "", headers or {},
                                           client)
                except Exception as err:
                    sent = sent or not isinstance(err, _Unreached)
                    raise
    except TimeoutError:
        raise ActionUnknown(f"timed out after {action.timeout_sec:g} s") from None
    except _Transient as err:
        raise (ActionUnknown if sent else ActionUnreached)(str(err)) from None
    raise AssertionError("unreachable: tenacity either returns or re-raises")


async def _attempt(action: CompiledAction, args: Mapping[str, Any], key: str, url: str,
                   headers: Mapping[str, str], client: httpx.AsyncClient | None
                   ) -> dict[str, Any]:
    try:
        async with asyncio.timeout(action.timeout_sec):
            return await _once(action, args, key, url, headers, client)
    except TimeoutError:
        raise ActionUnknown(f"timed out after {action.timeout_sec:g} s") from None
    except _Transient as err:
        raise (ActionUnreached if isinstance(err, _Unreached) else ActionUnknown)(
            str(err)) from None


async def _once(action: CompiledAction, args: Mapping[str, Any], key: str, url: str,
                headers: Mapping[str, str], client: httpx.AsyncClient | None) -> dict[str, Any]:
    if action.kind == "tool":
        assert action.tool is not None
        return await TOOLS[action.tool](args, key)
    return await _http(action, args, key, url, headers, client)


async def _http(action: CompiledAction, body: Mapping[str, Any], key: str, url: str,
                headers: Mapping[str, str], client: httpx.AsyncClient | None) -> dict[str, Any]:
    import httpx  # only services with http actions pay for the import

    own = client is None
    http = client or httpx.AsyncClient()
    try:
        response = await http.request(action.method, url, json=dict(body) or None,
                                      headers={**headers, "Idempotency-Key": key})
    except httpx.TransportError as err:
        if never_sent(err):
            raise _Unreached(f"could not reach the target ({type(err).__name__})") from None
        raise _Transient(f"{type(err).__name__}") from None
    finally:
        if own:
            await http.aclose()
    if response.status_code >= 400:
        # the body may hold account numbers or internal hosts: the log keeps it, the
        # conversation (result, trace) only gets the status
        log.warning("action %s: HTTP %s: %s", action.name, response.status_code,
                    response.text[:500])
        transient = response.status_code >= 500 or response.status_code in _NOT_YET
        failure = _Transient if transient else ActionFailed
        raise failure(f"HTTP {response.status_code}")
    try:
        data = response.json()
    except ValueError:
        return {"status": response.status_code, "text": response.text[:1000]}
    return data if isinstance(data, dict) else {"value": data}
