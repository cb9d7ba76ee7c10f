"""Who may talk to the server, and from where: the middleware in front of every route.

Outermost first (``install``):

- ``SecurityHeaders``: nosniff, no referrer, no framing on every response; a
  Content-Security-Policy that lets the playground load only its own files (``/``), and
  nothing at all for the API.
- ``HostCheck``: Starlette's ``TrustedHostMiddleware`` with a JSON 400: the loopback names
  always, plus ``allowed_hosts`` (a rebinding DNS name cannot reach a local server).
- ``CORSMiddleware`` (only with ``cors_origins``): those origins' pages may call the API.
- ``Gate``: with no API key configured only loopback clients are answered (403) unless
  anonymous access was allowed; a request from another origin's page never starts a turn
  (403): Fetch Metadata other than ``same-origin``/``none`` (``same-site`` included), a
  foreign Origin or Referer, or a GET with only the login cookie and no Fetch Metadata; a request
  without a valid key or login cookie gets 401 (except the health check, the playground's
  files and login); each principal (or, unauthenticated, each client address) is held to
  ``rate_limit`` (429 with Retry-After). The principal goes to the routes in the scope.
"""

from __future__ import annotations

import functools
import ipaddress
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.config import RateLimit, Settings
from engine.transports.http.auth import COOKIE, Auth
from engine.transports.http.errors import error

PREFIX = "/v1/agent"
STREAM = f"{PREFIX}/chat/stream"
LOGIN, LOGOUT = f"{PREFIX}/login", f"{PREFIX}/logout"
PRINCIPAL = "flowctl.principal"
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Open without a key: liveness, the playground's own files (no data in them) and the way in.
ADMIN = "/v1/admin/"
PUBLIC = frozenset({"/healthz", "/", "/favicon.ico", LOGIN, LOGOUT,
                    "/.well-known/agent-card.json"})  # A2A: whom to call is public

PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            "img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
API_CSP = "default-src 'none'; base-uri 'none'; frame-ancestors 'none'"
# Swagger UI and ReDoc run an inline script: they set their own CSP (playground_api).
NO_CSP = ("/docs", "/docs/oauth2-redirect", "/redoc")

__all__ = ["PRINCIPAL", "Gate", "HostCheck", "RateLimiter", "SecurityHeaders", "install",
           "is_loopback", "principal"]


def install(app: Any, settings: Settings, auth: Auth, *, host: str) -> None:
    """Put the edge middleware on ``app`` (a FastAPI app), for a server bound to ``host``."""
    limiter = RateLimiter(settings.rate_limit) if settings.rate_limit else None
    app.add_middleware(Gate, auth=auth, limiter=limiter, cors_origins=settings.cors_origins,
                       loopback_only=not auth.enabled and not settings.allow_anonymous)
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins),
                           allow_credentials=True, allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Authorization", "Content-Type", "Last-Event-ID"],
                           expose_headers=["Retry-After"])
    app.add_middleware(HostCheck, allowed_hosts=allowed_hosts(settings, host))


def add_outer(app: Any) -> None:
    """The middleware that must wrap everything, the body Guard included."""
    app.add_middleware(SecurityHeaders)


def allowed_hosts(settings: Settings, host: str) -> list[str]:
    """The loopback names, the configured ones and the bound address; any on a public
    bind that configured none."""
    if not is_loopback(host.strip("[]")) and not settings.allowed_hosts:
        return ["*"]
    bound = [] if host in ("0.0.0.0", "::", "") else [f"[{host}]" if ":" in host else host]
    return list(dict.fromkeys([*LOOPBACK_HOSTS, *settings.allowed_hosts, *bound]))


def is_loopback(host: str | None) -> bool:
    """127.0.0.0/8, ::1 (also IPv4-mapped ::ffff:127.x.y.z) and ``localhost``."""
    if not host:
        return False
    return _loopback(host)


@functools.lru_cache(maxsize=4096)  # asked for every request; parsing the address is ~8 µs
def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


def principal(scope: Scope) -> str | None:
    """The principal ``Gate`` found for this request (None: authentication is off)."""
    found: str | None = scope.get(PRINCIPAL)
    return found


async def _send_error(scope: Scope, receive: Receive, send: Send, status: int, code: str,
                      message: str, headers: dict[str, str] | None = None,
                      **extra: Any) -> None:
    await error(status, code, message, headers=headers, **extra)(scope, receive, send)


# -- security headers ---------------------------------------------------------------------------

_ALWAYS = ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
           (b"x-frame-options", b"DENY"))
_PAGE_HEADERS = (*_ALWAYS, (b"content-security-policy", PAGE_CSP.encode()))
_API_HEADERS = (*_ALWAYS, (b"content-security-policy", API_CSP.encode()))


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        extra = _PAGE_HEADERS if path == "/" else _ALWAYS if path in NO_CSP else _API_HEADERS

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *(h for h in extra if h[0] not in present)]
            await send(message)

        await self.app(scope, receive, with_headers)


# -- Host ---------------------------------------------------------------------------------------

HOST_OK = "flowctl.host_ok"


class HostCheck:
    """``TrustedHostMiddleware`` answering a foreign Host with a JSON 400.

    Starlette's middleware only decides here: it calls ``_allowed`` for a host this server
    answers for (which marks the scope), and its plain-text 400 for any other is dropped.
    The request then goes on with its own ``send``, not one wrapped for every response.
    """

    def __init__(self, app: ASGIApp, *, allowed_hosts: Iterable[str]) -> None:
        self.app = app
        self.check = TrustedHostMiddleware(_allowed, allowed_hosts=list(allowed_hosts),
                                           www_redirect=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.check.allow_any:
            await self.app(scope, receive, send)
            return
        await self.check(scope, receive, _dropped)
        if scope.pop(HOST_OK, False):
            await self.app(scope, receive, send)
            return
        await _send_error(scope, receive, send, 400, "invalid_host",
                          "the Host header names no host this server answers for; "
                          "see --allowed-host")


async def _allowed(scope: Scope, receive: Receive, send: Send) -> None:
    scope[HOST_OK] = True


async def _dropped(message: Message) -> None:
    """Where the plain-text refusal of ``TrustedHostMiddleware`` goes."""


# -- rate limits --------------------------------------------------------------------------------

class RateLimiter:
    """A token bucket per key: ``limit.requests`` at once, refilled over ``limit.seconds``.

    >>> limiter = RateLimiter(RateLimit(2, 60.0), clock=lambda: 0.0)
    >>> [limiter.take("a"), limiter.take("a"), limiter.take("a"), limiter.take("b")]
    [0.0, 0.0, 30.0, 0.0]
    """

    def __init__(self, limit: RateLimit, *, clock: Callable[[], float] = time.monotonic,
                 max_keys: int = 10_000) -> None:
        self.capacity = float(limit.requests)
        self.rate = limit.requests / limit.seconds  # tokens a second
        self.clock = clock
        self.max_keys = max_keys
        self.buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)

    def take(self, key: str) -> float:
        """0 if ``key`` may go on (a token taken), else the seconds until it may."""
        now = self.clock()
        tokens, at = self.buckets.get(key, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - at) * self.rate)
        if tokens >= 1:
            self.buckets[key] = (tokens - 1, now)
            if len(self.buckets) > self.max_keys:
                self._forget(now)
            return 0.0
        self.buckets[key] = (tokens, now)
        return (1 - tokens) / self.rate

    def _forget(self, now: float) -> None:
        """Drop the buckets that are full again; if too many are not, the oldest half."""
        full = self.capacity - 1
        self.buckets = {k: v for k, v in self.buckets.items()
                        if v[0] + (now - v[1]) * self.rate < full}
        if len(self.buckets) > self.max_keys // 2:
            recent = sorted(self.buckets.items(), key=lambda kv: kv[1][1])[-self.max_keys // 2:]
            self.buckets = dict(recent)


# -- the gate -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Denial:
    """A request the gate turns away: the JSON error it is answered with."""

    status: int
    code: str
    message: str
    headers: dict[str, str] | None = None
    retry_after: int | None = None

    async def send(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer the request with this error (``retry_after`` in the body when set)."""
        extra = {} if self.retry_after is None else {"retry_after": self.retry_after}
        await _send_error(scope, receive, send, self.status, self.code, self.message,
                          self.headers, **extra)


LOOPBACK_ONLY = _Denial(403, "loopback_only",
                        "this server has no API keys and answers loopback clients only; "
                        "configure FLOWCTL_API_KEYS (or start it with --allow-anonymous)")
CROSS_SITE = _Denial(403, "cross_site", "a request from another site's page cannot start a "
                     "turn; allow its origin with --cors-origin")
UNAUTHORIZED = _Denial(401, "unauthorized", "send an API key as 'Authorization: Bearer KEY', "
                       f"or log in with POST {LOGIN}",
                       headers={"WWW-Authenticate": 'Bearer realm="flowctl"'})


def _too_many(wait: float) -> _Denial:
    """Seconds until a token -> the 429 saying when to try again (whole seconds, >= 1)."""
    seconds = max(1, math.ceil(wait))
    return _Denial(429, "rate_limited", f"too many requests; try again in {seconds} s",
                   headers={"Retry-After": str(seconds)}, retry_after=seconds)


class Gate:
    def __init__(self, app: ASGIApp, *, auth: Auth, limiter: RateLimiter | None,
                 cors_origins: Iterable[str], loopback_only: bool) -> None:
        self.app = app
        self.auth = auth
        self.limiter = limiter
        self.cors_origins = frozenset(cors_origins)
        self.loopback_only = loopback_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        denial = self._denial(scope)
        if denial is None:
            await self.app(scope, receive, send)
        else:
            await denial.send(scope, receive, send)

    def _denial(self, scope: Scope) -> _Denial | None:
        """An HTTP request -> why it is refused (loopback only, cross-site, rate limit, no
        key, checked in that order), or None to let it in; notes its principal in ``scope``."""
        client = scope.get("client")
        ip = client[0] if client else None
        where = self._place_denial(scope, ip)
        return where if where is not None else self._access_denial(scope, ip)

    def _place_denial(self, scope: Scope, ip: str | None) -> _Denial | None:
        """Where the request comes from -> refused when not from loopback (with loopback
        only) or from another site's page when it could start a turn; else None."""
        if self.loopback_only and not is_loopback(ip):
            return LOOPBACK_ONLY
        path = scope["path"]
        if (scope["method"] not in SAFE_METHODS or path == STREAM) and self._cross_site(scope):
            return CROSS_SITE
        return None

    def _access_denial(self, scope: Scope, ip: str | None) -> _Denial | None:
        """Who sends the request -> refused when over its rate limit or, on a route that
        needs one, without a key; else None. Notes the principal in ``scope``."""
        path = scope["path"]
        # the operator's routes check the operator's key themselves (it is no API key)
        public = path in PUBLIC or path.startswith(("/playground/", ADMIN))
        who = self.auth.principal(scope) if self.auth.enabled else None
        scope[PRINCIPAL] = who
        if public and path != LOGIN:
            return None
        limited = self._rate_limited(who, ip)
        if limited is not None:
            return limited
        return UNAUTHORIZED if self.auth.enabled and who is None and not public else None

    def _rate_limited(self, who: str | None, ip: str | None) -> _Denial | None:
        """The principal (or client address) -> a 429 when its bucket is empty, else None."""
        if self.limiter is None:
            return None
        # Anonymous loopback clients are the operator's own machine: not limited.
        bucket = who or (f"ip:{ip}" if self.auth.enabled or not is_loopback(ip) else None)
        wait = self.limiter.take(bucket) if bucket else 0.0
        return _too_many(wait) if wait else None

    def _cross_site(self, scope: Scope) -> bool:
        """A page of another origin sent this (and that origin is not allow-listed): by
        Fetch Metadata anything but ``same-origin`` or ``none`` (a sibling subdomain's or
        another localhost port's page is ``same-site``, and no less foreign); without it
        (an older browser, or no browser), a foreign ``Origin`` or ``Referer``, or a GET
        that carries only the login cookie (an ``<img>`` or a link sends no Origin)."""
        headers = _first(scope, (b"origin", b"host", b"sec-fetch-site", b"referer",
                                 b"cookie", b"authorization"))
        origin, host = headers.get(b"origin"), headers.get(b"host")
        if origin is not None and origin in self.cors_origins:
            return False  # the operator allowed this page, whatever its site
        if origin is not None and not same_origin(origin, host):
            return True
        site = headers.get(b"sec-fetch-site", "").lower()
        if site:
            return site not in ("same-origin", "none")
        referer = headers.get(b"referer")
        if referer is not None and not same_origin(_origin_of(referer), host):
            return True
        cookie_only = COOKIE in headers.get(b"cookie", "") and b"authorization" not in headers
        return scope["method"] == "GET" and origin is None and cookie_only


def _origin_of(url: str) -> str:
    """The ``scheme://host:port`` of a URL (a Referer), as an Origin header would say it."""
    scheme, sep, rest = url.partition("://")
    return f"{scheme}{sep}{rest.split('/', 1)[0]}" if sep else "null"


def _first(scope: Scope, names: tuple[bytes, ...]) -> dict[bytes, str]:
    """The first value of each of ``names`` the request has (as ``Headers.get`` reads it),
    in one pass over the headers instead of one each."""
    found: dict[bytes, str] = {}
    for name, value in scope["headers"]:
        if name in names and name not in found:
            found[name] = value.decode("latin-1")
    return found


def same_origin(origin: str, host: str | None) -> bool:
    """Whether ``Origin`` names this server (the Host the request came to).

    The scheme is not compared: behind a TLS proxy this server sees http while the page is
    https. ``null`` and anything unparsable are foreign.

    >>> same_origin("http://127.0.0.1:8000", "127.0.0.1:8000")
    True
    >>> same_origin("https://api.example.com", "api.example.com")
    True
    >>> same_origin("https://evil.example", "api.example.com"), same_origin("null", "a.b")
    (False, False)
    """
    if not host or "://" not in origin:
        return False
    origin_scheme, _, netloc = origin.partition("://")
    netloc, host = netloc.lower(), host.lower()
    default = {"http": ":80", "https": ":443"}.get(origin_scheme.lower(), "")
    return netloc == host or (bool(default) and f"{netloc}{default}" == host)
