"""The calculator tool and the tool-call loop (driven by the scripted provider)."""

from __future__ import annotations

import pytest

from engine.providers.base import ChatMessage, ChatRequest, ModelConfig, ToolSpec
from engine.providers.scripted import ScriptedProvider
from engine.providers.tools import BUILTIN_TOOLS, FunctionTool, calculator, run_tool_loop


@pytest.mark.parametrize("expression, expected", [
    ("1+1", "2"),
    ("(10000 + 5000) * 2", "30000"),
    ("-3 * -(2 + 1)", "9"),
    ("7 / 2", "3.5"),
    ("10 / 4 * 2", "5"),
    ("7 // 2", "3"),
    ("-7 % 3", "2"),
    ("2 ** 10", "1024"),
    ("2 ** -1", "0.5"),
    ("0.1 + 0.2", "0.3"),
    ("1e3 + 1", "1001"),
    ("10 ** 100", "1" + "0" * 100),
    ("  +4  ", "4"),
])
async def test_calculator(expression: str, expected: str) -> None:
    assert await calculator({"expression": expression}) == expected


@pytest.mark.parametrize("expression, reason", [
    ("__import__('os')", "Call (__import__('os')) is not allowed"),
    ("a+1", "Name (a) is not allowed"),
    ("2**10000", "result too large"),
    ("9 ** 9 ** 9", "result too large"),
    ("10 ** 100 * 10", "result too large"),
    ("1e308 * 10", "result too large"),
    ("1 / 0", "division by zero"),
    ("5 % 0", "division by zero"),
    ("0 ** -1", "division by zero"),
    ("(-8) ** 0.5", "not a real number"),
    ("True + 1", "a bool constant is not allowed"),
    ("'a' * 3", "a str constant is not allowed"),
    ("1 << 3", "the operator LShift is not allowed"),
    ("not 1", "the operator Not is not allowed"),
    ("[1, 2]", "List ([1, 2]) is not allowed"),
    ("(1).real", "Attribute (1 .real) is not allowed"),
    ("lambda: 1", "Lambda (lambda: 1) is not allowed"),
    ("1 +", "not an arithmetic expression"),
    ("1" * 201, "longer than 200"),
])
async def test_calculator_refuses(expression: str, reason: str) -> None:
    result = await calculator({"expression": expression})
    assert result.startswith("error: ") and reason in result


async def test_calculator_needs_a_string() -> None:
    assert (await calculator({"expression": 12})).startswith("error: ")
    assert (await calculator({})).startswith("error: ")


def test_builtin_registry_is_read_only() -> None:
    assert BUILTIN_TOOLS["calculator"] is calculator
    with pytest.raises(TypeError):
        BUILTIN_TOOLS["os"] = calculator  # type: ignore[index]


MODEL = ModelConfig("scripted", "script", max_retry=0)
ASK = ChatRequest(system="Use tools.", messages=(ChatMessage("user", "what is 6*7?"),))


def _call(expression: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "calculator", "arguments": {"expression": expression}}]}


async def test_loop_runs_tools_and_feeds_results_back() -> None:
    provider = ScriptedProvider([_call("6*7"), "It is 42."])

    completion, records = await run_tool_loop(provider, ASK, MODEL, BUILTIN_TOOLS, agent="math")

    assert completion.text == "It is 42."
    assert len(records) == 2
    second = provider.requests[1]
    assert [m.role for m in second.messages] == ["user", "assistant", "tool"]
    assert second.messages[2].content == "42"
    assert second.messages[2].tool_call_id == second.messages[1].tool_calls[0].id
    assert second.tools == (calculator.spec,)
    assert completion.usage.input_tokens == sum(r.tokens_in for r in records)


async def test_loop_reports_unknown_tools_and_failures_to_the_model() -> None:
    async def broken(arguments: object) -> str:
        raise RuntimeError("backend down")

    tools = {"calculator": calculator,
             "lookup": FunctionTool(ToolSpec("lookup", "find", {"type": "object"}), broken)}
    provider = ScriptedProvider([
        {"tool_calls": [{"name": "weather", "arguments": {}},
                        {"name": "lookup", "arguments": {"q": "x"}}]},
        "Sorry.",
    ])

    completion, _ = await run_tool_loop(provider, ASK, MODEL, tools, agent="a")

    results = [m.content for m in provider.requests[1].messages if m.role == "tool"]
    assert results[0] == "error: unknown tool 'weather'; available tools: calculator, lookup"
    assert results[1] == "error: tool 'lookup' failed: RuntimeError: backend down"
    assert completion.text == "Sorry."


async def test_loop_stops_after_max_rounds() -> None:
    provider = ScriptedProvider([{**_call("1+1"), "repeat": True}])

    completion, records = await run_tool_loop(provider, ASK, MODEL, BUILTIN_TOOLS, agent="a",
                                              max_rounds=3)

    assert len(records) == 3 and len(provider.requests) == 3
    assert completion.tool_calls  # still asking: the caller decides what to say


async def test_loop_refuses_providers_without_tools() -> None:
    provider = ScriptedProvider(["x"])
    provider.supports_tools = False  # type: ignore[misc]

    with pytest.raises(ValueError, match="does not support tools"):
        await run_tool_loop(provider, ASK, MODEL, BUILTIN_TOOLS, agent="a")
