"""An app file -> (AppSpec, every located finding); the app's JSON Schema is generated here.

Loading reuses the flow loader (``engine.dsl.load``: line:column for every node, duplicate
keys and YAML 1.1 booleans caught) and the flow schema's way of explaining violations; the
checks a schema cannot express (unknown default, a keyword two services claim, a service
nothing routes to, a remote URL variable that is not set, a flow file that is missing or
does not compile) follow, each located at the key the author must change.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from engine.app.checks import check_app
from engine.app.kind import is_app_data, is_app_file
from engine.app.loaded import LoadedApp
from engine.app.spec import AppSpec
from engine.dsl import schema as flow_schema
from engine.dsl.hooks import resolve_url, url_variable
from engine.dsl.load import load_file
from engine.errors import Finding, FlowDefinitionError
from engine.schema_files import schema_path

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

SCHEMA_ID = "https://flowctl.dev/schemas/app.schema.json"
SCHEMA_PATH = schema_path("app.schema.json")

__all__ = ["SCHEMA_PATH", "LoadedApp", "analyse_app", "is_app_data", "is_app_file",
           "load_app", "render_schema", "resolve_url", "url_variable"]


def generate_schema() -> dict[str, Any]:
    """The JSON Schema of an app file, generated from the spec models."""
    schema = flow_schema._names_as_property_names(AppSpec.model_json_schema(by_alias=True))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "title": "flowctl app", **schema}


def render_schema() -> str:
    return json.dumps(generate_schema(), ensure_ascii=False, indent=2) + "\n"


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(generate_schema())


def load_app(path: str | FilePath, env: Mapping[str, str]) -> LoadedApp:
    """Load, validate and compile the app at ``path``; FlowDefinitionError with every
    error-severity finding when it cannot be served."""
    loaded, findings = analyse_app(path, env)
    errors = [f for f in findings if f.severity == "error"]
    if loaded is None or errors:
        raise FlowDefinitionError(errors or findings)
    return loaded


def analyse_app(path: str | FilePath,
                env: Mapping[str, str]) -> tuple[LoadedApp | None, list[Finding]]:
    """Every finding of the app at ``path`` (schema, names, routes, flows, environment)."""
    try:
        data, source = load_file(path)
    except FlowDefinitionError as err:
        return None, list(err.findings)
    if not flow_schema.accepted(AppSpec, data):
        findings = flow_schema.explain_all(_validator(), data, source)
        if findings:
            return None, findings
    try:
        spec = AppSpec.model_validate(data)
    except ValidationError as err:  # the one rule the schema cannot say (one service kind)
        return None, [source.finding(tuple(e["loc"]), e["msg"].removeprefix("Value error, "),
                                     code="FL016") for e in err.errors()]
    loaded = LoadedApp(spec, FilePath(path), source)
    findings = list(check_app(loaded, env))
    return loaded, findings

