"""Environment mapping -> Settings; the only module that reads the environment.

Precedence for each setting: the environment, then the flow file's ``settings:`` block,
then the built-in default. Callers pass the mapping in (``os.environ`` by default only at
the CLI edge), so tests and embedders inject their own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

_TRUE = {"1", "true", "yes", "on"}
_Key = TypeVar("_Key", bound=str)  # any str keys: the spec's are a Literal of FLOW_SETTINGS


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

    def with_flow_defaults(self, defaults: Mapping[_Key, Any]) -> Settings:
        """Apply a flow file's ``settings:`` where the environment did not set a value.

        Only ``FLOW_SETTINGS`` may come from a flow file: nothing security-relevant (such as
        ``dev_mode``, which opens the debug endpoint) is switchable from YAML.
        """
        known = {k: v for k, v in defaults.items()
                 if k in FLOW_SETTINGS and _ENV_NAMES[k] not in self.env}
        return replace(self, **known)


_ENV_NAMES = {
    "dev_mode": "DEV_MODE",
    "max_fill_turns": "MAX_FILL_TURNS",
    "memory_enable_summary": "MEMORY_ENABLE_SUMMARY",
    "memory_summarize_threshold": "MEMORY_SUMMARIZE_THRESHOLD",
    "memory_keep_recent_turns": "MEMORY_KEEP_RECENT_TURNS",
    "memory_summary_model": "MEMORY_SUMMARY_MODEL",
    "max_message_chars": "FLOWCTL_MAX_MESSAGE_CHARS",
}
SETTING_NAMES = tuple(_ENV_NAMES)
FLOW_SETTINGS = ("max_fill_turns", "max_message_chars")


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read settings from ``env`` (``os.environ`` when None); bad numbers raise ValueError."""
    env = dict(os.environ if env is None else env)
    values: dict[str, Any] = {}
    defaults = Settings()
    for name, var in _ENV_NAMES.items():
        if var not in env:
            continue
        current = getattr(defaults, name)
        raw = env[var].strip()
        if isinstance(current, bool):
            values[name] = raw.lower() in _TRUE
        elif isinstance(current, int):
            try:
                values[name] = int(raw)
            except ValueError:
                raise ValueError(f"{var}={raw!r} is not a whole number") from None
        else:
            values[name] = raw or None
    return Settings(**values, env=env)
