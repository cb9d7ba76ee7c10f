"""What every model of the flow language shares: the closed, frozen base model and the
annotated string kinds (identifiers, stage names, expressions) the JSON Schema describes."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

Name = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="An identifier: letters, digits and _, not starting with a digit.")]
StageName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="A stage name, e.g. READY.")]
Expression = Annotated[str, Field(description="A jinja2 expression over the turn context, e.g. `not missing` or `slots.amount > 100000`.")]
SourceName = Annotated[str, Field(pattern=r"^(\*|[A-Za-z_][A-Za-z0-9_]*)$", description="A stage name, or `*` for every non-terminal stage.")]


class Spec(BaseModel):
    """A part of a flow or app file: unknown keys are refused, nothing changes once read.

    Each model's validator is built when it first reads a file (``defer_build``): a server
    started from a build only unpickles specs, and never pays for building them."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


__all__ = ["Expression", "Name", "SourceName", "Spec", "StageName"]
