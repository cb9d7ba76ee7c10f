"""``OPENAI_MODEL`` names the model of a flow's OpenAI models; ``FLOWCTL_MODEL_<NAME>`` wins."""

from __future__ import annotations

from engine.compiler import compile_file
from engine.runtime.calls.models import ModelPool
from tests.conftest import ROOT

SERVER = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "ANTHROPIC_API_KEY": "sk-test"}


def model_of(env: dict[str, str], name: str = "fast") -> tuple[str, str]:
    pool = ModelPool(compile_file(ROOT / "flows" / "transfer.yaml"), {**SERVER, **env})
    spec = pool.live[name].spec
    return spec.provider, spec.model


def test_openai_model_renames_the_flows_openai_models() -> None:
    assert model_of({}) == ("openai", "gpt-4.1-mini")
    assert model_of({"OPENAI_MODEL": "qwen2.5-0.5b-instruct"}) == (
        "openai", "qwen2.5-0.5b-instruct")


def test_flowctl_model_wins_over_openai_model() -> None:
    assert model_of({"OPENAI_MODEL": "qwen", "FLOWCTL_MODEL_FAST": "openai:gpt-4o"}) == (
        "openai", "gpt-4o")
    assert model_of({"OPENAI_MODEL": "qwen",
                     "FLOWCTL_MODEL_FAST": "anthropic:claude-sonnet-4-5"}) == (
        "anthropic", "claude-sonnet-4-5")
