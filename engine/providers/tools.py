"""Tool calls of a model -> tool results fed back, until the model answers in text.

``Tool`` is what a flow may call by name (``tools: [calculator]`` in a models block); the
registry of names is fixed in code (``BUILTIN_TOOLS``), never imported from YAML.
``run_tool_loop`` drives the call -> execute -> append results -> call again cycle.
"""

from __future__ import annotations

import ast
import asyncio
import math
import operator
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Protocol

from engine.providers.base import (
    ChatMessage,
    ChatRequest,
    Completion,
    ModelConfig,
    Provider,
    ToolCall,
    ToolSpec,
    Usage,
)
from engine.providers.reliability import CallRecord, Rng, Sleep, complete_reliably


class Tool(Protocol):
    """A callable tool: its neutral spec, and an async call returning text for the model."""

    spec: ToolSpec

    async def __call__(self, arguments: Mapping[str, object]) -> str: ...


@dataclass(frozen=True, slots=True)
class FunctionTool:
    """Wrap an async function as a Tool."""

    spec: ToolSpec
    function: Callable[[Mapping[str, object]], Awaitable[str]]

    async def __call__(self, arguments: Mapping[str, object]) -> str:
        return await self.function(arguments)


# -- calculator -----------------------------------------------------------------------------

MAX_EXPRESSION_CHARS = 200
MAX_MAGNITUDE = 10**100  # results (and intermediate values) beyond this are refused

_BINARY: Mapping[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: Mapping[type[ast.unaryop], Callable[[float], float]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos,
}


class CalculatorError(ValueError):
    """An expression the calculator refuses; the message is shown to the model."""


def evaluate(expression: str) -> int | float:
    """Evaluate arithmetic: numbers, + - * / // % **, parentheses, unary minus. Nothing else.

    Example::

        evaluate("(10000 + 5000) * 2")  # 30000
    """
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise CalculatorError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise CalculatorError(f"not an arithmetic expression ({exc.msg})") from exc
    return _eval(tree.body)


def _eval(node: ast.expr) -> int | float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return _bounded(node.value)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _bounded(_UNARY[type(node.op)](_eval(node.operand)))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        try:
            return _bounded(_BINARY[type(node.op)](left, right))
        except ZeroDivisionError as exc:
            raise CalculatorError("division by zero") from exc
        except OverflowError as exc:
            raise CalculatorError("result too large") from exc
    raise CalculatorError(f"{_describe(node)} is not allowed: only numbers, "
                          "+ - * / // % ** and parentheses")


def _describe(node: ast.expr) -> str:
    if isinstance(node, ast.Constant):
        return f"a {type(node.value).__name__} constant"
    if isinstance(node, ast.BinOp | ast.UnaryOp):
        return f"the operator {type(node.op).__name__}"
    return f"{type(node).__name__} ({ast.unparse(node)[:40]})"


def _check_power(base: float, exponent: float) -> None:
    """Refuse powers whose result would exceed MAX_MAGNITUDE before computing them."""
    if base < 0 and not float(exponent).is_integer():
        raise CalculatorError("a negative number to a fractional power is not a real number")
    if base == 0 and exponent < 0:
        raise CalculatorError("division by zero")
    if abs(base) > 1 and exponent * math.log10(abs(base)) > math.log10(MAX_MAGNITUDE):
        raise CalculatorError(f"result too large (limit 1e{round(math.log10(MAX_MAGNITUDE))})")


def _bounded(value: object) -> int | float:
    if isinstance(value, complex) or not isinstance(value, int | float):
        raise CalculatorError("result is not a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise CalculatorError("result too large")
    if abs(value) > MAX_MAGNITUDE:
        raise CalculatorError(f"result too large (limit 1e{round(math.log10(MAX_MAGNITUDE))})")
    return value


def format_number(value: int | float) -> str:
    """Integers as digits; floats with up to 12 significant digits, integral ones without '.0'."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value) if isinstance(value, int) else format(value, ".12g")


class Calculator:
    """The built-in ``calculator`` tool; errors come back as text, never raised."""

    spec = ToolSpec(
        name="calculator",
        description="Evaluate an arithmetic expression with numbers, + - * / // % ** and "
                    "parentheses, e.g. '(10000 + 5000) * 2'. Returns the result as text.",
        parameters={"type": "object",
                    "properties": {"expression": {"type": "string",
                                                  "description": "the expression to evaluate"}},
                    "required": ["expression"]},
    )

    async def __call__(self, arguments: Mapping[str, object]) -> str:
        expression = arguments.get("expression")
        if not isinstance(expression, str):
            return "error: pass the expression as a string in 'expression'"
        try:
            return format_number(evaluate(expression))
        except CalculatorError as exc:
            return f"error: {exc}"


calculator = Calculator()
BUILTIN_TOOLS: Mapping[str, Tool] = MappingProxyType({calculator.spec.name: calculator})


# -- the loop -------------------------------------------------------------------------------

async def run_tool_loop(
    provider: Provider,
    request: ChatRequest,
    model: ModelConfig,
    tools: Mapping[str, Tool],
    *,
    agent: str,
    max_rounds: int = 4,
    sleep: Sleep = asyncio.sleep,
    rng: Rng = random.random,
) -> tuple[Completion, list[CallRecord]]:
    """Call the model, run the tools it asks for, feed results back; repeat up to max_rounds.

    ``max_rounds`` counts model calls. The returned completion is the model's last answer
    (it still carries ``tool_calls`` if the limit was hit) with the usage of all rounds.

    Example::

        completion, records = await run_tool_loop(provider, request, model, BUILTIN_TOOLS,
                                                  agent="math")
    """
    if max_rounds < 1:
        raise ValueError("max_rounds must be >= 1 (it counts model calls)")
    if tools and not provider.supports_tools:
        raise ValueError(f"provider {provider.name!r} does not support tools; remove `tools` "
                         "from this model or pick a provider that supports them")
    request = replace(request, tools=request.tools or tuple(t.spec for t in tools.values()))
    messages = list(request.messages)
    records: list[CallRecord] = []
    usage = Usage()
    for _ in range(max_rounds):
        completion, record = await complete_reliably(
            provider, replace(request, messages=tuple(messages)), model,
            agent=agent, sleep=sleep, rng=rng)
        records.append(record)
        usage += completion.usage
        if not completion.tool_calls:
            break
        messages.append(ChatMessage("assistant", completion.text,
                                    tool_calls=completion.tool_calls))
        for call in completion.tool_calls:
            result = await run_tool(tools, call)
            messages.append(ChatMessage("tool", result, tool_call_id=call.id))
    return replace(completion, usage=usage), records


async def run_tool(tools: Mapping[str, Tool], call: ToolCall) -> str:
    """Run one call; unknown tools and tool failures become text the model can react to."""
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(sorted(tools)) or "none"
        return f"error: unknown tool {call.name!r}; available tools: {known}"
    try:
        return await tool(call.arguments)
    except Exception as exc:  # a failing tool must not end the turn; the model is told
        return f"error: tool {call.name!r} failed: {type(exc).__name__}: {exc}"
