"""The fixed names in engine/registry.py agree with every table that implements them."""

from __future__ import annotations

from types import SimpleNamespace

from engine.compiler.compiled import AgentStep, CompiledService
from engine.compiler.templates import compile_template
from engine.providers import registry as provider_registry
from engine.providers.tools import BUILTIN_TOOLS
from engine.registry import (
    ACTION_TOOLS,
    AGENT_PROMPT_NAMES,
    AGENT_TOOLS,
    BUILTIN_TEXTS,
    CONTEXT_FIELDS,
    EVENT_NAMES,
    PROVIDERS,
    UNDERSTAND_PROMPT_NAMES,
)
from engine.runtime.calls import actions
from engine.runtime.steps.dispatch import prompt_values
from engine.runtime.turn.snapshot import snapshot
from engine.runtime.understanding.context import TurnState
from engine.runtime.understanding.llm import understanding_request
from engine.runtime.values.events import (
    AgentDone,
    AgentStart,
    Done,
    LlmDone,
    LlmToken,
    TaskProgress,
    Trace,
    wire,
)
from engine.runtime.values.session import SessionState
from engine.texts import TEXTS


def test_tools_are_the_implemented_ones() -> None:
    assert set(BUILTIN_TOOLS) == set(AGENT_TOOLS)
    assert set(actions.TOOLS) == set(ACTION_TOOLS)


def test_providers_are_the_buildable_ones_plus_offline() -> None:
    assert set(provider_registry.FACTORIES) | {"offline"} == set(PROVIDERS)


def test_every_overridable_text_exists_in_every_locale() -> None:
    for texts in TEXTS.values():
        assert set(BUILTIN_TEXTS) <= set(texts)


def test_event_names_are_what_the_wire_sends() -> None:
    done = Done("", "ASK", {"buttons": []}, snapshot(SessionState(), None),
                trace=Trace(turn_id="t", total_elapsed_ms=0.0, agents=[]))
    events = [AgentStart("a", "l"), LlmToken("x"), LlmDone({}), AgentDone("a", "l", True),
              TaskProgress(1, 2, {}), done]
    assert [wire(e)[0] for e in events] == list(EVENT_NAMES)


def test_an_agent_prompt_gets_exactly_the_registered_names(transfer: CompiledService) -> None:
    run = SimpleNamespace(state=SimpleNamespace(message="hi", session=SessionState()),
                          service=transfer)
    step = AgentStep("chat", "chat", None, None, "x", False, ())
    assert set(prompt_values(run, step)) == set(AGENT_PROMPT_NAMES)


def test_the_understanding_prompt_gets_every_registered_name(transfer: CompiledService) -> None:
    reads_all = compile_template(" ".join(f"{{{{ {n} }}}}" for n in UNDERSTAND_PROMPT_NAMES))
    flow = transfer.flows["transfer"]
    request = understanding_request(transfer, [flow], current=flow, stage="FILLING", slots={},
                                    message="hi", today="2026-11-22", raw_history=[],
                                    prompt=reads_all)
    assert "FILLING" in request.system


def test_context_fields_are_what_the_view_holds(transfer: CompiledService) -> None:
    state = TurnState(transfer, SessionState(), "hi", transfer.flows["transfer"],
                      fill_turns=lambda v: 5, ask=str)
    view = state.view()
    for name, fields in CONTEXT_FIELDS.items():
        assert set(view[name]) == set(fields), name
