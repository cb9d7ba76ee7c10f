"""Flow file -> every finding (load, schema, names, graph safety, data flow, values, usage)
and the compiled service when there is no error: the compiler's one front end.

``compile_file`` (serve, chat, test) and ``flowctl lint`` both go through ``analyse_file``,
so they report exactly the same findings. The loader stops at the first stage that has
errors, but an author wants all of them at once, and the semantic checks still run. So
when the schema rejects part of the file, that part is *repaired* on a copy — an unknown
key dropped, a broken step or transition removed, a broken slot/action/model/flow replaced
by a placeholder under the same name — and the repaired spec goes on to the compiler and
the checks. Findings located inside a repaired part would be about the placeholder, not
the author's text, and are dropped; checks that need the whole file (unused names) are
skipped after any repair.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Any

import yaml
from pydantic import ValidationError

from engine.compiler.build import build_service
from engine.compiler.checks import prompts, run_checks
from engine.compiler.checks.context import Context
from engine.compiler.compiled import CompiledService
from engine.dsl import parse
from engine.dsl.load import NodeBuilder, load_text, may_be_too_deep
from engine.dsl.schema import check, validator
from engine.dsl.spec import ServiceSpec
from engine.errors import Finding, FlowDefinitionError, SourceLocation, sorted_findings
from engine.source import Path, SourceMap

_KEY_ONLY = frozenset({"FL004", "FL005"})
_ITEM_LISTS = frozenset({"steps", "then", "else", "transitions"})
_PLACEHOLDERS: dict[str, Any] = {
    "slots": {"type": "string"}, "actions": {"tool": "calculator"},
    "tools": {"http": {"url": "http://127.0.0.1/"}},
    "models": {"provider": "offline"}, "intents": {}, "messages": "",
    "flows": {"initial": "_", "stages": {"_": {}}},
}
_DROPPABLE_TOP = frozenset({"memory", "words", "settings", "description", "version", "locale"})
_MAX_ROUNDS = 4


@dataclass(slots=True)
class Parsed:
    """What lint knows about one flow file after loading, schema, parsing and compiling."""

    file: str
    findings: list[Finding] = field(default_factory=list)
    """Load, schema and spec findings: about the text as written."""
    compile_findings: list[Finding] = field(default_factory=list)
    """The compiler's findings, about the (possibly repaired) spec."""
    source: SourceMap | None = None
    spec: ServiceSpec | None = None
    compiled: CompiledService | None = None
    repaired: list[Path] = field(default_factory=list)
    """Parts replaced by a placeholder or removed whole (a step, a transition, an entry)."""
    dropped_keys: list[Path] = field(default_factory=list)
    """Unknown keys removed (they meant nothing to the engine, so nothing else changes)."""
    unusable: bool = False

    @property
    def complete(self) -> bool:
        """The spec is exactly what the author wrote (nothing was repaired)."""
        return self.spec is not None and not self.repaired and not self.dropped_keys

    def repaired_flows(self) -> set[str]:
        return {str(p[1]) for p in self.repaired if len(p) > 1 and p[0] == "flows"}

    def line_spans(self, paths: Iterable[Path]) -> list[tuple[int, int]]:
        """First and last line of the YAML written under each of ``paths``."""
        if self.source is None:
            return []
        positions = [*self.source.keys.items(), *self.source.values.items()]
        spans = []
        for path in paths:
            lines = [pos[0] for p, pos in positions if p[: len(path)] == path]
            if lines:
                spans.append((min(lines), max(lines)))
        return spans


def parse_file(path: FilePath) -> Parsed:
    """Load, schema-check, parse and compile ``path``, collecting every finding."""
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
        finding = Finding(SourceLocation(name, 1, 1), f"cannot read file: {reason}", "FL001")
        return Parsed(name, [finding], unusable=True)
    return parse_text(text, name, base_dir=path.resolve().parent)


def parse_text(text: str, file: str, *, base_dir: FilePath) -> Parsed:
    result = Parsed(file)
    loaded = _load(text, file, result)
    if loaded is None:
        return result
    data, source = loaded
    result.source = source
    result.findings.extend(check(data, source))
    if result.findings and not (data := _repair_schema(data, source, result)):
        return result
    result.spec = _parse_spec(data, source, result)
    if result.spec is not None:
        try:
            result.compiled = build_service(result.spec, source, base_dir=base_dir)
        except FlowDefinitionError as err:
            result.compile_findings.extend(err.findings)
    return result


def analyse_file(path: FilePath) -> tuple[Parsed, list[Finding]]:
    """All findings of one flow file, sorted; semantic checks run on whatever parsed."""
    parsed = parse_file(path)
    findings = list(parsed.findings)
    if parsed.spec is None or parsed.source is None:
        return parsed, sorted_findings(findings + parsed.compile_findings)
    ctx = Context(parsed.spec, parsed.source, path.resolve().parent, complete=parsed.complete)
    run_checks(ctx)
    in_prompts = prompts.check(ctx)
    compiled = prompts.relocated(ctx, parsed.compile_findings, in_prompts)
    flows = [("flows", f) for f in parsed.repaired_flows()]
    flow_spans = parsed.line_spans(flows)  # a removed transition makes FL024 unreliable there
    findings += [f for f in _outside(compiled, parsed.line_spans(parsed.repaired))
                 if f.code != "FL024" or _outside([f], flow_spans)]
    findings += _outside(ctx.findings, parsed.line_spans([*parsed.repaired, *flows]))
    return parsed, sorted_findings(findings + in_prompts)


def _outside(findings: Iterable[Finding], spans: list[tuple[int, int]]) -> list[Finding]:
    """Findings not inside a repaired part of the file (those are about the placeholder)."""
    return [f for f in findings if not any(a <= f.location.line <= b for a, b in spans)]


_FAST_LOADER = getattr(yaml, "CSafeLoader", None)


def _load(text: str, file: str, result: Parsed) -> tuple[Any, SourceMap] | None:
    """The loader's data and SourceMap. libyaml composes the same nodes (same marks, same
    tags) ten times faster than PyYAML, which matters for a whole repository; any problem
    goes back through the loader itself so that its findings read exactly the same. With
    only duplicate or complex keys, lint goes on with the first value of each key. A file
    that may be nested too deeply goes straight to ``load_text``'s depth check (libyaml's own
    limit differs between PyYAML releases: 6.0.3's composes such a file, 6.0.4's refuses)."""
    if _FAST_LOADER is not None and not may_be_too_deep(text):
        try:
            node = yaml.compose(text, Loader=_FAST_LOADER)
        except yaml.YAMLError:
            node = None
        if node is not None:
            source = SourceMap(file, text.splitlines())
            builder = NodeBuilder(source)
            data = builder.build(node, ())
            result.findings.extend(builder.findings)
            return data, source
    try:
        return load_text(text, file)
    except FlowDefinitionError as err:
        result.findings.extend(err.findings)
        if not {f.code for f in err.findings} <= _KEY_ONLY:
            return None
    source = SourceMap(file, text.splitlines())
    builder = NodeBuilder(source)
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    assert node is not None  # load_text got as far as building it: only key findings
    return builder.build(node, ()), source


def _repair_schema(data: Any, source: SourceMap, result: Parsed) -> Any:
    """A copy of ``data`` the schema accepts, or None when no safe repair exists."""
    data = copy.deepcopy(data)
    for _ in range(_MAX_ROUNDS):
        errors = list(validator().iter_errors(data))
        if not errors:
            return data
        repairs = [r for e in errors for r in _repairs(e, data, source)]
        if any(r is None for r in repairs):
            return None
        if not _apply(data, [r for r in repairs if r is not None], result):
            return None
    return None


Repair = tuple[str, Path, Any]
"""("drop" | "set", path, value) for structural repairs; ("key" | "text", ...) for an unknown
key dropped or a YAML 1.1 boolean put back as the text the author wrote."""


def _repairs(error: Any, data: Any, source: SourceMap) -> Iterable[Repair | None]:
    path: Path = tuple(error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = set(error.schema.get("properties", {}))
        instance = error.instance if isinstance(error.instance, dict) else {}
        yield from (("key", (*path, k), None) for k in instance if k not in allowed)
    elif path in source.yaml11_bools:
        yield "text", path, source.yaml11_bools[path]
    else:
        yield _repair_at(path, error, data)


def _repair_at(path: Path, error: Any, data: Any) -> Repair | None:
    for i in range(len(path) - 1, 0, -1):
        if isinstance(path[i], int) and path[i - 1] in _ITEM_LISTS:
            return "drop", path[: i + 1], None
    if len(path) >= 4 and path[0] == "flows" and path[2] == "stages":
        return "set", path[:4], {}
    if len(path) >= 2 and path[0] in _PLACEHOLDERS:
        return "set", path[:2], copy.deepcopy(_PLACEHOLDERS[str(path[0])])
    if path and path[0] == "routes":
        return "drop", path[:2] if len(path) > 1 else path[:1], None
    if path and path[0] in _DROPPABLE_TOP:
        return "drop", path[:1], None
    return _repair_top(path, error, data)


def _repair_top(path: Path, error: Any, data: Any) -> Repair | None:
    missing = error is not None and error.validator == "required" and not path
    key = (str(error.message).split("'")[1] if missing and "'" in str(error.message)
           else (path[0] if len(path) == 1 else None))
    flows = data.get("flows") if isinstance(data, dict) else None
    if key == "service":
        return "set", ("service",), "service"
    if key == "default_flow" and isinstance(flows, dict) and flows:
        return "set", ("default_flow",), next(iter(flows))
    return None


def _apply(data: Any, repairs: list[Repair], result: Parsed) -> bool:
    # deepest and last items first, so dropping a list item keeps the other indices valid
    unique = {(kind, path): value for kind, path, value in repairs}
    for (kind, path), value in sorted(unique.items(), key=lambda r: _order(r[0][1]),
                                      reverse=True):
        parent = _get(data, path[:-1])
        if parent is None:
            return False
        if kind in ("drop", "key"):
            if isinstance(parent, list) and isinstance(path[-1], int) \
                    and path[-1] < len(parent):
                del parent[path[-1]]
            elif isinstance(parent, dict):
                parent.pop(path[-1], None)
        elif isinstance(parent, dict | list):
            parent[path[-1]] = value  # type: ignore[index]
        (result.dropped_keys if kind in ("key", "text") else result.repaired).append(path)
    return True


def _order(path: Path) -> tuple[Any, ...]:
    return (len(path), *((0, p) if isinstance(p, int) else (1, str(p)) for p in path))


def _get(data: Any, path: Path) -> Any:
    node = data
    for part in path:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            return None
    return node


def _parse_spec(data: Any, source: SourceMap, result: Parsed) -> ServiceSpec | None:
    """The spec; model validators the schema cannot express are reported, then repaired."""
    for round_ in range(_MAX_ROUNDS):
        try:
            return ServiceSpec.model_validate(data)
        except ValidationError as err:
            if round_ == 0:  # report in the loader's own words
                try:
                    parse(data, source)
                except FlowDefinitionError as found:
                    result.findings.extend(found.findings)
            repairs = [_repair_at(tuple(e["loc"]), None, data) for e in err.errors()]
            if any(r is None for r in repairs) or not _apply(
                    data, [r for r in repairs if r is not None], result):
                return None
    return None
