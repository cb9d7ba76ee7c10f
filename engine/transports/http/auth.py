"""API keys -> principals; the signed login cookie a browser carries instead of a header.

A principal is ``key-`` and the first 16 hex digits of the key's SHA-256: stable across
restarts and processes, and it does not give the key away, so it may be stored (a session's
owner) and logged. A key is never logged nor echoed. A presented key is hashed and compared
with every configured key's hash in constant time (``hmac.compare_digest``, no early exit).

A browser's ``EventSource`` cannot send ``Authorization``: ``POST /v1/agent/login`` with a
key sets a cookie holding ``principal.expiry.signature``, an HMAC-SHA256 under the cookie
secret (``FLOWCTL_COOKIE_SECRET``, or random per process: then a restart logs everyone
out). The cookie is HttpOnly, SameSite=Strict, Path=/, and Secure when the request came
over https. A token names its principal, so one for a key that was since removed is refused.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Iterable

from starlette.datastructures import Headers
from starlette.types import Scope

COOKIE = "flowctl_auth"
COOKIE_SECONDS = 12 * 3600

__all__ = ["COOKIE", "COOKIE_SECONDS", "Auth", "principal_of_key"]


def principal_of_key(key: str) -> str:
    """The stable, non-reversible id of an API key.

    >>> principal_of_key("correct-horse-battery-staple")
    'key-87cbebfeebc05f7c'
    """
    return "key-" + hashlib.sha256(key.encode()).hexdigest()[:16]


class Auth:
    """The configured keys (none: authentication is off) and the cookie signer."""

    def __init__(self, keys: Iterable[str], *, secret: str | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self._digests = [(hashlib.sha256(k.encode()).digest(), principal_of_key(k))
                         for k in keys]
        self.principals = frozenset(principal for _, principal in self._digests)
        self._secret = secret.encode() if secret else secrets.token_bytes(32)
        self._clock = clock

    @property
    def enabled(self) -> bool:
        return bool(self._digests)

    def principal_of(self, key: str) -> str | None:
        """The principal of ``key`` if it is a configured key; every key is compared."""
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
        found = None
        for known, principal in self._digests:
            if hmac.compare_digest(known, digest):
                found = principal
        return found

    def principal(self, scope: Scope) -> str | None:
        """Who sent this request: a Bearer key first, else the login cookie; None: nobody."""
        headers = Headers(scope=scope)
        key = bearer(headers.get("authorization"))
        if key is not None:
            return self.principal_of(key)
        return self.verify(cookie_value(headers.get("cookie"), COOKIE))

    # -- the login cookie ---------------------------------------------------------------------

    def token(self, principal: str) -> str:
        expires = int(self._clock()) + COOKIE_SECONDS
        return f"{principal}.{expires}.{self._sign(principal, expires)}"

    def verify(self, token: str | None) -> str | None:
        """The principal of a valid, unexpired token of a key still configured."""
        if not token or token.count(".") != 2:
            return None
        principal, expires, signature = token.split(".")
        if not expires.isdigit() or not hmac.compare_digest(
                signature.encode(), self._sign(principal, int(expires)).encode()):
            return None
        if int(expires) < self._clock() or principal not in self.principals:
            return None
        return principal

    def _sign(self, principal: str, expires: int) -> str:
        mac = hmac.new(self._secret, f"{principal}.{expires}".encode("utf-8", "surrogatepass"),
                       hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()

    def set_cookie(self, principal: str, *, secure: bool) -> str:
        """The ``Set-Cookie`` value that logs a browser in as ``principal``."""
        return (f"{COOKIE}={self.token(principal)}; Max-Age={COOKIE_SECONDS}; Path=/; "
                f"HttpOnly; SameSite=Strict" + ("; Secure" if secure else ""))


def clear_cookie(*, secure: bool) -> str:
    return (f"{COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict"
            + ("; Secure" if secure else ""))


def bearer(value: str | None) -> str | None:
    """The key of ``Authorization: Bearer KEY`` (the scheme in any case); None otherwise."""
    if not value:
        return None
    scheme, _, key = value.partition(" ")
    return key.strip() if scheme.lower() == "bearer" and key.strip() else None


def cookie_value(header: str | None, name: str) -> str | None:
    """One cookie's value from a ``Cookie`` header (no quoting rules: our token needs none)."""
    for part in (header or "").split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            return value
    return None
