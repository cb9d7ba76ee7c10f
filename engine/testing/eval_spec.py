"""The shape of an ``*.eval.yaml`` file -> closed pydantic models (its JSON Schema too).

Each case is a message as a real user types it, the scene it is said in (earlier turns,
``after``, and where they must leave the conversation) and the reading a careful person
expects of it (``Expect``).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.testing.spec import StubSpec


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Expect(_Spec):
    """The reading a careful person expects; only the keys given are scored."""

    intent: str | None = Field(None, description="The intent the message starts; null: none.")
    slots: dict[str, Any] | None = Field(None, description="The slot values this message gives "
                                                           "(as the engine stores them); {}: none.")
    decision: Literal["confirm", "cancel", "deny", "none"] | None = Field(
        None, description="The decision the message is at a yes/no question; none: not one.")
    settled: bool | None = Field(
        None, description="false: rules cannot be sure of it (the model or a question back "
                          "decides).")

    @model_validator(mode="after")
    def _consistent(self) -> Expect:
        if self.settled is False and (self.decision not in (None, "none") or self.slots):
            raise ValueError("`settled: false` says rules cannot be sure of the message, so it "
                             "cannot also expect a decision or slot values: keep one")
        return self


class Scene(_Spec):
    """Where the ``after`` turns must have left the conversation before the message."""

    flow: str = Field(description="The flow on top.")
    stage: str | None = Field(None, description="Its stage; any when not given.")


class EvalCase(_Spec):
    message: str = Field(description="What the user types.")
    after: list[str] = Field(default_factory=list, description="Earlier turns, sent first.")
    at: Scene | None = Field(
        None, description="Where the `after` turns must leave the conversation (flow, stage): "
                          "a case whose scene is not reached is reported as that, since it "
                          "would measure another question than the one meant.")
    tag: str | None = Field(None, description="The class of message this case is one of.")
    context: dict[str, Any] | None = Field(
        None, description="The request context of this case's turns (default: the file's).")
    expect: Expect


class EvalFileSpec(_Spec):
    flow: str | None = Field(None, description="Flow file beside this one; default: same name.")
    today: dt.date = Field(dt.date(2026, 11, 22), description="Relative dates resolve against it.")
    env: dict[str, str] = Field(default_factory=dict, description="Settings, as env variables.")
    context: dict[str, Any] | None = Field(
        None, description="The request context every turn carries (checked against the "
                          "flow's `context` schema).")
    stubs: dict[str, StubSpec] = Field(
        default_factory=dict,
        description="Action or declared tool -> its canned result or error in every case: "
                    "the scenes reach a confirmation without the real services (nothing is "
                    "called; a tool's requests still pass the gateway).")
    cases: list[EvalCase]


__all__ = ["EvalCase", "EvalFileSpec", "Expect", "Scene"]
