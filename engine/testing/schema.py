"""The JSON Schemas of conversation tests (``*.test.yaml``) and eval sets (``*.eval.yaml``),
generated from their models: editors complete and check the files as they are typed, from a
``# yaml-language-server: $schema=…`` modeline, as they do flow files."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from engine.schema_files import schema_path


class _Schema:
    """One generated schema file: its path in schemas/, its id and how it is rendered."""

    def __init__(self, name: str, title: str, model: type[BaseModel]) -> None:
        self.SCHEMA_PATH = schema_path(name)
        self.id = f"https://flowctl.dev/schemas/{name}"
        self.title, self.model = title, model

    def generate_schema(self) -> dict[str, Any]:
        return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": self.id,
                "title": self.title, **self.model.model_json_schema(by_alias=True)}

    def render_schema(self) -> str:
        return json.dumps(self.generate_schema(), ensure_ascii=False, indent=2) + "\n"


def schemas() -> tuple[_Schema, _Schema]:
    """The conversation-test and eval-set schemas."""
    from engine.testing.eval_spec import EvalFileSpec
    from engine.testing.spec import TestFileSpec

    return (_Schema("test.schema.json", "flowctl conversation tests", TestFileSpec),
            _Schema("eval.schema.json", "flowctl eval set", EvalFileSpec))
