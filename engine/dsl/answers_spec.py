"""Closed pydantic models of answering from documents and data (part of spec.py's schema):
`knowledge:` bases, the `retrieve` step that searches them, and the `respond` step that
says a response synthesised from the turn's data (summary, numbered actions, caveats).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from engine.dsl.base import Expression, Name, Spec


class RetrieveStep(Spec):
    retrieve: Name = Field(description="Knowledge base (a name in `knowledge`) to search; its best chunks go to `retrieved.<as>` for the rest of the turn.")
    query: str | None = Field(None, description="Template of the query, e.g. `{{ slots.product }} 가격`; the user's message by default.")
    top_k: int = Field(3, ge=1, le=20, description="How many chunks to keep, best first.")
    as_: Name | None = Field(None, alias="as", description="Name of the hits under `retrieved` (default: the knowledge base's name).")
    label: str | None = Field(None, description="Progress label shown while it runs.")


class RespondLine(Spec):
    """One line of a synthesised response: a message, or one per item of a list."""

    say: str | None = Field(None, description="Message (name in `messages`) to say; with `each`, said once per item, which it reads as `value`.")
    each: Expression | None = Field(None, description="Expression giving a list (e.g. `agents.reco.suggested_actions`); each item becomes a line (its text, or `say` rendered with `value` = the item).")
    when: Expression | None = Field(None, description="The line is said only when this holds.")

    @model_validator(mode="after")
    def _says_something(self) -> RespondLine:
        if self.say is None and self.each is None:
            raise ValueError("a response line needs `say` or `each`")
        return self


Line = Annotated[str | RespondLine, Field(description="A message name, or a line with a condition or a list.")]


class SynthesisSpec(Spec):
    """A response built from the turn's data: summary, then numbered actions, then caveats
    (in that order); `requires_confirmation` and `next` go to DONE."""

    summary: str | None = Field(None, description="Message (name in `messages`) that sums up what was asked and found, in a sentence or two.")
    actions: list[Line] = Field(default_factory=list, description="Concrete next steps, said as a numbered list.")
    caveats: list[Line] = Field(default_factory=list, description="Conditions, limits and what needs the user's confirmation, after the actions.")
    requires_confirmation: bool | Expression = Field(False, description="DONE's `requires_confirmation` (a condition, or true/false).")
    next: list[Line] = Field(default_factory=list, description="DONE's `next_suggested_actions`: short texts a client may offer.")
    fallback: str | None = Field(None, description="Message said when a part fails to render (failure tag RESPONSE_SYNTHESIS_FAILED); the built-in `synthesis_failed` text by default.")

    @model_validator(mode="after")
    def _has_content(self) -> SynthesisSpec:
        if self.summary is None and not self.actions and not self.caveats:
            raise ValueError("a response needs a `summary`, `actions` or `caveats`")
        return self


class RespondStep(Spec):
    respond: SynthesisSpec = Field(description="Say a response synthesised from the turn's data: summary, numbered actions, caveats.")


class KnowledgeSpec(Spec):
    """Documents a `retrieve` step searches: the markdown files of one directory."""

    dir: str = Field(description="Directory of markdown files (.md), relative to the flow file and inside its directory; `flowctl index FLOW` indexes it (so does compiling the flow when there is no index yet).")
    description: str = Field("", description="What the documents hold; for people reading the file.")


__all__ = ["KnowledgeSpec", "RespondLine", "RespondStep", "RetrieveStep", "SynthesisSpec"]
