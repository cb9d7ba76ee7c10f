"""(a live model, a request) -> the model's reply: streamed tokens, tool rounds, and JSON that
is checked against its schema and asked for once more when unusable.

Both kinds of model call of a turn go through here: the understanding call (JSON, not
streamed) and agent steps (streamed; JSON agents stream only their ``message`` field). A
provider failure trips the model's circuit breaker and returns nothing: the caller answers
from its fallback, so the user never sees a provider error.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.compiler.validators import BadVerdict, Replace, SlotValidator
from engine.errors import ProviderError
from engine.providers.base import ChatRequest, TextDelta
from engine.providers.jsonout import (
    JsonFieldStreamer,
    extract_json,
    repair_note,
    validate_output,
)
from engine.providers.reliability import (
    CallRecord,
    complete_reliably,
    record_of,
    stream_reliably,
)
from engine.providers.tools import Tool, run_tool_loop
from engine.registry import AGENT_STATUSES
from engine.runtime.calls.facts import FACTS_RULE, Heard, unfounded
from engine.runtime.calls.models import LiveModel
from engine.runtime.calls.trace import Tracer
from engine.runtime.understanding.echo import EchoGuard, strip_state
from engine.runtime.values.budget import next_within, within
from engine.runtime.values.events import LlmToken, TraceEntry


@dataclass(frozen=True, slots=True)
class JsonCheck:
    """What makes a JSON reply usable: its schema, and whether it must carry a `message`."""

    schema: Mapping[str, Any] | None = None
    needs_message: bool = False
    rule: Rule | None = None
    """The flow's own check of an object that passed the rest (an agent step's validator)."""

    def problem(self, text: str) -> tuple[dict[str, Any] | None, str]:
        """The reply's object, or None and why it cannot be used."""
        try:
            obj = extract_json(text)
        except ValueError as err:
            return None, str(err)
        problems = validate_output(obj, dict(self.schema)) if self.schema else []
        if problems or (self.needs_message and not isinstance(obj.get("message"), str)):
            return None, "; ".join(problems) or "no `message` string"
        if self.rule is not None:
            return self.rule(obj)
        return obj, ""


Rule = Callable[[dict[str, Any]], tuple[dict[str, Any] | None, str]]
"""An object -> the object to use (the same, or another), or None and why it is refused."""


def validator_rule(validator: SlotValidator, slots: Mapping[str, Any], today: dt.date,
                   agent: str) -> Rule:
    """An agent step's validator as a ``Rule``: ``True``/``None`` accept, ``False`` or a
    string (or a ``ValueError``) refuse, ``Replace(obj)`` or ``{"value": obj}`` use ``obj``
    instead (it must carry a ``message`` string too). Any other verdict is the validator's
    bug and fails the turn, as a slot validator's does."""
    def rule(obj: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
        try:
            verdict = validator(obj, slots, today)
        except ValueError as err:
            return None, f"the flow's validator refused it: {err}"
        if verdict is None or verdict is True:
            return obj, ""
        if verdict is False or isinstance(verdict, str):
            return None, f"the flow's validator refused it: {verdict or 'no reason given'}"
        replaced = verdict.value if isinstance(verdict, Replace) else \
            verdict["value"] if isinstance(verdict, dict) and set(verdict) == {"value"} else None
        if isinstance(replaced, dict) and isinstance(replaced.get("message"), str):
            return replaced, ""
        raise BadVerdict(f"validator of agent `{agent}` returned {verdict!r}; expected True, "
                        "None, False, a str, or Replace(object with a `message` string)")
    return rule


@dataclass(frozen=True, slots=True)
class Reply:
    """An agent's answer as the LLM_DONE event carries it (``action``, ``message``, ...)."""

    payload: dict[str, Any]
    output: dict[str, Any] | None = None
    """A JSON agent's object as the model wrote it, checked against the model's schema."""


class AgentResult(dict[str, Any]):
    """An agent step's result as later steps read it (``agents.<name>``): ``status``,
    ``reason`` and ``missing``, and the checked JSON output of a step that keeps it. True in
    a condition only when the agent answered (``success``), so ``agents.x and agents.x.price``
    reads the output only when there is one."""

    __slots__ = ()

    def __bool__(self) -> bool:
        return self.get("status") == "success"


def agent_result(output: Mapping[str, Any] | None, *, kept: bool,
                 fell_back: str | None = None) -> AgentResult:
    """The result of an agent step whose reply was ``output`` (its JSON object, or None for
    a text reply); ``fell_back`` says why its fallback was said instead. A JSON reply says
    its own status in ``status`` (one of ``AGENT_STATUSES``; anything else is a success),
    why in ``reason`` and what it needs in ``missing``; ``kept``: its fields are kept too.

    >>> result = agent_result({"message": "금액은요?", "status": "need_info",
    ...                        "missing": ["amount"]}, kept=False)
    >>> bool(result), result["status"], result["missing"]
    (False, 'need_info', ['amount'])
    >>> dict(agent_result(None, kept=False, fell_back="no model"))
    {'status': 'cannot_handle', 'reason': 'no model', 'missing': []}
    """
    if fell_back is not None:
        return AgentResult(status="cannot_handle", reason=fell_back, missing=[])
    said = output or {}
    status = said.get("status")
    reason, missing = said.get("reason"), said.get("missing")
    return AgentResult(
        {**(said if kept else {}),
         "status": status if status in AGENT_STATUSES else "success",
         "reason": reason if isinstance(reason, str) else "",
         "missing": [str(m) for m in missing] if isinstance(missing, list) else []})


class ModelCall:
    """Calls of one live model on behalf of one agent of a turn, traced."""

    __slots__ = ("live", "agent", "tracer", "last", "deadline")

    def __init__(self, live: LiveModel, agent: str, tracer: Tracer, *,
                 deadline: float | None = None) -> None:
        self.live, self.agent, self.tracer = live, agent, tracer
        self.deadline = deadline
        """The turn's deadline (event-loop time): every attempt and retry ends by it."""
        self.last: TraceEntry | None = None
        """The trace entry of the latest call, which a caller may mark unusable."""

    def traced(self, record: CallRecord | None, *, error: str | None = None) -> TraceEntry:
        self.last = self.tracer.llm(self.agent, record, self.live, error=error)
        return self.last

    def failed(self, err: ProviderError, *, trip: bool = True) -> None:
        """The provider gave no reply; ``trip`` counts it against the circuit breaker."""
        if trip:
            self.live.breaker.failure()
        self.traced(record_of(err), error=f"{err.kind}: {err}")

    async def text(self, request: ChatRequest) -> str:
        """One non-streamed call; raises ProviderError when the provider gives no reply."""
        live = self.live
        completion, record = await within(
            complete_reliably(live.provider, request, live.config, agent=self.agent),
            self.deadline, live.provider.name)
        self.traced(record)
        return completion.text

    async def json(self, request: ChatRequest, check: JsonCheck, *,
                   attempts: int) -> dict[str, Any] | None:
        """Non-streamed calls until one reply passes ``check`` (at most ``attempts``).

        Raises ProviderError when the provider gives no reply at all."""
        live = self.live
        for _ in range(attempts):
            completion, record = await within(
                complete_reliably(live.provider, request, live.config, agent=self.agent),
                self.deadline, live.provider.name)
            entry = self.traced(record)
            obj, problem = check.problem(completion.text)
            if obj is not None:
                return obj
            self.tracer.unusable(entry, problem)
        return None

    async def stream(self, request: ChatRequest, *,
                     field: str | None) -> AsyncIterator[LlmToken | str]:
        """LLM_TOKEN per token (only ``field``'s characters for JSON); the whole text last.

        Fenced internal state the model echoes is never yielded (``echo.EchoGuard``)."""
        streamer = JsonFieldStreamer(field) if field else None
        guard = EchoGuard()
        text = ""
        live = self.live
        stream = stream_reliably(live.provider, request, live.config, agent=self.agent)
        try:
            async with stream:
                events = aiter(stream)
                while (event := await next_within(events, self.deadline,
                                                  live.provider.name)) is not None:
                    if isinstance(event, TextDelta):
                        piece = guard.feed(streamer.feed(event.text) if streamer
                                           else event.text)
                        if piece:
                            yield LlmToken(piece)
                    else:
                        text = event.completion.text
                if rest := guard.flush():
                    yield LlmToken(rest)
        except ProviderError as err:
            if record_of(err) is None:  # the turn's deadline: the stream's own record
                err.record = stream.record  # type: ignore[attr-defined]
            raise
        self.traced(stream.record)
        yield text


async def agent_reply(call: ModelCall, request: ChatRequest, *, tools: Mapping[str, Tool],
                      json_output: bool, max_rounds: int = 4, rule: Rule | None = None
                      ) -> AsyncIterator[LlmToken | Reply]:
    """Stream one agent's answer; ends with a Reply, or with nothing when none is usable."""
    live = call.live
    try:
        if tools:
            heard = Heard()
            request = dataclasses.replace(request, system=f"{request.system}\n\n{FACTS_RULE}")
            text = await _with_tools(call, request, heard.recording(tools), max_rounds)
            if _made_up(call, request, text, heard):
                return
            if not json_output:
                yield LlmToken(text)
        else:
            text = ""
            async for piece in call.stream(request, field="message" if json_output else None):
                if isinstance(piece, LlmToken):
                    yield piece
                else:
                    text = piece
    except ProviderError as err:
        call.failed(err)
        return
    live.breaker.success()
    check = JsonCheck(live.spec.output_schema, needs_message=True, rule=rule)
    output, problem = _payload(call, text, check if json_output else None)
    if output is None and json_output and live.config.max_retry > 0:
        output = await _retry(call, request, problem, check)
    if output is not None:
        yield Reply({"action": "ASK", **output}, output if json_output else None)


async def _with_tools(call: ModelCall, request: ChatRequest, tools: Mapping[str, Tool],
                      max_rounds: int) -> str:
    live = call.live
    completion, records = await within(
        run_tool_loop(live.provider, request, live.config, tools, agent=call.agent,
                      max_rounds=max_rounds),
        call.deadline, live.provider.name)
    for record in records:
        call.traced(record)
    if completion.tool_calls:  # still asking for tools after its last round: no answer
        return ""
    return completion.text


def _made_up(call: ModelCall, request: ChatRequest, text: str, heard: Heard) -> bool:
    """Whether the reply states a fact nothing of this turn said (not a tool's answer, not
    the user's message, not the turn's state): it is not shown, and the trace says so."""
    said = request.messages[-1].content if request.messages else ""
    made_up = unfounded(text, [said, request.system, *heard.results])
    if made_up:
        call.tracer.tag("UNGROUNDED_VALUE")
        if call.last is not None:
            call.tracer.unusable(call.last, f"facts no tool returned: {', '.join(made_up)}")
    return bool(made_up)


def _payload(call: ModelCall, text: str, check: JsonCheck | None
             ) -> tuple[dict[str, Any] | None, str]:
    """A text reply's message, or a JSON reply's object when it passes ``check``."""
    if check is None:
        shown = strip_state(text).strip()
        return ({"message": shown} if shown else None), "an empty reply"
    obj, problem = check.problem(text)
    if obj is None and call.last is not None:
        call.tracer.unusable(call.last, problem)
    if obj is not None:
        obj["message"] = strip_state(str(obj["message"]))
    return obj, problem


async def _retry(call: ModelCall, request: ChatRequest, problem: str,
                 check: JsonCheck) -> dict[str, Any] | None:
    """One more, non-streamed, attempt after an unusable JSON reply, told what was wrong
    (in the system prompt: the conversation the model answers stays the same)."""
    schema = call.live.spec.output_schema
    repair = dataclasses.replace(request, system=f"{request.system}\n\n"
                                 f"{repair_note(problem, schema)}")
    try:
        obj = await call.json(repair, check, attempts=1)
    except ProviderError as err:
        call.failed(err, trip=False)
        return None
    return obj


__all__ = ["AgentResult", "JsonCheck", "ModelCall", "Reply", "Rule", "agent_reply",
           "agent_result", "validator_rule"]
