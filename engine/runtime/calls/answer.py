"""The rest of the turn's one model call -> the answering agent's tokens, then its reply.

The turn routes on the head of its one call (``steps/onecall_turn.py``); when it lands in the
flow whose agent the call also answered for, that agent's step shows the message as the
provider streams it: LLM_TOKEN per chunk (echoed state stripped), a Reply last. A turn that
lands elsewhere drops the stream (the call is still traced).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

from engine.compiler.compiled import AgentStep
from engine.errors import ProviderError
from engine.providers.base import TextDelta
from engine.providers.reliability import ReliableStream, record_of
from engine.runtime.calls.agent import ModelCall, Reply
from engine.runtime.understanding.echo import EchoGuard, strip_state
from engine.runtime.understanding.onecall import OneCallReader
from engine.runtime.values.budget import next_within
from engine.runtime.values.events import LlmToken


@dataclasses.dataclass(slots=True)
class Answer:
    """The rest of the turn's one call, for ``step`` to show (nothing when it ``failed``)."""

    step: AgentStep
    call: ModelCall
    stream: ReliableStream | None = None
    reader: OneCallReader = dataclasses.field(default_factory=OneCallReader)
    failed: bool = False
    taken: bool = False

    async def replies(self) -> AsyncIterator[LlmToken | Reply]:
        """LLM_TOKEN per chunk of the message as it arrives; a Reply last (none on failure)."""
        self.taken = True
        if self.failed or self.stream is None:
            return
        guard, reader, call = EchoGuard(), self.reader, self.call
        name = call.live.provider.name
        try:
            events = aiter(self.stream)
            while True:
                if piece := guard.feed(reader.take()):
                    yield LlmToken(piece)
                if reader.finished:
                    break
                event = await next_within(events, call.deadline, name)
                if isinstance(event, TextDelta):
                    reader.feed(event.text)
                elif event is not None:
                    reader.finish(event.completion.text)
            if rest := guard.flush():
                yield LlmToken(rest)
        except ProviderError as err:
            await self._failed(err)
            return
        finally:
            await self.stream.aclose()  # read up to Finished: the generator still waits
        call.traced(self.stream.record)
        message = strip_state(reader.message).strip()
        if message:
            yield Reply({"action": "ASK", "message": message})

    async def _failed(self, err: ProviderError) -> None:
        assert self.stream is not None
        await self.stream.aclose()
        if record_of(err) is None:
            err.record = self.stream.record  # type: ignore[attr-defined]
        self.call.failed(err)

    async def drop(self) -> None:
        """Not shown: stop the provider's stream and trace the call."""
        if self.stream is not None and not self.taken:
            self.taken = True
            await self.stream.aclose()
            self.call.traced(self.stream.record)


__all__ = ["Answer"]
