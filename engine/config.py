"""Environment mapping (+ a flow file's defaults) -> Settings; the only module that reads the
environment, and the one place where the precedence of a setting is decided.

Precedence for each setting: the environment, then the flow file (``settings:`` and
``memory:``, and a flow's own ``max_fill_turns``), then the built-in default. Callers pass
the mapping in (``os.environ`` by default only at the CLI edge), so tests and embedders
inject their own. A value that does not parse is a ``SettingsError`` naming the variable.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from engine.dsl.spec import MemorySpec
from engine.errors import FlowRuntimeError

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})
_Key = TypeVar("_Key", bound=str)  # any str keys: the spec's are a Literal of FLOW_SETTINGS


class SettingsError(FlowRuntimeError):
    """A setting in the environment has a value flowctl cannot use."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Runtime settings (seed 000 §9)."""

    dev_mode: bool = False
    max_fill_turns: int = 5
    memory_enable_summary: bool = True
    memory_summarize_threshold: int = 6
    memory_keep_recent_turns: int = 4
    memory_summary_model: str | None = None
    max_message_chars: int = 4000
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
                          memory_summary_model=memory.summary_model)
        return replace(self, **{k: v for k, v in values.items() if k not in self.from_env})

    def fill_turns(self, flow_value: int | None) -> int:
        """A flow's own ``max_fill_turns`` beats the file's default, not the environment."""
        if flow_value is not None and "max_fill_turns" not in self.from_env:
            return flow_value
        return self.max_fill_turns


_ENV_NAMES = {
    "dev_mode": "DEV_MODE",
    "max_fill_turns": "MAX_FILL_TURNS",
    "memory_enable_summary": "MEMORY_ENABLE_SUMMARY",
    "memory_summarize_threshold": "MEMORY_SUMMARIZE_THRESHOLD",
    "memory_keep_recent_turns": "MEMORY_KEEP_RECENT_TURNS",
    "memory_summary_model": "MEMORY_SUMMARY_MODEL",
    "max_message_chars": "FLOWCTL_MAX_MESSAGE_CHARS",
}
_MINIMUM = {"memory_keep_recent_turns": 0}  # every other whole number must be at least 1
SETTING_NAMES = tuple(_ENV_NAMES)
FLOW_SETTINGS = ("max_fill_turns", "max_message_chars")


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read settings from ``env`` (``os.environ`` when None); a bad value is a SettingsError."""
    env = dict(os.environ if env is None else env)
    values: dict[str, Any] = {}
    defaults = Settings()
    for name, var in _ENV_NAMES.items():
        if var in env:
            values[name] = _parse(var, env[var].strip(), getattr(defaults, name),
                                  _MINIMUM.get(name, 1))
    return Settings(**values, env=env, from_env=frozenset(values))


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


__all__ = ["FLOW_SETTINGS", "SETTING_NAMES", "Settings", "SettingsError", "load_settings"]
