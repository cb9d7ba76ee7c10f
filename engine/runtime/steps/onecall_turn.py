"""A turn the rules did not settle -> its ONE model call, which both understands and answers.

The call asks for one JSON object: the routing fields first (intent, confidence, slot
operations, tasks), then ``message``, the reply the answering agent would have written (the
chat flow's agent step). The head is read as it streams in (``onecall.OneCallReader``);
the turn routes on it, and only when it lands in the answering agent's flow does that
agent's step show the message, token by token as the provider sends it (``Answer``). When
the turn goes to another flow, the flow's templates answer and the rest of the stream is
dropped. A plain-text reply is the chat answer as it is, never asked again. Every wait
ends by the turn's deadline; a failed call leaves the rules' answer and the answering
step's fallback template, never a second call. A reply that came but could not be used is
asked for once more, non-streamed and told what was wrong, when the deadline leaves time.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.compiler.compiled import AgentStep, CompiledFlow, CompiledService
from engine.errors import ProviderError
from engine.providers.base import ChatRequest, TextDelta
from engine.providers.jsonout import repair_note, validate_output
from engine.providers.reliability import ReliableStream, record_of, stream_reliably
from engine.runtime.calls.agent import JsonCheck, ModelCall
from engine.runtime.calls.answer import Answer
from engine.runtime.calls.models import LiveModel
from engine.runtime.understanding.llm import (
    UNDERSTANDING_SCHEMA,
    LlmUnderstanding,
    model_slots,
    parse_understanding,
    with_message,
)
from engine.runtime.understanding.onecall import OneCallReader
from engine.runtime.values.budget import next_within

if TYPE_CHECKING:
    from engine.runtime.turn.run import Turn

MIN_REPAIR_SECONDS = 0.5
"""A reply that could not be used is asked for again only with this much of the turn left."""

ANSWER_RULES = """\
The same JSON object also carries your reply to the user, as its LAST field "message",
written after every other field:
{"intent": ..., "confidence": ..., "operations": [...], "message": "..."}
- When an intent above fits, or the user answers or corrects what is being collected, the
  service answers by itself: write "message": "".
- Otherwise write the reply in "message", following these instructions:"""


def answering_step(service: CompiledService, flow: str | None,
                   model: str | None) -> AgentStep | None:
    """The agent step that answers in ``flow`` when the turn lands there (its initial stage's
    first step, a plain streamed agent of ``model``), or None when the flow has none."""
    compiled = service.flows.get(flow or "")
    if compiled is None or compiled.slots:
        return None
    steps = compiled.stages[compiled.initial].steps
    step = steps[0] if steps else None
    if not isinstance(step, AgentStep) or step.json_output or step.tools or step.model != model:
        return None
    return step


def one_call_request(understanding: ChatRequest, agent: ChatRequest | None) -> ChatRequest:
    """The understanding request, asking for the answering agent's reply as ``message`` too."""
    if agent is None:
        return understanding
    schema = with_message(understanding.schema) if understanding.schema is not None else None
    return dataclasses.replace(
        understanding, system=f"{understanding.system}\n\n{ANSWER_RULES}\n\n{agent.system}",
        schema=schema)


async def ask(run: Turn, live: LiveModel, flows: Sequence[CompiledFlow], *,
              request: ChatRequest, step: AgentStep | None, current: CompiledFlow | None
              ) -> bool:
    """The turn's one call: ``run.llm`` from its head, ``run.answer`` for ``step``. False
    when the provider gave no reply (the rules' answer stands)."""
    call = ModelCall(live, "understand", run.tracer, deadline=run.call_deadline())
    answer = Answer(step, call) if step is not None else None
    run.answer = answer
    if not live.breaker.allow():
        call.traced(None, error="circuit open")
        if answer is not None:
            answer.failed = True
        return False
    stream = stream_reliably(live.provider, request, live.config, agent=call.agent)
    reader = answer.reader if answer is not None else OneCallReader()
    try:
        await _read_head(reader, stream, call)
    except ProviderError as err:
        await stream.aclose()
        if record_of(err) is None:
            err.record = stream.record  # type: ignore[attr-defined]
        call.failed(err)
        if answer is not None:
            answer.failed = True
        run.missed = True  # asked, and no usable answer in time: the user is told
        return False
    live.breaker.success()
    slots = model_slots(run.service, flows)
    run.llm = understood(reader, slots, plain=current is None)
    repair = run.llm.parse_error and _room_to_repair(call)
    if answer is not None and not repair and _may_answer(run.llm, run.service):
        answer.stream = stream
        return True
    run.answer = None
    await stream.aclose()
    call.traced(stream.record)
    if repair:
        run.llm = await _repaired(call, request, reader, slots) or run.llm
    return True


def _room_to_repair(call: ModelCall) -> bool:
    return call.deadline is None or \
        call.deadline - asyncio.get_running_loop().time() >= MIN_REPAIR_SECONDS


async def _repaired(call: ModelCall, request: ChatRequest, reader: OneCallReader,
                    slots: Sequence[str]) -> LlmUnderstanding | None:
    """One more, non-streamed, attempt after a reply that could not be used, told what was
    wrong (the turn's deadline bounds it); None when that fails too."""
    problem = _problem(reader)
    if call.last is not None:
        call.tracer.unusable(call.last, problem)
    repair = dataclasses.replace(request, system=f"{request.system}\n\n"
                                 f"{repair_note(problem, request.schema or UNDERSTANDING_SCHEMA)}")
    try:
        obj = await call.json(repair, JsonCheck(UNDERSTANDING_SCHEMA), attempts=1)
    except ProviderError as err:
        call.failed(err, trip=False)
        return None
    return parse_understanding(obj, slots) if obj is not None else None


def _problem(reader: OneCallReader) -> str:
    """Why the reply's head could not be used."""
    if reader.kind == "plain":
        return "the reply is not a JSON object"
    if reader.head is None:
        return "the JSON object is incomplete"
    return "; ".join(validate_output(reader.head, UNDERSTANDING_SCHEMA)) or "it is unusable"


async def _read_head(reader: OneCallReader, stream: ReliableStream, call: ModelCall) -> None:
    events = aiter(stream)
    name = call.live.provider.name
    while not reader.head_known:
        event = await next_within(events, call.deadline, name)
        if isinstance(event, TextDelta):
            reader.feed(event.text)
        elif event is not None:
            reader.finish(event.completion.text)


def understood(reader: OneCallReader, slot_names: Sequence[str], *,
               plain: bool) -> LlmUnderstanding:
    """The head as an understanding. A plain-text reply routes nowhere: when no flow is in
    progress (``plain``) it is simply the chat answer, mid-flow it was not understood."""
    if reader.kind == "plain":
        return LlmUnderstanding(parse_error=not plain)
    head = reader.head
    if head is None or validate_output(head, UNDERSTANDING_SCHEMA):
        return LlmUnderstanding(parse_error=True)
    return parse_understanding(head, slot_names)


def _may_answer(llm: LlmUnderstanding, service: CompiledService) -> bool:
    """The message may still be shown: the head routes to no flow and changes no slot."""
    return not (llm.ops or llm.tasks or llm.cancel) and llm.intent not in service.routes


def take(run: Turn, step: AgentStep) -> Answer | None:
    """The turn's one call's answer, when it was asked for ``step``."""
    answer = run.answer
    if answer is None or answer.step is not step or answer.taken:
        return None
    return answer


async def drop(run: Turn) -> None:
    """At the end of the turn: an answer no step showed is dropped."""
    if run.answer is not None:
        await run.answer.drop()
        run.answer = None


__all__ = ["ANSWER_RULES", "answering_step", "ask", "drop", "one_call_request",
           "take", "understood"]
