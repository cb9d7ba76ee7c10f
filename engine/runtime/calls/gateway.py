"""(a tool's parameters schema and rules, a request's arguments, the turn) -> a rejection or None.

The gateway every tool request passes, from an agent's tool loop and from a ``call``
action alike, before anything runs: first the arguments against the tool's JSON Schema
``parameters``, then the tool's ``rules`` in order. It fails closed: a rule that cannot be
evaluated (it reads an argument the request lacks) rejects the request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.compiler.compiled import CompiledRule

if TYPE_CHECKING:  # imported when a tool's request is first checked (~70 ms, 3 MiB)
    from jsonschema import Draft202012Validator


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Draft202012Validator:
    import json

    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(schema_json))


def validator(schema: Mapping[str, Any]) -> Draft202012Validator:
    """A (cached) Draft 2020-12 validator of ``schema``."""
    import json

    return _validator(json.dumps(schema, sort_keys=True))


def schema_problem(schema: Mapping[str, Any] | None, value: Any) -> str | None:
    """Why ``value`` does not satisfy ``schema`` (the most relevant error), or None."""
    if schema is None:
        return None
    from jsonschema.exceptions import best_match

    error = best_match(validator(schema).iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def rejection(tool: str, parameters: Mapping[str, Any] | None, rules: Sequence[CompiledRule],
              args: Mapping[str, Any], view: Mapping[str, Any]) -> str | None:
    """Why the gateway rejects calling ``tool`` with ``args``, or None to let it run.

    Example::

        rejection("refund", {"type": "object", "required": ["amount"]}, (), {}, view)
        # "invalid arguments for refund: 'amount' is a required property"
    """
    problem = schema_problem(parameters, dict(args))
    if problem is not None:
        return f"invalid arguments for {tool}: {problem}"
    scope = {**view, "args": dict(args)}
    for rule in rules:
        try:
            holds = bool(rule.when.render(scope))
        except Exception as err:  # fail closed: a rule that cannot be checked rejects
            return f"{tool}: a gateway rule could not be checked ({type(err).__name__})"
        if holds:
            try:
                return str(rule.reject.render(scope))
            except Exception:
                return f"{tool}: rejected by a gateway rule"
    return None


__all__ = ["rejection", "schema_problem", "validator"]
