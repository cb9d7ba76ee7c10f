"""Start-up words about each model: which provider serves it and by which setting, or why it
runs offline and what would make it live."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.providers.registry import available_providers

if TYPE_CHECKING:
    from engine.dsl.spec import ModelSpec

_KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def live_line(name: str, spec: ModelSpec, env: Mapping[str, str]) -> str:
    """``model fast: openai gpt-4.1-mini (OPENAI_API_KEY)``."""
    return f"model {name}: {spec.provider} {spec.model or ''}".rstrip() + _why(spec, env)


def _why(spec: ModelSpec, env: Mapping[str, str]) -> str:
    if spec.provider == "scripted":
        return f" (replies from {spec.fixture})"
    if spec.provider == "openai" and not env.get("OPENAI_API_KEY") and env.get("OPENAI_BASE_URL"):
        return f" (OPENAI_BASE_URL={env['OPENAI_BASE_URL']})"
    key = _KEYS.get(spec.provider)
    return f" ({key})" if key else ""


def offline_line(name: str, spec: ModelSpec, reason: str, env: Mapping[str, str]) -> str:
    """Why ``name`` runs offline, and a swap to a provider whose key is set, if any."""
    line = f"model {name} runs offline: {reason}"
    others = [p for p in available_providers(env) if p != spec.provider]
    if others:
        var = f"FLOWCTL_MODEL_{name.upper()}"
        line += f" ({_KEYS.get(others[0], others[0])} is set: swap with {var}={others[0]}:MODEL)"
    return line
