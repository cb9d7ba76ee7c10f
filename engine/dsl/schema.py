"""Plain flow data -> located findings, by the JSON Schema generated from the spec models.

``generate_schema()`` builds schemas/flow.schema.json from ``ServiceSpec`` (draft 2020-12,
descriptions included, for editors). ``check(data, source)`` reports *all* violations,
each at the offending key, in words an author can act on, sorted by position.

A file the spec models accept in strict mode has no violation (strict pydantic accepts
nothing the schema refuses; tests/test_dsl_schema_fast.py holds it to that), so ``check``
asks them first: generating the schema and importing jsonschema are left to files that
have something to report, and ``flowctl serve`` of a valid flow does neither
(docs/performance.md).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import pydantic

from engine.dsl.spec import ServiceSpec
from engine.errors import Finding
from engine.schema_files import schema_path
from engine.source import Path, SourceMap, dotted

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

SCHEMA_ID = "https://flowctl.dev/schemas/flow.schema.json"
SCHEMA_PATH = schema_path("flow.schema.json")
_ARTICLE = {"string": "a string", "boolean": "a boolean", "integer": "an integer",
            "number": "a number", "object": "a mapping", "array": "a list", "null": "empty"}
_JSON_TYPES = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
               int: "an integer", float: "a number", type(None): "empty (null)"}


def generate_schema() -> dict[str, Any]:
    """The JSON Schema of a flow file, generated from the spec models."""
    schema = _names_as_property_names(ServiceSpec.model_json_schema(by_alias=True))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "title": "flowctl service", **schema}


def _names_as_property_names(node: Any) -> Any:
    """pydantic writes dict-key patterns as patternProperties, which lets a bad key through;
    a propertyNames pattern rejects it (and editors underline the key)."""
    if isinstance(node, dict):
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict) and len(patterns) == 1:
            (pattern, value), = patterns.items()
            node = {k: v for k, v in node.items() if k != "patternProperties"}
            node["propertyNames"] = {**node.get("propertyNames", {}), "pattern": pattern}
            node["additionalProperties"] = value
        return {k: _names_as_property_names(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_names_as_property_names(v) for v in node]
    return node


def render_schema() -> str:
    return json.dumps(generate_schema(), ensure_ascii=False, indent=2) + "\n"


@lru_cache(maxsize=1)
def validator() -> Draft202012Validator:
    """The validator of the flow schema, made on first use."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(generate_schema())


def accepted(model: type[pydantic.BaseModel], data: Any) -> bool:
    """``model`` takes ``data`` as it is, coercing nothing: then its schema would too."""
    try:
        model.model_validate(data, strict=True)
    except pydantic.ValidationError:
        return False
    return True


def check(data: Any, source: SourceMap) -> list[Finding]:
    """Every schema violation in ``data``, located and explained, sorted by line."""
    return [] if accepted(ServiceSpec, data) else explain_all(validator(), data, source)


def explain_all(checker: Draft202012Validator, data: Any, source: SourceMap) -> list[Finding]:
    """Every violation ``checker`` finds in ``data`` (a flow's or an app's), sorted by line."""
    findings = [f for error in checker.iter_errors(data)
                for f in _explain(error, checker.schema, source)]
    unique = {(f.location.line, f.location.column, f.message): f for f in findings}
    return sorted(unique.values(), key=lambda f: (f.location.line, f.location.column))


def _explain(error: ValidationError, root: Mapping[str, Any],
             source: SourceMap) -> Iterator[Finding]:
    path: Path = tuple(error.absolute_path)
    where = dotted(path) or "the file"
    kind = error.validator
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        for key in _extra_keys(error):
            yield source.finding((*path, key), f"unknown key `{key}` in {where}", code="FL010",
                                 key=True, hint=source.cut_at_comma((*path, key)) or
                                 _suggest(key, allowed, "expected one of"))
    elif kind == "required":
        quoted = error.message.split("'")
        missing = quoted[1] if len(quoted) > 2 else str(error.validator_value)
        yield source.finding(path, f"{where} is missing the required key `{missing}`", code="FL011",
                             key=True)
    elif kind in ("anyOf", "oneOf"):
        yield from _explain_union(error, root, source)
    elif kind == "type":
        yield _type_finding(error, path, where, source)
    elif kind in ("enum", "const"):
        options = error.validator_value if kind == "enum" else [error.validator_value]
        yield source.finding(path, f"{where} is {error.instance!r}; expected one of "
                             f"{', '.join(map(repr, options))}", code="FL013",
                             hint=_suggest(str(error.instance), [str(o) for o in options]))
    elif kind == "pattern" and "propertyNames" in error.schema_path:
        yield source.finding((*path, error.instance), f"`{error.instance}` in {where} is not a "
                             "valid name; use letters, digits and _, not starting with a digit",
                             code="FL014", key=True)
    elif kind == "pattern":
        yield source.finding(path, f"{where}: {error.instance!r} does not match the pattern "
                             f"{error.validator_value!r}", code="FL014")
    else:
        yield source.finding(path, f"{where}: {error.message}", code="FL019")


def _type_finding(error: ValidationError, path: Path, where: str, source: SourceMap) -> Finding:
    expected = error.validator_value
    names: list[str] = expected if isinstance(expected, list) else [expected]
    expected_text = " or ".join(_ARTICLE.get(n, n) for n in names)
    got = _JSON_TYPES.get(type(error.instance), type(error.instance).__name__)
    hint = None
    if path in source.yaml11_bools:
        raw = source.yaml11_bools[path]
        hint = f"YAML reads an unquoted `{raw}` as a boolean; write '{raw}' in quotes"
    return source.finding(path, f"{where} must be {expected_text}, got {got}", code="FL012",
                          hint=hint)


def _explain_union(error: ValidationError, root: Mapping[str, Any],
                   source: SourceMap) -> Iterator[Finding]:
    """Pick the branch the author meant (by its kind key) and explain only that branch."""
    branches = [_resolve(b, root) for b in error.validator_value]
    path: Path = tuple(error.absolute_path)
    chosen, problem = _meant_branch(branches, error.instance, path)
    if problem is not None:
        message, hint = problem
        yield source.finding(path, message, code="FL015", hint=hint)
        return
    sub = [e for e in error.context or () if e.relative_schema_path[0] == chosen]
    if not sub:
        yield source.finding(path, f"{dotted(path)}: {error.message}", code="FL019")
    for e in sub:
        yield from _explain(e, root, source)


def _meant_branch(branches: Sequence[Mapping[str, Any]], instance: Any, path: Path
                  ) -> tuple[int, tuple[str, str | None] | None]:
    """(the branch whose kind key the entry has, or a (message, hint) when the entry has
    several kind keys or none of them)."""
    kinds = _kind_keys(branches) if isinstance(instance, dict) else []
    present = [i for i, k in enumerate(kinds) if k and k in instance]
    if len(present) == 1:
        return present[0], None
    if len(present) > 1:
        names = " and ".join(f"`{kinds[i]}`" for i in present)
        return 0, (f"{dotted(path)} mixes {names}; each entry takes exactly one of them", None)
    offered = [k for k in kinds if k]
    if offered:
        return 0, _no_kind_key(instance, offered, path)
    return next((i for i, b in enumerate(branches) if not _accepts_null_only(b)), 0), None


def _no_kind_key(instance: Mapping[str, Any], offered: list[str], path: Path
                 ) -> tuple[str, str | None]:
    keys = ", ".join(f"`{k}`" for k in instance) or "no keys"
    guess = next((_suggest(k, offered) for k in instance if _suggest(k, offered)), None)
    return (f"{dotted(path)} has {keys}; expected one of {', '.join(f'`{k}`' for k in offered)}",
            guess)


def _kind_keys(branches: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """For each branch, the first required key no other branch requires (its kind key)."""
    required = [list(b.get("required", [])) for b in branches]
    kinds: list[str | None] = []
    for i, keys in enumerate(required):
        others = {k for j, ks in enumerate(required) if j != i for k in ks}
        kinds.append(next((k for k in keys if k not in others), None))
    return kinds


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return root["$defs"][ref.removeprefix("#/$defs/")]
    return schema


def _accepts_null_only(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "null"


def _extra_keys(error: ValidationError) -> list[str]:
    allowed = set(error.schema.get("properties", {}))
    instance = error.instance if isinstance(error.instance, dict) else {}
    return [k for k in instance if k not in allowed]


def _suggest(word: str, options: Sequence[str], lead: str = "did you mean") -> str | None:
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if close:
        return f"did you mean `{close[0]}`?"
    if lead != "did you mean" and options:
        return f"{lead}: {', '.join(options)}"
    return None
