"""Environment mapping (+ a flow file's defaults) -> Settings; the only module that reads the
environment, and the one place where the precedence of a setting is decided.

Precedence for each setting: the environment, then the flow file (``settings:`` and
``memory:``, and a flow's own ``max_fill_turns``), then the built-in default. Callers pass
the mapping in (``os.environ`` by default only at the CLI edge), so tests and embedders
inject their own. A value that does not parse is a ``SettingsError`` naming the variable.

Every variable is ``FLOWCTL_``-prefixed. The old unprefixed names (``DEV_MODE``,
``MAX_FILL_TURNS``, ``MEMORY_*``; ``DEPRECATED_VARIABLES``) are still read when the new
name is not set, with one warning line per old name and process on the ``flowctl.config``
logger (stderr when nothing configured logging: ``flowctl serve`` and ``chat`` read the
settings before uvicorn configures it). A logger rather than a DeprecationWarning: Python
hides those outside ``__main__``, so an operator would never see it.
"""

from __future__ import annotations

import ipaddress
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from engine.errors import FlowRuntimeError
from engine.precompiled import re_compile

if TYPE_CHECKING:
    from engine.dsl.spec import MemorySpec

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})
_Key = TypeVar("_Key", bound=str)  # any str keys: the spec's are a Literal of FLOW_SETTINGS


class SettingsError(FlowRuntimeError):
    """A setting in the environment has a value flowctl cannot use."""


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most ``requests`` per ``seconds`` (a token bucket holding ``requests``)."""

    requests: int
    seconds: float

    def __str__(self) -> str:
        unit = {1.0: "second", 60.0: "minute", 3600.0: "hour"}.get(self.seconds)
        return f"{self.requests}/{unit or f'{self.seconds:g}s'}"


DEFAULT_RATE_LIMIT = RateLimit(600, 60.0)
MIN_KEY_CHARS = 16
MIN_COOKIE_SECRET_CHARS = 32


@dataclass(frozen=True, slots=True)
class Settings:
    """Runtime settings: from the environment, a flow file's defaults where it is silent."""

    dev_mode: bool = False
    max_fill_turns: int = 5
    memory_enable_summary: bool = True
    memory_summarize_threshold: int = 6
    memory_keep_recent_turns: int = 4
    memory_summary_model: str | None = None
    memory_max_raw_turns: int = 20
    """The raw turns a session keeps at most, whatever else happens (a summary not yet
    written, its model failing): older ones go into the summary at once."""
    max_message_chars: int = 4000
    turn_deadline_ms: int = 6000
    """Every model call of a turn, with its retries, ends by then; the rules answer after."""
    turns_per_minute: int = 0
    """FLOWCTL_TURNS_PER_MINUTE: the turns one caller may start a minute (0: no limit); the
    operator's, never a flow file's."""
    # -- the HTTP server's (``flowctl serve``); never from a flow file --
    api_keys: tuple[str, ...] = field(default=(), repr=False)
    """FLOWCTL_API_KEYS / FLOWCTL_API_KEYS_FILE; none: loopback clients only."""
    cookie_secret: str | None = field(default=None, repr=False)
    """FLOWCTL_COOKIE_SECRET signs login cookies; None: a random secret per process."""
    allow_anonymous: bool = False
    """FLOWCTL_ALLOW_ANONYMOUS / --allow-anonymous: no keys and any client may connect."""
    cors_origins: tuple[str, ...] = ()
    """FLOWCTL_CORS_ORIGINS / --cors-origin: other origins whose pages may call the API."""
    allowed_hosts: tuple[str, ...] = ()
    """FLOWCTL_ALLOWED_HOSTS / --allowed-host: Host header values besides the loopback ones."""
    rate_limit: RateLimit | None = DEFAULT_RATE_LIMIT
    """FLOWCTL_RATE_LIMIT: requests per principal (``120/minute``); None: unlimited."""
    retention_days: float | None = None
    """FLOWCTL_RETENTION_DAYS: sessions untouched (and completed tasks recorded) that many
    days ago are deleted, hourly; None: kept until deleted."""
    metrics: bool = True
    """FLOWCTL_METRICS: ``GET /metrics`` in Prometheus's format (counts, never content)."""
    admin_key: str | None = field(default=None, repr=False)
    """FLOWCTL_ADMIN_KEY: the operator's key for ``/v1/admin/*``; None: no such routes."""
    # -- local side effects (workspace and command actions); never from a flow file --
    workspace_root: str | None = None
    """FLOWCTL_WORKSPACE_ROOT / --workspace-root: the one directory workspace and command
    actions may touch; None: they fail, saying so."""
    allowed_commands: tuple[str, ...] = ()
    """FLOWCTL_ALLOW_COMMANDS (comma-separated) / --allow-command: argv prefixes a command
    action may run, e.g. ``python -m pytest``."""
    command_env: tuple[str, ...] = ()
    """FLOWCTL_COMMAND_ENV: variables a command gets besides PATH, LANG, LC_ALL and TZ."""
    command_programs: Mapping[str, str] = field(default_factory=dict)
    """argv[0] -> the program run for it (``flowctl test`` runs ``python`` as itself)."""
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    from_env: frozenset[str] = frozenset()
    """The settings the environment set; a flow file's defaults do not replace these."""

    def with_flow_defaults(self, defaults: Mapping[_Key, Any],
                           memory: MemorySpec | None = None) -> Settings:
        """Apply a flow file's ``settings:`` and ``memory:`` where the environment is silent.

        Only ``FLOW_SETTINGS`` may come from a flow file: nothing security-relevant (such as
        ``dev_mode``, which opens the debug endpoint) is switchable from YAML.
        """
        values: dict[str, Any] = {k: v for k, v in defaults.items() if k in FLOW_SETTINGS}
        if memory is not None:
            values.update(memory_enable_summary=memory.enabled,
                          memory_summarize_threshold=memory.summarize_threshold,
                          memory_keep_recent_turns=memory.keep_recent_turns,
                          memory_summary_model=memory.summary_model,
                          memory_max_raw_turns=memory.max_raw_turns)
        return replace(self, **{k: v for k, v in values.items() if k not in self.from_env})

    def fill_turns(self, flow_value: int | None) -> int:
        """A flow's own ``max_fill_turns`` beats the file's default, not the environment."""
        if flow_value is not None and "max_fill_turns" not in self.from_env:
            return flow_value
        return self.max_fill_turns

    def with_serve_options(self, *, allow_anonymous: bool = False,
                           cors_origins: Iterable[str] = (),
                           allowed_hosts: Iterable[str] = ()) -> Settings:
        """Add ``flowctl serve``'s command-line options to what the environment set.

        >>> s = Settings().with_serve_options(cors_origins=["https://app.example.com/"])
        >>> s.cors_origins
        ('https://app.example.com',)
        >>> Settings().with_serve_options(allowed_hosts=["a b"])
        Traceback (most recent call last):
        engine.config.SettingsError: --allowed-host 'a b' is not a host name like \
api.example.com or *.example.com
        """
        origins = tuple(_origin("--cors-origin", o) for o in cors_origins)
        hosts = tuple(_host_pattern("--allowed-host", h) for h in allowed_hosts)
        return replace(self, allow_anonymous=self.allow_anonymous or allow_anonymous,
                       cors_origins=_unique(self.cors_origins + origins),
                       allowed_hosts=_unique(self.allowed_hosts + hosts))


_ENV_NAMES = {
    "dev_mode": "FLOWCTL_DEV_MODE",
    "max_fill_turns": "FLOWCTL_MAX_FILL_TURNS",
    "memory_enable_summary": "FLOWCTL_MEMORY_ENABLE_SUMMARY",
    "memory_summarize_threshold": "FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD",
    "memory_keep_recent_turns": "FLOWCTL_MEMORY_KEEP_RECENT_TURNS",
    "memory_summary_model": "FLOWCTL_MEMORY_SUMMARY_MODEL",
    "memory_max_raw_turns": "FLOWCTL_MEMORY_MAX_RAW_TURNS",
    "max_message_chars": "FLOWCTL_MAX_MESSAGE_CHARS",
    "turn_deadline_ms": "FLOWCTL_TURN_DEADLINE_MS",
    "turns_per_minute": "FLOWCTL_TURNS_PER_MINUTE",
}
DEPRECATED_VARIABLES = {old: f"FLOWCTL_{old}" for old in (
    "DEV_MODE", "MAX_FILL_TURNS", "MEMORY_ENABLE_SUMMARY", "MEMORY_SUMMARIZE_THRESHOLD",
    "MEMORY_KEEP_RECENT_TURNS", "MEMORY_SUMMARY_MODEL", "MEMORY_MAX_RAW_TURNS")}
"""An old unprefixed name -> the variable that replaced it (the old one is still read)."""
_MINIMUM = {"memory_keep_recent_turns": 0, "turns_per_minute": 0}  # all else: at least 1
SETTING_NAMES = tuple(_ENV_NAMES)
FLOW_SETTINGS = ("max_fill_turns", "max_message_chars", "turn_deadline_ms")
SERVER_VARIABLES = ("FLOWCTL_API_KEYS", "FLOWCTL_API_KEYS_FILE", "FLOWCTL_COOKIE_SECRET",
                    "FLOWCTL_ALLOW_ANONYMOUS", "FLOWCTL_CORS_ORIGINS", "FLOWCTL_ALLOWED_HOSTS",
                    "FLOWCTL_RATE_LIMIT", "FLOWCTL_METRICS")


log = logging.getLogger("flowctl.config")
_OLD_NAMES = {new: old for old, new in DEPRECATED_VARIABLES.items()}
_warned: set[str] = set()
"""The old names warned about in this process (a forked worker inherits it: no repeat)."""


def _variable(env: Mapping[str, str], new: str) -> str | None:
    """The variable ``env`` sets a setting with: ``new``, else its deprecated old name (one
    warning line per old name and process, saying it is ignored when both are set), else
    None."""
    old = _OLD_NAMES.get(new)
    if old is None or old not in env:
        return new if new in env else None
    if old not in _warned:
        _warned.add(old)
        if new in env:
            log.warning("flowctl: %s is deprecated and ignored because %s is set; unset %s",
                        old, new, old)
        else:
            log.warning("flowctl: %s is deprecated; set %s instead", old, new)
    return new if new in env else old


def store_url(option: str | None, default: str, env: Mapping[str, str] | None = None) -> str:
    """The session store: the ``--store`` option, else FLOWCTL_STORE, else ``default``.

    >>> store_url(None, "memory://", {"FLOWCTL_STORE": "postgresql://db/flowctl"})
    'postgresql://db/flowctl'
    >>> store_url("sqlite:///s.db", "memory://", {"FLOWCTL_STORE": "postgresql://db/x"})
    'sqlite:///s.db'
    """
    env = os.environ if env is None else env
    return option or env.get("FLOWCTL_STORE", "").strip() or default


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read settings from ``env`` (``os.environ`` when None); a bad value is a SettingsError."""
    env = dict(os.environ if env is None else env)
    values: dict[str, Any] = {}
    defaults = Settings()
    for name, new in _ENV_NAMES.items():
        var = _variable(env, new)
        if var is not None:
            values[name] = _parse(var, env[var].strip(), getattr(defaults, name),
                                  _MINIMUM.get(name, 1))
    server = {**_server_settings(env), **_local_settings(env)}
    return Settings(**values, **server, env=env, from_env=frozenset(values) | frozenset(server))


LOCAL_VARIABLES = ("FLOWCTL_WORKSPACE_ROOT", "FLOWCTL_ALLOW_COMMANDS", "FLOWCTL_COMMAND_ENV")


def local_options(env: Mapping[str, str], workspace_root: str | None,
                  allow_commands: Iterable[str]) -> dict[str, str]:
    """``flowctl serve --workspace-root/--allow-command`` as the variables they stand for
    (commands add to FLOWCTL_ALLOW_COMMANDS).

    >>> local_options({}, "/srv/ws", ["python -m pytest"])
    {'FLOWCTL_WORKSPACE_ROOT': '/srv/ws', 'FLOWCTL_ALLOW_COMMANDS': 'python -m pytest'}
    """
    out = {"FLOWCTL_WORKSPACE_ROOT": workspace_root} if workspace_root else {}
    commands = [c for c in (env.get("FLOWCTL_ALLOW_COMMANDS", ""), *allow_commands) if c.strip()]
    if commands:
        out["FLOWCTL_ALLOW_COMMANDS"] = ",".join(commands)
    return out


def _local_settings(env: Mapping[str, str]) -> dict[str, Any]:
    """The workspace root, the command allow-list and the variables commands get."""
    values: dict[str, Any] = {}
    root = env.get("FLOWCTL_WORKSPACE_ROOT", "").strip()
    if root:
        if not os.path.isdir(root):
            raise SettingsError(f"FLOWCTL_WORKSPACE_ROOT={root!r} is not a directory")
        values["workspace_root"] = os.path.realpath(root)
    for name, var in (("allowed_commands", "FLOWCTL_ALLOW_COMMANDS"),
                      ("command_env", "FLOWCTL_COMMAND_ENV")):
        items = tuple(i.strip() for i in env.get(var, "").split(",") if i.strip())
        if items:
            values[name] = _unique(items)
    return values


def _server_settings(env: Mapping[str, str]) -> dict[str, Any]:
    """The HTTP server's settings that ``env`` sets (a file of keys is read here, once)."""
    values: dict[str, Any] = {}
    keys = _keys("FLOWCTL_API_KEYS", env.get("FLOWCTL_API_KEYS", "").split(","))
    path = env.get("FLOWCTL_API_KEYS_FILE", "").strip()
    if path:
        keys += _keys_file(path)
    if keys:
        values["api_keys"] = _unique(keys)
    secret = env.get("FLOWCTL_COOKIE_SECRET", "").strip()
    if secret:
        if len(secret) < MIN_COOKIE_SECRET_CHARS:
            raise SettingsError(f"FLOWCTL_COOKIE_SECRET is shorter than "
                                f"{MIN_COOKIE_SECRET_CHARS} characters")
        values["cookie_secret"] = secret
    admin = env.get("FLOWCTL_ADMIN_KEY", "").strip()
    if admin:
        if len(admin) < MIN_COOKIE_SECRET_CHARS:
            raise SettingsError(f"FLOWCTL_ADMIN_KEY is shorter than {MIN_COOKIE_SECRET_CHARS} "
                                "characters")
        values["admin_key"] = admin
    for name, var in (("allow_anonymous", "FLOWCTL_ALLOW_ANONYMOUS"),
                      ("metrics", "FLOWCTL_METRICS")):
        if var in env:
            values[name] = _parse(var, env[var].strip(), False, 0)
    for name, var, parse in (("cors_origins", "FLOWCTL_CORS_ORIGINS", _origin),
                             ("allowed_hosts", "FLOWCTL_ALLOWED_HOSTS", _host_pattern)):
        items = [item.strip() for item in env.get(var, "").split(",") if item.strip()]
        if items:
            values[name] = _unique(tuple(parse(var, item) for item in items))
    if env.get("FLOWCTL_RETENTION_DAYS", "").strip():
        values["retention_days"] = _days("FLOWCTL_RETENTION_DAYS", env["FLOWCTL_RETENTION_DAYS"])
    if "FLOWCTL_RATE_LIMIT" in env:
        values["rate_limit"] = parse_rate_limit("FLOWCTL_RATE_LIMIT",
                                                env["FLOWCTL_RATE_LIMIT"])
    return values


_KEY = re_compile(r"[\x21-\x7e]+")  # visible ASCII: what an Authorization header carries
_RATE = re_compile(r"(\d+)\s*/\s*(\d*)\s*(s|sec|second|m|min|minute|h|hour)s?")
_UNITS = {"s": 1.0, "sec": 1.0, "second": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0,
          "h": 3600.0, "hour": 3600.0}
_LABEL = r"[a-z0-9]([a-z0-9-]*[a-z0-9])?"
_HOST = re_compile(rf"\*|(\*\.)?{_LABEL}(\.{_LABEL})*\.?")


def _days(var: str, raw: str) -> float:
    try:
        days = float(raw.strip())
    except ValueError:
        raise SettingsError(f"{var}={raw!r} is not a number of days") from None
    if not days > 0 or days == float("inf"):
        raise SettingsError(f"{var}={raw!r} must be a positive number of days")
    return days


def _keys(where: str, raw: Iterable[str]) -> tuple[str, ...]:
    """API keys, checked without ever echoing one (an error names its position only)."""
    keys = tuple(key.strip() for key in raw if key.strip())
    for number, key in enumerate(keys, 1):
        if not _KEY.fullmatch(key):
            raise SettingsError(f"{where}: key {number} has a character other than visible "
                                "ASCII (no spaces)")
        if len(key) < MIN_KEY_CHARS:
            raise SettingsError(f"{where}: key {number} is shorter than {MIN_KEY_CHARS} "
                                "characters; make one with `python3 -c 'import secrets; "
                                "print(secrets.token_urlsafe(32))'`")
    return keys


def _keys_file(path: str) -> tuple[str, ...]:
    where = f"FLOWCTL_API_KEYS_FILE={path!r}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
        raise SettingsError(f"{where}: cannot read it: {reason}") from None
    keys = _keys(where, (line for line in text.splitlines()
                         if not line.lstrip().startswith("#")))
    if not keys:
        raise SettingsError(f"{where} holds no key (one a line; # starts a comment)")
    return keys


def parse_rate_limit(where: str, raw: str) -> RateLimit | None:
    """``120/minute``, ``5/second``, ``1000/hour``, ``30/10s``; ``off`` (or 0) for none.

    >>> parse_rate_limit("FLOWCTL_RATE_LIMIT", "120/minute")
    RateLimit(requests=120, seconds=60.0)
    >>> parse_rate_limit("FLOWCTL_RATE_LIMIT", "30/10s"), parse_rate_limit("X", "off")
    (RateLimit(requests=30, seconds=10.0), None)
    """
    text = raw.strip().lower()
    if text in {"off", "none", "0", "unlimited"}:
        return None
    match = _RATE.fullmatch(text)
    if match is None or int(match[1]) < 1 or match[2] == "0":
        raise SettingsError(f"{where}={raw!r} is not a rate like 120/minute, 5/second, "
                            "1000/hour or 30/10s (or off)")
    return RateLimit(int(match[1]), int(match[2] or 1) * _UNITS[match[3]])


def _origin(where: str, raw: str) -> str:
    """``https://app.example.com[:port]`` (a trailing slash dropped), as a browser sends it."""
    text = raw.strip().rstrip("/")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if (parts is None or parts.scheme not in ("http", "https") or not parts.hostname
            or parts.path or parts.query or parts.fragment or "@" in parts.netloc):
        raise SettingsError(f"{where} {raw!r} is not an origin like https://app.example.com "
                            "(scheme, host and port only; * is not allowed)")
    host = parts.hostname
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    default = {"http": 80, "https": 443}[parts.scheme]
    return f"{parts.scheme}://{host}" + (f":{port}" if port not in (None, default) else "")


def _host_pattern(where: str, raw: str) -> str:
    """A Host header value to accept: a name, ``*.example.com``, an IP address or ``*``."""
    text = raw.strip().lower()
    try:
        ip = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        ip = None
    if ip is not None:
        return f"[{ip}]" if ip.version == 6 else str(ip)
    if not _HOST.fullmatch(text):
        raise SettingsError(f"{where} {raw!r} is not a host name like api.example.com or "
                            "*.example.com")
    return text


def _unique(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _parse(var: str, raw: str, default: object, minimum: int) -> Any:
    if isinstance(default, bool):
        if raw.lower() in _TRUE | _FALSE:
            return raw.lower() in _TRUE
        raise SettingsError(f"{var}={raw!r} is not a yes/no value; use true or false")
    if isinstance(default, int):
        try:
            number = int(raw)
        except ValueError:
            raise SettingsError(f"{var}={raw!r} is not a whole number") from None
        if number < minimum:
            raise SettingsError(f"{var}={raw!r} must be at least {minimum}")
        return number
    return raw or None


__all__ = ["DEFAULT_RATE_LIMIT", "DEPRECATED_VARIABLES", "FLOW_SETTINGS", "LOCAL_VARIABLES",
           "SERVER_VARIABLES", "SETTING_NAMES", "RateLimit", "Settings", "SettingsError",
           "load_settings", "local_options", "parse_rate_limit", "store_url"]


def load_env_file(path: str = ".env") -> None:
    """Variables of ``path`` (dotenv syntax) that the environment does not set already; the
    CLI calls this once at start, so `.env` never overrides an exported variable."""
    from dotenv import load_dotenv

    if os.path.isfile(path):
        load_dotenv(path, override=False)
