"""Flow file -> validated ``ServiceSpec`` plus its ``SourceMap``, or a located error."""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Any

from pydantic import ValidationError

from engine.dsl import schema
from engine.dsl.load import load_file, load_text
from engine.dsl.spec import ServiceSpec
from engine.errors import FlowDefinitionError
from engine.source import SourceMap

__all__ = ["ServiceSpec", "load_service", "load_service_text", "parse"]


def load_service(path: str | FilePath) -> tuple[ServiceSpec, SourceMap]:
    """Load, schema-check and parse one flow file."""
    return parse(*load_file(path))


def load_service_text(text: str, file: str = "<string>") -> tuple[ServiceSpec, SourceMap]:
    return parse(*load_text(text, file))


def parse(data: Any, source: SourceMap) -> tuple[ServiceSpec, SourceMap]:
    """Schema findings first (all of them); pydantic only sees data the schema accepted."""
    findings = schema.check(data, source)
    if findings:
        raise FlowDefinitionError(findings)
    try:
        return ServiceSpec.model_validate(data), source
    except ValidationError as err:  # model validators the schema cannot express
        raise FlowDefinitionError(
            source.finding(tuple(e["loc"][:-1] if e["type"] == "value_error" else e["loc"]),
                           e["msg"].removeprefix("Value error, "), code="FL016")
            for e in err.errors()
        ) from None
