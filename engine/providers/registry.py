"""Provider name + settings mapping -> a ready Provider.

The environment is passed in as a mapping (``config.py`` reads ``os.environ`` once); the
providers themselves never read it. Keys used:

- ``OPENAI_API_KEY``, ``OPENAI_BASE_URL`` (any OpenAI-compatible server: vLLM, Ollama, ...)
- ``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``

Example::

    provider = build_provider("openai", {"OPENAI_API_KEY": "sk-..."})
    scripted = build_provider("scripted", {}, fixture="tests/transfer.replies.yaml")
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import cast

from engine.errors import FlowRuntimeError
from engine.providers.base import Provider, ProviderSettings
from engine.providers.forms import FORMS
from engine.registry import PROVIDER_ENTRY_POINTS

Factory = Callable[[Mapping[str, str], str | Path | None], Provider]

# A key placeholder for OpenAI-compatible local servers, which accept any key.
LOCAL_SERVER_KEY = "not-needed"


def _openai(env: Mapping[str, str], fixture: str | Path | None) -> Provider:
    base_url = env.get("OPENAI_BASE_URL") or None
    key = env.get("OPENAI_API_KEY") or (LOCAL_SERVER_KEY if base_url else None)
    if key is None:  # checked before the import: an offline model never loads the SDK
        raise FlowRuntimeError("provider 'openai' needs OPENAI_API_KEY (or OPENAI_BASE_URL for an "
                               "OpenAI-compatible server); export it, or pick another provider "
                               "in the models block")
    from engine.providers.openai import OpenAIProvider

    form = env.get("OPENAI_JSON_FORM", "").strip() or None
    if form is not None and form not in FORMS:
        raise FlowRuntimeError(f"OPENAI_JSON_FORM is {form!r}; it is one of {', '.join(FORMS)}")
    return OpenAIProvider(ProviderSettings(api_key=key, base_url=base_url, json_form=form))


def _anthropic(env: Mapping[str, str], fixture: str | Path | None) -> Provider:
    key = env.get("ANTHROPIC_API_KEY")
    if not key:  # checked before the import, as for openai
        raise FlowRuntimeError("provider 'anthropic' needs ANTHROPIC_API_KEY; export it, or pick "
                               "another provider in the models block")
    from engine.providers.anthropic import AnthropicProvider

    base_url = env.get("ANTHROPIC_BASE_URL") or None
    return AnthropicProvider(ProviderSettings(api_key=key, base_url=base_url))


def _scripted(env: Mapping[str, str], fixture: str | Path | None) -> Provider:
    from engine.providers.scripted import ScriptedProvider

    if fixture is None:
        raise ValueError("provider 'scripted' needs a fixture file: "
                         "build_provider('scripted', env, fixture='path/to/replies.yaml')")
    return ScriptedProvider(fixture)


FACTORIES: Mapping[str, Factory] = {
    "openai": _openai,
    "anthropic": _anthropic,
    "scripted": _scripted,
}


def build_provider(
    name: str,
    env: Mapping[str, str],
    *,
    fixture: str | Path | None = None,
    extra: Mapping[str, Factory] | None = None,
) -> Provider:
    """Build the provider called ``name``; ``extra`` adds factories (e.g. ``offline``).

    Raises ValueError for an unknown name (listing the known ones) and FlowRuntimeError when
    a required key is missing from ``env``.
    """
    factories = {**FACTORIES, **(extra or {})}
    factory = factories.get(name) or _installed(name)
    if factory is None:
        known = {*factories, *(ep.name for ep in entry_points(group=PROVIDER_ENTRY_POINTS))}
        raise ValueError(f"unknown provider {name!r}; known providers: "
                         f"{', '.join(sorted(known))}")
    return factory(env, fixture)


def _installed(name: str) -> Factory | None:
    """The factory an installed package adds as provider ``name`` (entry-point group
    ``flowctl.providers``); a package that fails to load is an error naming it."""
    for point in entry_points(group=PROVIDER_ENTRY_POINTS, name=name):
        try:
            factory = point.load()
        except Exception as err:
            raise FlowRuntimeError(f"provider {name!r} from {point.value}: could not load it "
                                   f"({type(err).__name__}: {err})") from None
        if not callable(factory):
            raise FlowRuntimeError(f"provider {name!r} from {point.value} is not a factory "
                                   f"(env, fixture) -> Provider")
        return cast(Factory, factory)
    return None


def available_providers(env: Mapping[str, str]) -> list[str]:
    """Vendor providers usable with ``env``: openai (key or base URL), anthropic (key)."""
    found = []
    if env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
        found.append("openai")
    if env.get("ANTHROPIC_API_KEY"):
        found.append("anthropic")
    return found
