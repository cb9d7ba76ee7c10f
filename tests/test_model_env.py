"""``FLOWCTL_MODEL_<NAME>`` swaps a model and its limits without editing the flow, and a
timeout names the knob that changes it.

The flow is the shipped transfer service (its understanding model is ``fast``); the slow
model is the local wire-compatible fake behind the real ``openai`` SDK.
"""

from __future__ import annotations

import pytest

from engine.compiler.compiled import CompiledService
from engine.config import SettingsError
from engine.errors import ProviderError
from engine.providers.base import ChatMessage, ChatRequest
from engine.providers.reliability import complete_reliably
from engine.runtime.calls.models import ModelPool
from tests.fakes.llm_servers import FakeLLMServer, FakeReply


def pool(transfer: CompiledService, value: str, **env: str) -> ModelPool:
    return ModelPool(transfer, {"OPENAI_API_KEY": "k", "FLOWCTL_MODEL_FAST": value, **env})


@pytest.mark.parametrize(("value", "expected"), [
    ("openai:gpt-test,timeout=60", ("gpt-test", 60.0, None, None)),
    ("openai:qwen2.5:0.5b,timeout=45.5,retries=0,max_tokens=300",
     ("qwen2.5:0.5b", 45.5, 0, 300)),
    (",timeout=90", (None, 90.0, None, None)),  # the flow's own model, more time
    (", retries=3 ,", (None, None, 3, None)),
])
def test_the_environment_sets_a_models_limits(transfer: CompiledService, value: str,
                                              expected: tuple[object, ...]) -> None:
    declared = transfer.models["fast"]
    live = pool(transfer, value).get("fast")
    assert live is not None
    model, timeout, retries, tokens = expected
    config = live.config
    assert config.model == (model or declared.model)
    assert config.timeout_sec == (timeout or declared.timeout_sec)
    assert config.max_retry == (declared.max_retry if retries is None else retries)
    if tokens is not None:
        assert config.max_tokens == tokens


@pytest.mark.parametrize(("value", "says"), [
    ("openai:m,temperature=1", "unknown option 'temperature'; known: timeout, retries"),
    ("openai:m,timeout=soon", "timeout must be a number"),
    ("openai:m,timeout=0", "timeout must be at least"),
    ("openai:m,retries=11", "retries must be between 0 and 10"),
    ("openai:m,max_tokens=0", "max_tokens must be at least 1"),
])
def test_a_bad_option_is_refused_naming_the_variable(transfer: CompiledService, value: str,
                                                     says: str) -> None:
    with pytest.raises(SettingsError, match="FLOWCTL_MODEL_FAST=") as caught:
        pool(transfer, value)
    assert says in str(caught.value)


async def test_a_timeout_names_the_knob_that_changes_it(transfer: CompiledService) -> None:
    with FakeLLMServer() as server:
        server.enqueue(FakeReply(text="{}", delay_sec=1.0))
        live = ModelPool(transfer, {**server.env(),
                                    "FLOWCTL_MODEL_FAST": ",timeout=0.2,retries=0"}).get("fast")
        assert live is not None
        request = ChatRequest(system="s", messages=(ChatMessage("user", "hi"),))
        with pytest.raises(ProviderError) as caught:
            await complete_reliably(live.provider, request, live.config, agent="understand")
        await live.provider.aclose()  # type: ignore[attr-defined]
    said = str(caught.value)
    assert "0.2 s" in said and "FLOWCTL_MODEL_FAST=,timeout=SECONDS" in said
    assert "timeout_sec of model fast" in said
