"""Neutral chat requests -> LLM providers (OpenAI, Anthropic, scripted) with retries and tools.

Import the vendor providers through ``registry.build_provider``: the SDKs are imported only
when a provider that needs them is built, so offline runs never load them.
"""

from engine.providers.base import (
    ChatMessage,
    ChatRequest,
    Completion,
    Finished,
    ModelConfig,
    Provider,
    ProviderSettings,
    Role,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolSpec,
    Usage,
)
from engine.providers.registry import available_providers, build_provider
from engine.providers.reliability import (
    CallRecord,
    CircuitBreaker,
    complete_reliably,
    complete_with_fallback,
    stream_reliably,
)

__all__ = [
    "CallRecord",
    "ChatMessage",
    "ChatRequest",
    "CircuitBreaker",
    "Completion",
    "Finished",
    "ModelConfig",
    "Provider",
    "ProviderSettings",
    "Role",
    "StreamEvent",
    "TextDelta",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "available_providers",
    "build_provider",
    "complete_reliably",
    "complete_with_fallback",
    "stream_reliably",
]
