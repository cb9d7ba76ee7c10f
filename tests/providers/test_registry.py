"""build_provider and available_providers read only the mapping they are given."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import FlowRuntimeError
from engine.providers.base import Provider
from engine.providers.registry import available_providers, build_provider
from engine.providers.scripted import ScriptedProvider


@pytest.mark.parametrize("name, env", [
    ("openai", {"OPENAI_API_KEY": "sk-x"}),
    ("openai", {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}),  # local server, no key
    ("anthropic", {"ANTHROPIC_API_KEY": "sk-ant-x"}),
])
async def test_build_vendor_providers(name: str, env: dict[str, str]) -> None:
    provider = build_provider(name, env)
    try:
        assert isinstance(provider, Provider)
        assert provider.name == name and provider.supports_streaming and provider.supports_tools
    finally:
        await provider.aclose()  # type: ignore[attr-defined]


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown provider 'gemini'; known providers: "
                                         "anthropic, openai, scripted"):
        build_provider("gemini", {})


@pytest.mark.parametrize("name, variable", [("openai", "OPENAI_API_KEY"),
                                            ("anthropic", "ANTHROPIC_API_KEY")])
def test_missing_key_says_what_to_set(name: str, variable: str,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(variable, "in-process-env-is-ignored")
    with pytest.raises(FlowRuntimeError, match=variable):
        build_provider(name, {})


def test_scripted_needs_a_fixture(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs a fixture"):
        build_provider("scripted", {})
    fixture = tmp_path / "r.yaml"
    fixture.write_text("- hi\n", encoding="utf-8")
    assert isinstance(build_provider("scripted", {}, fixture=fixture), ScriptedProvider)


def test_extra_factories() -> None:
    offline = ScriptedProvider(["offline"], name="offline")
    provider = build_provider("offline", {}, extra={"offline": lambda env, fixture: offline})
    assert provider is offline


@pytest.mark.parametrize("env, expected", [
    ({}, []),
    ({"OPENAI_API_KEY": "k"}, ["openai"]),
    ({"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"}, ["openai"]),
    ({"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": ""}, ["anthropic"]),
    ({"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}, ["openai", "anthropic"]),
])
def test_available_providers(env: dict[str, str], expected: list[str]) -> None:
    assert available_providers(env) == expected
