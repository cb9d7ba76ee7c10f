"""(CompiledAction, arguments, idempotency key) -> result dict, or ActionFailed.

Built-in tools are a fixed table: YAML names a tool, it never brings code. ``sandbox_bank``
is a deterministic stand-in for a bank API so the transfer service runs with no
credentials: it accepts any transfer up to ``limit`` and refuses the rest. HTTP actions
send an ``Idempotency-Key`` that stays the same across retries of one task.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.compiler.compiled import CompiledAction

if TYPE_CHECKING:
    import httpx


class ActionFailed(Exception):
    """The action ran and did not succeed; the flow takes its `error` trigger."""


class _Transient(Exception):
    """A transport fault or 5xx: worth a retry with the same idempotency key."""


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


async def calculator(args: Mapping[str, Any], key: str) -> dict[str, Any]:
    from engine.providers.tools import BUILTIN_TOOLS  # the same calculator agents call

    text = await BUILTIN_TOOLS["calculator"]({"expression": str(args.get("expression", ""))})
    return {"value": text}


TOOLS: Mapping[str, Callable[[Mapping[str, Any], str], Awaitable[dict[str, Any]]]] = {
    "sandbox_bank": sandbox_bank,
    "calculator": calculator,
}


async def run_action(action: CompiledAction, args: Mapping[str, Any], key: str, *,
                     url: str | None = None, headers: Mapping[str, str] | None = None,
                     client: httpx.AsyncClient | None = None) -> dict[str, Any]:
    """Run once plus ``action.retries`` retries, each bounded by its timeout."""
    attempts = action.retries + 1
    last: Exception | None = None
    for _ in range(attempts):
        try:
            async with asyncio.timeout(action.timeout_sec):
                if action.kind == "tool":
                    assert action.tool is not None
                    return await TOOLS[action.tool](args, key)
                return await _http(action, args, key, url or "", headers or {}, client)
        except ActionFailed as err:
            last = err
            if action.kind == "tool":
                break  # a tool's refusal is final; retries are for transport faults
        except (TimeoutError, _Transient) as err:
            last = ActionFailed(str(err) or "timed out")
    raise last if isinstance(last, ActionFailed) else ActionFailed(str(last))


async def _http(action: CompiledAction, body: Mapping[str, Any], key: str, url: str,
                headers: Mapping[str, str], client: httpx.AsyncClient | None) -> dict[str, Any]:
    import httpx  # only services with http actions pay for the import

    own = client is None
    http = client or httpx.AsyncClient()
    try:
        response = await http.request(action.method, url, json=dict(body) or None,
                                      headers={**headers, "Idempotency-Key": key})
    except httpx.TransportError as err:
        raise _Transient(f"{type(err).__name__}: {err}") from None
    finally:
        if own:
            await http.aclose()
    if response.status_code >= 500:
        raise _Transient(f"HTTP {response.status_code}")
    if response.status_code >= 400:
        raise ActionFailed(f"HTTP {response.status_code}: {response.text[:200]}")
    try:
        data = response.json()
    except ValueError:
        return {"status": response.status_code, "text": response.text[:1000]}
    return data if isinstance(data, dict) else {"value": data}
