"""Model text -> JSON object, schema findings, or the streamed characters of one string field.

- ``extract_json`` finds the object in what a model wrote: a fenced ```json block or bare
  JSON, with prose around it; the first balanced top-level object that parses wins. A reply
  is untrusted input, so it is bounded: only its first ``MAX_REPLY_CHARS`` characters are
  read, an object nested deeper than ``MAX_DEPTH`` is refused before ``json`` recurses into
  it, and NaN, Infinity or a number too large for a float is a parse error. Every refusal
  is a ``ValueError`` (the caller's "malformed reply" path), never another exception.
- ``validate_output`` checks an object against a JSON Schema (Draft 2020-12) and returns
  every problem as ``"path: message"`` strings (empty list: valid).
- ``repair_note`` tells a model why its reply was refused, for the one repair retry.
- ``JsonFieldStreamer`` decodes one top-level string field (``message`` by default) while
  the JSON is still streaming in, so an agent answering ``{"action": ..., "message": ...}``
  can show its message token by token.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable, Mapping

from engine.precompiled import re_compile

_FENCE = re_compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_PLAIN_RUN = re_compile(r'[^"\\]+')

MAX_REPLY_CHARS = 64 * 1024
"""Characters of a model reply ``extract_json`` reads; the rest is ignored."""
MAX_DEPTH = 32
"""Deepest nesting of objects and arrays accepted (the top-level object is depth 1)."""
_MAX_INT_DIGITS = len(str(int(sys.float_info.max)))  # 309: more cannot be a finite float


def extract_json(text: str) -> dict[str, object]:
    """The first JSON object in ``text`` (fenced blocks first); ValueError says why not.

    Only the first ``MAX_REPLY_CHARS`` characters are read; an object nested deeper than
    ``MAX_DEPTH`` levels, or holding NaN, Infinity or a number beyond the float range, does
    not count as one.

    Example::

        extract_json('Sure! ```json\\n{"action": "ASK"}\\n``` Done.')  # {'action': 'ASK'}
    """
    if not isinstance(text, str):
        raise ValueError(f"expected the reply as text, got {type(text).__name__}")
    cut = len(text) > MAX_REPLY_CHARS
    text = text[:MAX_REPLY_CHARS]
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    reason = "no JSON object found (expected '{...}')"
    for candidate in candidates:
        found, why = _first_object(candidate)
        if found is not None:
            return found
        if why and reason.startswith("no JSON"):
            reason = why
    if cut:
        reason += f" (only the first {MAX_REPLY_CHARS} characters of the reply are read)"
    raise ValueError(reason)


def _first_object(text: str) -> tuple[dict[str, object] | None, str | None]:
    reason: str | None = None
    start = text.find("{")
    while start != -1:
        end, depth = _balanced_end(text, start)
        if end is None:
            return None, reason or "unbalanced braces: the JSON object is not closed (cut off?)"
        if depth > MAX_DEPTH:
            reason = reason or f"JSON nested {depth} levels deep (at most {MAX_DEPTH})"
        else:
            try:
                value = _loads(text[start : end + 1])
            except json.JSONDecodeError as exc:
                reason = reason or f"invalid JSON: {exc.msg} at char {exc.pos}"
            except ValueError as exc:  # NaN, Infinity, a number out of range
                reason = reason or f"invalid JSON: {exc}"
            else:
                if isinstance(value, dict):
                    return value, None
        start = text.find("{", end + 1)
    return None, reason


def _loads(text: str) -> object:
    """``json.loads`` that refuses NaN, Infinity and numbers beyond the float range."""
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float,
                      parse_int=_float_sized_int)


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise ValueError(f"number {_clip(literal)} is out of range")
    return value


def _float_sized_int(literal: str) -> int:
    if len(literal.lstrip("-")) > _MAX_INT_DIGITS:
        raise ValueError(f"number {_clip(literal)} is out of range")
    value = int(literal)
    try:
        float(value)
    except OverflowError:
        raise ValueError(f"number {_clip(literal)} is out of range") from None
    return value


def _clip(literal: str) -> str:
    return literal if len(literal) <= 24 else f"{literal[:20]}... ({len(literal)} characters)"


def _balanced_end(text: str, start: int) -> tuple[int | None, int]:
    """Index of the ``}`` closing the object opened at ``start`` (strings are skipped), and
    the deepest nesting of ``{``/``[`` on the way; counted in a loop, never recursively."""
    depth = deepest = nesting = 0
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
            nesting += 1
            deepest = max(deepest, nesting)
        elif char == "[":
            nesting += 1
            deepest = max(deepest, nesting)
        elif char == "]":
            nesting -= 1
        elif char == "}":
            depth -= 1
            nesting -= 1
            if depth == 0:
                return index, deepest
    return None, deepest


def nesting_depth(value: object, *, limit: int | None = None) -> int:
    """How deeply lists, tuples and dicts nest in ``value`` (a scalar is 0); iterative, so
    a value nested past Python's recursion limit is measured instead of crashing. With
    ``limit``, stops at the first level past it (returns ``limit + 1``), so even a value that
    contains itself is answered."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Iterable[object] = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        if limit is not None and deepest > limit:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


def validate_output(obj: object, schema: Mapping[str, object]) -> list[str]:
    """Every way ``obj`` breaks ``schema`` (Draft 2020-12), as ``"path: message"``, sorted.

    Example::

        validate_output({"n": -1}, {"properties": {"n": {"minimum": 0}}})
        # ['n: -1 is less than the minimum of 0']

    An object nested deeper than ``MAX_DEPTH`` is one problem, not checked further.
    """
    if nesting_depth(obj, limit=MAX_DEPTH) > MAX_DEPTH:
        return [f"(root): nested more than {MAX_DEPTH} levels deep"]
    from jsonschema import Draft202012Validator  # only when a reply is checked (~70 ms)

    validator = Draft202012Validator(dict(schema))
    errors = sorted(validator.iter_errors(obj), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{_path(error.absolute_path)}: {error.message}" for error in errors]


def _path(parts: Iterable[object]) -> str:
    text = "/".join(str(p) for p in parts)
    return text or "(root)"


def repair_note(problem: str, schema: Mapping[str, object] | None = None) -> str:
    """What a model is told, once, after a JSON reply that could not be used: why, and
    the shape to answer in (a second chance that says what was wrong, instead of guessing
    at the JSON object in a reply).

    >>> repair_note("no JSON object found (expected '{...}')").splitlines()[0]
    "Your previous reply could not be used: no JSON object found (expected '{...}')."
    """
    lines = [f"Your previous reply could not be used: {problem.rstrip('.')}.",
             "Answer again with only one JSON object: no markdown, no text around it."]
    if schema:
        lines.append("It must satisfy this JSON Schema: "
                     + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))[:4000])
    return "\n".join(lines)


class JsonFieldStreamer:
    """Feed JSON text chunk by chunk; get back the new decoded characters of one string field.

    Only a top-level field counts (a nested ``message`` is ignored). Text before the first
    ``{`` (a code fence, prose) is skipped. Escapes, including ``\\uXXXX`` surrogate pairs,
    may be split across chunks. Returns "" until the field starts and after it closes.

    Example::

        streamer = JsonFieldStreamer("message")
        streamer.feed('{"action": "ASK", "mess')   # ''
        streamer.feed('age": "Hel')                 # 'Hel'
        streamer.feed('lo\\\\n"}')                   # 'lo\\n'
    """

    def __init__(self, field: str = "message") -> None:
        self.field = field
        self.done = False  # the field's string closed, or the top-level object ended
        self._text: list[str] = []
        self._depth = 0
        self._in_string = False
        self._role = "other"  # of the current string: key | value | other
        self._expect_key = False
        self._last_key: str | None = None
        self._key: list[str] = []
        self._escape: str | None = None  # "" after a backslash, "uXX.." inside \\uXXXX
        self._high: int | None = None  # pending high surrogate

    @property
    def opened(self) -> bool:
        """The field's string value has started (everything before it has been read)."""
        return self._role == "value"

    @property
    def text(self) -> str:
        """All of the field decoded so far."""
        return "".join(self._text)

    def feed(self, chunk: str) -> str:
        out: list[str] = []
        index = 0
        while index < len(chunk) and not self.done:
            if self._plain_run_possible():
                run = _PLAIN_RUN.match(chunk, index)
                if run:  # fast path: copy plain characters of the field at once
                    out.append(run.group())
                    index = run.end()
                    continue
            self._step(chunk[index], out)
            index += 1
        new = "".join(out)
        self._text.append(new)
        return new

    def _plain_run_possible(self) -> bool:
        return (self._role == "value" and self._in_string and self._escape is None
                and self._high is None)

    def _step(self, char: str, out: list[str]) -> None:
        if self._in_string:
            self._string_char(char, out)
        elif self._depth == 0:
            if char == "{":  # anything before the object (fence, prose) is skipped
                self._depth = 1
                self._expect_key = True
        elif char == '"':
            self._open_string()
        elif char in "{[":
            self._depth += 1
        elif char in "}]":
            self._depth -= 1
            self.done = self._depth == 0
        elif self._depth == 1 and char in ":,":
            self._expect_key = char == ","

    def _open_string(self) -> None:
        if self._depth != 1:
            self._role = "other"
        elif self._expect_key:
            self._role = "key"
            self._key = []
        else:
            self._role = "value" if self._last_key == self.field else "other"
        self._in_string = True

    def _string_char(self, char: str, out: list[str]) -> None:
        if self._escape is not None:
            self._escaped_char(char, out)
        elif char == "\\":
            self._escape = ""
        elif char == '"':
            self._close_string()
        else:
            self._emit(char, out)

    def _close_string(self) -> None:
        self._in_string = False
        if self._role == "key":
            self._last_key = "".join(self._key)
        elif self._role == "value":
            self.done = True

    def _escaped_char(self, char: str, out: list[str]) -> None:
        assert self._escape is not None
        if self._escape == "" and char != "u":
            self._escape = None
            self._emit(_ESCAPES.get(char, char), out)
            return
        self._escape += char
        if len(self._escape) == 5:  # "u" + 4 hex digits
            code = int(self._escape[1:], 16) if _is_hex(self._escape[1:]) else 0xFFFD
            self._escape = None
            self._emit_code(code, out)

    def _emit_code(self, code: int, out: list[str]) -> None:
        if 0xD800 <= code < 0xDC00:
            if self._high is not None:
                self._emit("\ufffd", out)
            self._high = code
            return
        if 0xDC00 <= code < 0xE000 and self._high is not None:
            code = 0x10000 + ((self._high - 0xD800) << 10) + (code - 0xDC00)
            self._high = None
        self._emit(chr(code) if not 0xD800 <= code < 0xE000 else "\ufffd", out)

    def _emit(self, text: str, out: list[str]) -> None:
        if self._high is not None:  # a high surrogate not followed by a low one
            self._high = None
            self._emit("\ufffd", out)
        if self._role == "key":
            self._key.append(text)
        elif self._role == "value":
            out.append(text)


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)
