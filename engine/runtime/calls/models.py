"""A service's ``models:`` + the environment -> live providers, or offline with a reason.

A model whose provider has no key (or is ``offline``) is not an error: its agent steps
answer from their fallback templates and understanding uses the rules alone, so every
service runs with no API key. ``FLOWCTL_MODEL_<NAME>=provider[:model]`` (or
``scripted:path/to/replies.yaml``), with ``,timeout=S``, ``,retries=N`` and
``,max_tokens=N`` if need be, swaps a model or its limits at deploy or test time without
editing the flow. Each live model has a circuit breaker shared by all turns.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.compiler.compiled import CompiledService
from engine.config import SettingsError
from engine.errors import FlowRuntimeError
from engine.providers.base import ModelConfig, Provider
from engine.providers.explain import live_line, offline_line
from engine.providers.registry import build_provider
from engine.providers.reliability import CircuitBreaker
from engine.registry import is_provider, provider_names

if TYPE_CHECKING:  # a build holds the flow's models as records (engine.dsl.records)
    from engine.dsl.spec import ModelSpec

log = logging.getLogger("flowctl.models")


@dataclass
class LiveModel:
    name: str
    provider: Provider
    config: ModelConfig
    spec: ModelSpec
    breaker: CircuitBreaker = field(default_factory=lambda: CircuitBreaker(threshold=5,
                                                                           cooldown_sec=30.0))


class ModelPool:
    """Live models by name; ``get`` returns None for a model that runs offline."""

    def __init__(self, service: CompiledService, env: Mapping[str, str], *,
                 providers: Mapping[str, Provider] | None = None) -> None:
        self.live: dict[str, LiveModel] = {}
        self.offline: dict[str, str] = {}
        self._env, self._base_dir = env, service.base_dir
        for name, spec in service.models.items():
            spec = _override(name, spec, env, service.base_dir)
            try:
                provider = (providers or {}).get(name) or _build(spec, env, service.base_dir)
            except FlowRuntimeError as err:
                provider = None
                self.offline[name] = str(err)
            if provider is None:
                self.offline.setdefault(name, "provider `offline`")
                continue
            self.live[name] = LiveModel(name, provider, _config(spec, name), spec)
            log.info("%s", live_line(name, spec, env))
        for name, reason in self.offline.items():
            spec = _override(name, service.models[name], env, service.base_dir)
            log.info("%s", offline_line(name, spec, reason, env))

    def get(self, name: str | None) -> LiveModel | None:
        return self.live.get(name) if name else None

    def summary(self, name: str | None) -> LiveModel | None:
        """The memory summary model: a ``models:`` entry by name, else ``name`` read as a
        vendor model (``gpt-4o-mini``, ``claude-3-5-haiku-latest``, ``openai:gpt-4o-mini``),
        built once on first use; None when it runs offline (no key), logged once."""
        if not name or name in self.live or name in self.offline:
            return self.get(name)
        spec = vendor_model(name)
        try:
            provider = _build(spec, self._env, self._base_dir)
        except FlowRuntimeError as err:
            provider, self.offline[name] = None, str(err)
        if provider is None:
            self.offline.setdefault(name, "provider `offline`")
            log.info("summary model %s runs offline: %s", name, self.offline[name])
            return None
        self.live[name] = LiveModel(name, provider, _config(spec, name), spec)
        return self.live[name]

    async def close(self) -> None:
        for model in self.live.values():
            close = getattr(model.provider, "aclose", None)
            if close is not None:
                await close()


def vendor_model(name: str) -> ModelSpec:
    """``provider:model`` or a bare vendor model name (``claude-*`` is Anthropic's, any
    other OpenAI's or an OpenAI-compatible server's) as a model spec."""
    from engine.dsl.spec import ModelSpec  # only when the operator names a vendor model

    provider, sep, model = name.partition(":")
    if sep and is_provider(provider):
        return ModelSpec(provider=provider, model=model)
    return ModelSpec(provider="anthropic" if name.startswith("claude") else "openai", model=name)


def _override(name: str, spec: ModelSpec, env: Mapping[str, str], base_dir: Path) -> ModelSpec:
    """``FLOWCTL_MODEL_<NAME>=provider[:model][,timeout=S][,retries=N][,max_tokens=N]`` (or
    ``scripted:replies.yaml``) swaps a model and its limits; ``,timeout=60`` alone keeps the
    flow's model and changes only that. The operator asked for it, so a provider, replies
    file or option that is not there is an error. Without it, ``OPENAI_MODEL`` (as OpenAI's
    own tools read it) replaces the model name of an ``openai`` model."""
    var = f"FLOWCTL_MODEL_{name.upper()}"
    raw = env.get(var)
    if not raw:  # OPENAI_MODEL names the model of every OpenAI model the flow declares
        default = env.get("OPENAI_MODEL", "").strip()
        return spec.model_copy(update={"model": default}) \
            if default and spec.provider == "openai" else spec
    head, *options = raw.split(",")
    spec = spec.model_copy(update=_options(var, raw, options))
    if not head:
        return spec
    provider, _, rest = head.partition(":")
    if not is_provider(provider):
        raise SettingsError(f"{var}={raw!r} names an unknown provider; known: "
                            f"{', '.join(provider_names())}")
    if provider == "scripted":
        fixture = rest or spec.fixture
        if not fixture or not (base_dir / fixture).is_file():
            raise SettingsError(f"{var}={raw!r}: replies file {fixture or '(none)'} not found "
                                f"(a path relative to {base_dir})")
        return spec.model_copy(update={"provider": "scripted", "fixture": fixture})
    return spec.model_copy(update={"provider": provider, "model": rest or spec.model})


_OPTIONS = {"timeout": ("timeout_sec", float, 0.001, None),
            "retries": ("max_retry", int, 0, 10),
            "max_tokens": ("max_tokens", int, 1, None)}


def _options(var: str, raw: str, options: list[str]) -> dict[str, float | int]:
    """``timeout=S``, ``retries=N``, ``max_tokens=N`` -> the model spec's fields."""
    found: dict[str, float | int] = {}
    for option in filter(None, (o.strip() for o in options)):
        key, _, value = option.partition("=")
        if key.strip() not in _OPTIONS:
            raise SettingsError(f"{var}={raw!r}: unknown option {key.strip()!r}; known: "
                                f"{', '.join(_OPTIONS)}")
        field_name, kind, low, high = _OPTIONS[key.strip()]
        try:
            number = kind(value.strip())
        except ValueError:
            raise SettingsError(f"{var}={raw!r}: {key.strip()} must be a number") from None
        if number < low or (high is not None and number > high):
            bound = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise SettingsError(f"{var}={raw!r}: {key.strip()} must be {bound}")
        found[field_name] = number
    return found


def _build(spec: ModelSpec, env: Mapping[str, str], base_dir: Path) -> Provider | None:
    if spec.provider == "offline":
        return None
    if not is_provider(spec.provider):
        raise FlowRuntimeError(f"unknown provider {spec.provider!r}")
    fixture = base_dir / spec.fixture if spec.fixture else None
    try:
        return build_provider(spec.provider, env, fixture=fixture)
    except ValueError as err:
        raise FlowRuntimeError(str(err)) from None


DEFAULT_MAX_TOKENS = 512
"""Output tokens of one reply when the model's ``max_tokens`` is not set: a weak model that
runs on cannot keep a turn (and the user) waiting for thousands of tokens."""


def _config(spec: ModelSpec, name: str = "") -> ModelConfig:
    return ModelConfig(provider=spec.provider, model=spec.model, temperature=spec.temperature,
                       name=name,
                       max_tokens=spec.max_tokens or DEFAULT_MAX_TOKENS,
                       max_retry=spec.max_retry,
                       backoff_sec=spec.backoff_sec, timeout_sec=spec.timeout_sec)
