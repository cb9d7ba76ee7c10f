"""The fixed names of the flow language: built-in tools, texts, prompt variables, events,
providers. Defined once, below the compiler, the runtime and lint, so they cannot disagree.

Everything that checks a flow (the compiler) and everything that runs one (the runtime, the
providers, the test runner) reads these tuples; an implementation table keyed by them
(``providers.tools.BUILTIN_TOOLS``, ``runtime.actions.TOOLS``, ``providers.registry``) is
checked against them by the test suite.
"""

from __future__ import annotations

from typing import Literal

from engine.texts import OVERRIDABLE_TEXTS

NextAction = Literal["ASK", "CONFIRM", "ASK_CONTINUE", "DONE"]
"""What a turn asks of the client next (DONE's ``next_action``)."""
MAX_LOOP_ATTEMPTS = 50
"""The most attempts a `loop` step makes, whatever its `max_attempts` says."""

# tools an agent step may offer the model (engine/providers/tools.py implements them)
AGENT_TOOLS: tuple[str, ...] = ("calculator",)
# tools a `call` action may run (engine/runtime/calls/actions.py implements them)
ACTION_TOOLS: tuple[str, ...] = ("sandbox_bank", "sandbox_balance", "calculator")
# built-in texts a service may replace with a message of the same name, and the values each sees
BUILTIN_TEXTS: dict[str, tuple[str, ...]] = dict(OVERRIDABLE_TEXTS)
AGENT_STATUSES: tuple[str, ...] = ("success", "need_info", "cannot_handle", "partial")
"""How an agent step ended: it answered; it needs details from the user first (``missing``
names them); it cannot do what was asked (or no model answered: the fallback was said);
it did part of it (``reason`` says why)."""
AGENT_RESULT_FIELDS: frozenset[str] = frozenset({"status", "reason", "missing"})
"""What every agent step's result has, beside the checked JSON output of one that keeps it."""
# what an agent step's prompt sees beyond the turn context (runtime/calls/agent.py provides them)
AGENT_PROMPT_NAMES: tuple[str, ...] = ("message", "history", "instructions", "intents", "tools")
# what the understanding prompt sees (runtime/understanding/llm.py provides them)
UNDERSTAND_PROMPT_NAMES: tuple[str, ...] = ("service", "description", "today", "intents",
                                            "current", "stage", "current_intent", "flows",
                                            "turn_starts")
# what memory.summary_prompt sees (runtime/calls/memory.py renders it once per engine)
SUMMARY_PROMPT_NAMES: tuple[str, ...] = ("service", "description", "locale")
PROMPT_NAMES: tuple[str, ...] = tuple(dict.fromkeys(AGENT_PROMPT_NAMES + UNDERSTAND_PROMPT_NAMES
                                                    + SUMMARY_PROMPT_NAMES))
# the wire protocol's event names (engine/runtime/values/events.py emits them)
EVENT_NAMES: tuple[str, ...] = ("AGENT_START", "LLM_TOKEN", "LLM_DONE", "AGENT_DONE",
                                "TASK_PROGRESS", "DONE")
# what a background run's event log adds to them (engine/runs records it at each status)
RUN_EVENT_NAMES: tuple[str, ...] = ("RUN_STATUS",)
# the fields of the turn context's fixed-shape values (runtime/understanding/context.py builds them)
CONTEXT_FIELDS: dict[str, tuple[str, ...]] = {
    "turn": ("message", "intent", "confidence"),
    "batch": ("index", "total", "remaining", "counts"),
    "loop": ("attempt", "max_attempts", "feedback", "error", "outcome", "attempts", "summary"),
}
# the failure tags DONE's `_trace.failure_tags` may carry (a closed list); the runtime
# sets each where it knows the fact, a guard rule names one
FAILURE_TAGS: tuple[str, ...] = (
    "INTENT_LOW_CONFIDENCE", "MULTIPLE_INTENTS_CONFLICT", "AGENT_CALL_FAILED",
    "RESPONSE_SYNTHESIS_FAILED", "MISSING_REQUIRED_SLOTS", "POLICY_BLOCKED",
    "TOOL_GATEWAY_REJECTED", "CONTEXT_OVERFLOW", "UNGROUNDED_VALUE")
# model providers (engine/providers/registry.py builds them; `offline` means no model)
PROVIDERS: tuple[str, ...] = ("openai", "anthropic", "scripted", "offline")
PROVIDER_ENTRY_POINTS = "flowctl.providers"
"""The entry-point group an installed package adds a provider under (its name -> a factory
``(env, fixture) -> Provider``): a vendor package needs no change to flowctl."""


def provider_names() -> tuple[str, ...]:
    """The built-in providers, then those installed packages add (``PROVIDER_ENTRY_POINTS``).
    Reading the installed packages' entry points takes ~15 ms: ask ``is_provider`` first."""
    from importlib.metadata import entry_points

    added = sorted({ep.name for ep in entry_points(group=PROVIDER_ENTRY_POINTS)} - set(PROVIDERS))
    return (*PROVIDERS, *added)


def is_provider(name: str) -> bool:
    """Whether ``name`` is a provider (a built-in one is known without reading packages)."""
    return name in PROVIDERS or name in provider_names()


__all__ = ["ACTION_TOOLS", "AGENT_PROMPT_NAMES", "AGENT_TOOLS", "BUILTIN_TEXTS", "CONTEXT_FIELDS",
           "EVENT_NAMES", "FAILURE_TAGS",
           "PROMPT_NAMES", "PROVIDERS", "PROVIDER_ENTRY_POINTS", "RUN_EVENT_NAMES",
           "SUMMARY_PROMPT_NAMES", "is_provider", "provider_names",
           "UNDERSTAND_PROMPT_NAMES"]
