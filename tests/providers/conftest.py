"""Fixtures of the provider tests: one fake LLM server per session (the network beyond
loopback is blocked for every test by tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from engine.providers.base import ModelConfig, Provider
from engine.providers.registry import build_provider
from tests.fakes.llm_servers import FakeLLMServer


@pytest.fixture(scope="session")
def llm_server_session() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def server(llm_server_session: FakeLLMServer) -> Iterator[FakeLLMServer]:
    llm_server_session.reset()
    yield llm_server_session
    llm_server_session.reset()


@pytest.fixture(params=["openai", "anthropic"])
async def vendor(request: pytest.FixtureRequest, server: FakeLLMServer) -> AsyncIterator[Provider]:
    """Each vendor provider, with its real SDK, pointed at the fake server."""
    provider = build_provider(request.param, server.env())
    yield provider
    await provider.aclose()  # type: ignore[attr-defined]


def model_for(provider: Provider, **overrides: object) -> ModelConfig:
    settings: dict[str, object] = {"max_retry": 0, "backoff_sec": 0.01, "timeout_sec": 5.0}
    settings.update(overrides)
    return ModelConfig(provider.name, f"{provider.name}-fake-model", **settings)  # type: ignore[arg-type]


class RecordingSleep:
    """An injected ``sleep`` that records what it was asked for and returns at once."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture
def sleep() -> RecordingSleep:
    return RecordingSleep()
