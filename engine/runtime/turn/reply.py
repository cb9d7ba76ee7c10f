"""The turn's state + the service's messages -> what the user is told, in order.

Every sentence comes from a template of the flow file or a built-in text (never from code); a
user's words only ever reach a template as data.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.compiler.compiled import CompiledService
from engine.runtime.understanding.context import TurnState
from engine.texts import text


class Reply:
    """The parts of this turn's answer, rendered against the turn's view as they are said."""

    __slots__ = ("_service", "_state", "_text", "parts")

    def __init__(self, service: CompiledService, state: TurnState,
                 builtin: Callable[..., str]) -> None:
        self._service, self._state, self._text = service, state, builtin
        self.parts: list[str] = []

    def render(self, message: str) -> str:
        return str(self._service.messages[message].render(self._state.view()))

    def say(self, message: str | None) -> None:
        """Append ``message`` rendered now (an empty rendering says nothing, nor a sentence
        just said: a called flow and its caller both ending "Cancelled." say it once)."""
        if message is not None:
            rendered = self.render(message)
            if rendered and rendered != (self.parts[-1] if self.parts else None):
                self.parts.append(rendered)

    def ask(self, name: str) -> str:
        """The question that asks for slot ``name`` (templates call it as ``ask(name)``)."""
        own = self._state.flow.ask.get(name)
        if own is not None:
            return self.render(own)
        slot = self._service.slots.get(name)
        if slot is None or slot.spec.ask is None:
            described = slot.spec.description if slot and slot.spec.description else name
            return self._text("ask_slot", slot=described)
        return self.render(slot.spec.ask)

    def labels(self, intents: list[str]) -> list[str]:
        """The words offered for ``intents`` in a clarification question."""
        return [self._service.patterns.labels.get(i, i) for i in intents]

    def say_which(self, intents: list[str]) -> None:
        """Ask which of ``intents`` was meant (the service's `clarify` message or built-in)."""
        ask = self._service.patterns.clarify_ask
        if ask is not None:
            self.say(ask)
        else:
            options = self.labels(intents)
            self.parts.append(self._text("clarify", options=", ".join(f"'{o}'" for o in options)))

    def label(self, kind: str) -> str:
        """A progress label (AGENT_START's ``label``) in the service's locale."""
        return text(self._service.locale, f"label_{kind}")

    def text(self) -> str:
        return " ".join(self.parts)


__all__ = ["Reply"]
