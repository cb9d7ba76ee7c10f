"""A reply's JSON Schema in the form each OpenAI-compatible server accepts.

api.openai.com takes ``response_format: {"type": "json_schema", "json_schema": {...}}`` and
constrains decoding to it (``strict`` when the schema meets its rules). Compatible servers
differ: llama.cpp's server and vLLM take the same form; llama-cpp-python's server refuses it
(HTTP 500) but takes ``{"type": "json_object", "schema": {...}}``; vLLM also reads
``guided_json`` from the request body; the oldest take only ``{"type": "json_object"}``.

``OPENAI_JSON_FORM`` names the form for a server. Without it flowctl starts with
``json_schema`` and, when a server refuses that with an error that names the format, steps
down once to the next form and keeps it for the process (``next_form``): one extra request
per process, never per turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

JsonForm = Literal["json_schema", "json_object_schema", "guided_json", "json_object"]
FORMS: tuple[JsonForm, ...] = ("json_schema", "json_object_schema", "guided_json",
                               "json_object")
_FALLBACK: Mapping[JsonForm, JsonForm] = {"json_schema": "json_object_schema",
                                          "json_object_schema": "json_object"}
# words of an error that is about the request's output format, not about anything else
_FORM_WORDS = ("response_format", "json_schema", "schema", "json_object", "grammar")

__all__ = ["FORMS", "JsonForm", "form_params", "next_form", "refuses_form", "strict_ready"]


def form_params(form: JsonForm, schema: Mapping[str, Any] | None,
                name: str = "reply") -> dict[str, Any]:
    """The request body's entries that ask for JSON in ``form`` (plain JSON without a schema)."""
    if schema is None or form == "json_object":
        return {"response_format": {"type": "json_object"}}
    if form == "json_schema":
        spec: dict[str, Any] = {"name": name, "schema": dict(schema)}
        if strict_ready(schema):
            spec["strict"] = True
        return {"response_format": {"type": "json_schema", "json_schema": spec}}
    if form == "json_object_schema":
        return {"response_format": {"type": "json_object", "schema": dict(schema)}}
    return {"response_format": {"type": "json_object"}, "extra_body": {"guided_json": dict(schema)}}


def next_form(form: JsonForm) -> JsonForm | None:
    """The form to try after a server refused ``form``; None when there is none."""
    return _FALLBACK.get(form)


def refuses_form(status: int | None, message: str) -> bool:
    """Whether an error answer is a server refusing the request's JSON form: a 400, 422 or
    500 whose text names the format (a 401, 404 or 429 is about something else)."""
    if status not in (400, 422, 500):
        return False
    text = message.lower()
    return any(word in text for word in _FORM_WORDS)


def strict_ready(schema: Mapping[str, Any]) -> bool:
    """Whether ``schema`` meets strict mode's rules: every object closed
    (``additionalProperties: false``) with all its properties required."""
    if not isinstance(schema, Mapping):
        return True
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            return False
        if set(schema.get("required", [])) != set(properties):
            return False
    for key in ("properties", "$defs", "definitions"):
        if not all(strict_ready(s) for s in (schema.get(key) or {}).values()):
            return False
    for key in ("items", "additionalProperties", "not"):
        child = schema.get(key)
        if isinstance(child, Mapping) and not strict_ready(child):
            return False
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if not all(strict_ready(s) for s in schema.get(key) or []):
            return False
    return True
