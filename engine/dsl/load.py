"""YAML text -> (plain data, SourceMap); duplicate keys and YAML syntax errors are located.

PyYAML's composer gives every node a start mark; we build Python values from the node
tree ourselves so that each value's line:column lands in the ``SourceMap``. Mapping keys
are always taken as written (``on:`` stays the string "on"); unquoted on/off/yes/no values
are remembered so schema errors can tell the author to quote them.
"""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Any

import yaml

from engine.errors import Finding, FlowDefinitionError, SourceLocation
from engine.precompiled import re_compile
from engine.source import Path, SourceMap

_BOOL_TAG = "tag:yaml.org,2002:bool"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_YAML11_ONLY_BOOLS = {"yes", "no", "on", "off"}
_constructor = yaml.SafeLoader("")  # only its scalar constructors are used
# libyaml composes the same nodes and marks about 10x faster; PyYAML's own is the fallback
_COMPOSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


_OPEN = (yaml.FlowSequenceStartToken, yaml.FlowMappingStartToken,
         yaml.BlockSequenceStartToken, yaml.BlockMappingStartToken)
_CLOSE = (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken, yaml.BlockEndToken)


def _too_deep(text: str, file: str, source: SourceMap) -> Finding | None:
    """The first collection opened deeper than MAX_DEPTH, found by the (iterative) scanner,
    so a hostile file never reaches the recursive composer; None when the file is shallow
    or does not scan (the composer then reports the syntax error)."""
    if not may_be_too_deep(text):
        return None  # cannot be that deep: skip the (pure-Python) scan
    depth = 0
    try:
        # PyYAML's own scanner yields tokens one by one; libyaml's reads ahead and gives up
        # at its own limit before the first token
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, _OPEN):
                depth += 1
                if depth > MAX_DEPTH:
                    line = token.start_mark.line + 1
                    return Finding(SourceLocation(file, line, token.start_mark.column + 1),
                                   f"the YAML is nested more than {MAX_DEPTH} levels deep",
                                   "FL006", source_line=source.line(line))
            elif isinstance(token, _CLOSE):
                depth -= 1
    except (yaml.YAMLError, RecursionError):
        return None
    return None


def may_be_too_deep(text: str) -> bool:
    """Whether ``text`` could nest more than MAX_DEPTH levels (a cheap, generous bound)."""
    return _depth_bound(text) > MAX_DEPTH


def _depth_bound(text: str) -> int:
    """A cheap upper bound of a file's nesting: open brackets at once, plus the deepest
    indentation, plus the most `- ` on one line (block collections need one of those per
    level). Brackets inside strings only make it larger, or leave it to the scanner."""
    running = deepest = 0
    for char in text:
        if char in "[{":
            running += 1
            deepest = max(deepest, running)
        elif char in "]}":
            running = max(0, running - 1)
    lines = text.splitlines() or [""]
    indent = max(len(line) - len(line.lstrip()) for line in lines)
    dashes = max(line.count("- ") for line in lines)
    return deepest + indent + dashes + 1


def load_file(path: str | FilePath) -> tuple[Any, SourceMap]:
    """Read and load a flow file; an unreadable file is a located definition error."""
    name = str(path)
    try:
        text = FilePath(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
        raise FlowDefinitionError(
            [Finding(SourceLocation(name, 1, 1), f"cannot read file: {reason}", "FL001")]
        ) from None
    return load_text(text, name)


def load_text(text: str, file: str = "<string>") -> tuple[Any, SourceMap]:
    """Parse YAML ``text``; raise FlowDefinitionError for syntax errors and duplicate keys."""
    source = SourceMap(file, text.splitlines())
    deep = _too_deep(text, file, source)
    if deep is not None:  # before composing: the composer recurses (PyYAML >= 6.0.4 fails)
        raise FlowDefinitionError([deep])
    try:
        node = yaml.compose(text, Loader=_COMPOSER)
    except yaml.YAMLError as err:
        line, col, problem = _where(_worded(err, text), text)
        raise FlowDefinitionError(
            [Finding(SourceLocation(file, line, col), f"YAML syntax error: {problem}", "FL002",
                     hint=_alias_hint(source.line(line)), source_line=source.line(line))]
        ) from None
    except RecursionError:
        raise FlowDefinitionError([Finding(SourceLocation(file, 1, 1),
                                           "the YAML is nested too deeply to read", "FL002")]
                                  ) from None
    if node is None:
        raise FlowDefinitionError(
            [Finding(SourceLocation(file, 1, 1), "the file is empty; expected a service mapping",
                     "FL003", hint="start with `service: my_service`",
                     source_line=source.line(1))]
        )
    builder = NodeBuilder(source)
    data = builder.build(node, ())
    if builder.findings:
        raise FlowDefinitionError(builder.findings)
    return data, source


def _worded(fast: yaml.YAMLError, text: str) -> yaml.YAMLError:
    """libyaml's error ``fast``, or PyYAML's own reading of the same text when it stops at
    the same place or later: its messages say more. PyYAML stops earlier at some text
    libyaml reads (a plain "있어?" in a flow sequence): then that would point the author at
    a line that is fine, and libyaml's error stands."""
    try:
        yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        return err if _where(err, text)[:2] >= _where(fast, text)[:2] else fast
    return fast


def _where(err: yaml.YAMLError, text: str) -> tuple[int, int, str]:
    """Line, column and wording of any YAML error (marked, or a reader's bad character)."""
    if isinstance(err, yaml.MarkedYAMLError):
        mark = err.problem_mark or err.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        return line, col, err.problem or err.context or "invalid YAML"
    if isinstance(err, yaml.reader.ReaderError):
        before = text[: err.position]
        line = before.count("\n") + 1
        return line, err.position - (before.rfind("\n") + 1) + 1, \
            f"character #x{err.character:04x} is not allowed in YAML ({err.reason})"
    return 1, 1, str(err) or "invalid YAML"


MAX_DEPTH = 100
MAX_VALUES = 100_000
"""A flow file is small; more values than this means aliases expanding aliases."""


class NodeBuilder:
    """Composed YAML nodes -> Python values, recording every node's position in the source
    map; reader problems (aliases that loop or explode, deep nesting) become findings.
    The compiler's front end builds with it too when it repairs a file to keep checking."""

    def __init__(self, source: SourceMap) -> None:
        self.source = source
        self.findings: list[Finding] = []
        self._open: set[int] = set()  # collections being built: an alias back to one loops
        self._count = 0
        self._stopped = False

    def build(self, node: yaml.Node, path: Path) -> Any:
        if self._stopped:
            return None
        self._count += 1
        if len(path) > MAX_DEPTH:
            self._stopped = True
            self.findings.append(self._finding(
                node, f"the YAML is nested more than {MAX_DEPTH} levels deep", "FL006"))
            return None
        if self._count > MAX_VALUES:
            self._stopped = True
            self.findings.append(self._finding(
                node, f"the file expands to more than {MAX_VALUES:,} values", "FL006",
                "aliases (*name) that repeat other aliases multiply; write the values out"))
            return None
        self.source.values.setdefault(path, _pos(node))
        if isinstance(node, yaml.MappingNode | yaml.SequenceNode):
            if id(node) in self._open:
                self.findings.append(self._finding(node, "an alias refers to a collection "
                                                   "that contains it", "FL006",
                                                   "remove the recursive *alias"))
                return None
            self._open.add(id(node))
            try:
                if isinstance(node, yaml.MappingNode):
                    return self._mapping(node, path)
                return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
            finally:
                self._open.discard(id(node))
        return self._scalar(node, path)

    def _scalar(self, node: yaml.Node, path: Path) -> Any:
        if node.tag == _TIMESTAMP_TAG:
            return node.value  # dates stay text: the DSL parses them where it expects dates
        if node.tag == _BOOL_TAG and node.value.lower() in _YAML11_ONLY_BOOLS:
            self.source.yaml11_bools[path] = node.value
        return _constructor.construct_object(node, deep=True)

    def _mapping(self, node: yaml.MappingNode, path: Path) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in self._pairs(node):
            if not isinstance(key_node, yaml.ScalarNode):
                self.findings.append(self._finding(key_node, "a key must be a plain name", "FL004"))
                continue
            key = key_node.value
            if key in result:
                first = self.source.keys[(*path, key)]
                self.findings.append(self._finding(
                    key_node, f"duplicate key `{key}` (first defined at line {first[0]})", "FL005",
                    hint="YAML keeps only the last value; remove or rename one"))
                continue
            self.source.keys[(*path, key)] = _pos(key_node)
            result[key] = self.build(value_node, (*path, key))
        return result

    def _pairs(self, node: yaml.MappingNode) -> list[tuple[yaml.Node, yaml.Node]]:
        """Key/value pairs with YAML merge keys (``<<: *base``) expanded, explicit keys winning."""
        merged: list[tuple[yaml.Node, yaml.Node]] = []
        own: list[tuple[yaml.Node, yaml.Node]] = []
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE_TAG:
                own.append((key_node, value_node))
                continue
            is_list = isinstance(value_node, yaml.SequenceNode)
            sources = value_node.value if is_list else [value_node]
            for source in sources:
                if isinstance(source, yaml.MappingNode):
                    merged.extend(self._pairs(source))
        own_keys = {k.value for k, _ in own if isinstance(k, yaml.ScalarNode)}
        return [(k, v) for k, v in merged if k.value not in own_keys] + own

    def _finding(self, node: yaml.Node, message: str, code: str,
                 hint: str | None = None) -> Finding:
        line, col = _pos(node)
        return Finding(SourceLocation(self.source.file, line, col), message, code, "error", hint,
                       self.source.line(line))


def _pos(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


_BARE_STAR = re_compile(r"[:\[{,-]\s*\*\s*(?:[,\]}#]|$)")


def _alias_hint(line: str | None) -> str | None:
    """A bare ``*`` (``source: *``) is a YAML alias with no name: say to quote it."""
    if line is None or not _BARE_STAR.search(line):
        return None
    return "quote '*': YAML reads a bare * as an alias; write `source: '*'`"

