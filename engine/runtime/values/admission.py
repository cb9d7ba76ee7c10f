"""A request for a turn -> admitted (None), or a ``Refusal``: why, and what the user is told.

Every transport asks the engine (``Engine.admit``) before it starts a turn, and the engine
asks again inside the turn for in-process callers; both measure the same text, the message
as understanding reads it (``clean_text``). A transport maps a refusal's ``kind`` to its own
answer in one place (HTTP: ``transports/http/errors.refusal_response``); a turn refused is a
DONE carrying the refusal, the session untouched.
"""

from __future__ import annotations

import math
import re
import time
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from engine.precompiled import re_compile
from engine.providers.jsonout import validate_output

RefusalKind = Literal["empty_message", "message_too_long", "bad_context", "forbidden",
                      "rate_limited"]
"""``forbidden``: the session is someone else's (found only under the session's lock);
``rate_limited``: the caller started more turns this minute than the operator allows."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a turn did not run, and the text that tells the user."""

    kind: RefusalKind
    text: str
    problems: tuple[str, ...] = ()
    """A bad context's problems, one per line of the service's schema it breaks."""
    limit: int | None = None
    """A message's length limit, when it was over it."""
    retry_after: int | None = None
    """Seconds until a rate-limited caller may start a turn again."""

    @property
    def tags(self) -> list[str]:
        """The DONE's failure tags."""
        return ["CONTEXT_OVERFLOW"] if self.kind == "message_too_long" else []

    @property
    def error(self) -> str | None:
        """``_trace.error`` of the DONE (the empty and over-long messages are answers, not
        errors)."""
        return self.kind if self.kind in ("bad_context", "forbidden", "rate_limited") else None


def admission(message: str, context: Any, schema: Mapping[str, Any] | None, *, limit: int,
              text: Callable[..., str], rate: TurnRate | None = None,
              caller: str | None = None) -> Refusal | None:
    """Whether a turn of ``message`` may run (None), or why not: a ``context`` that
    ``schema`` (the service's context schema; None: it takes none) refuses, an empty
    message, one over ``limit`` characters — measured on the text understanding reads
    (``clean_text``) — or, given a ``caller``, one over its ``rate`` (asked, not counted).
    ``text(key, **values)`` words the refusal."""
    problems = context_problems(schema, context)
    if problems:
        return Refusal("bad_context", text("bad_context", problems="; ".join(problems)),
                       problems=tuple(problems))
    cleaned = clean_text(message) if isinstance(message, str) else ""
    if not cleaned:
        return Refusal("empty_message", text("empty_message"))
    if len(cleaned) > limit:
        return Refusal("message_too_long", text("message_too_long", limit=limit), limit=limit)
    if rate is not None and caller is not None and (waiting := rate.wait(caller)):
        return rate_refusal(waiting, text)
    return None


class TurnRate:
    """How many turns each caller may start a minute: a bucket of ``per_minute`` turns per
    caller, refilled evenly (0: no limit). ``wait`` asks without taking; ``take`` takes one
    turn, once per turn (a turn asked about over HTTP first is counted only when it runs).
    Kept in this process: each instance of a server counts its own."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # caller -> (turns left, when)

    def wait(self, caller: str) -> int:
        """Seconds until ``caller`` may start a turn (0: now)."""
        if self.per_minute <= 0:
            return 0
        left = self._left(caller)
        return 0 if left >= 1 else math.ceil((1 - left) * 60 / self.per_minute)

    def take(self, caller: str) -> int:
        """Take one turn of ``caller``'s; the seconds to wait when there was none (0: taken)."""
        waiting = self.wait(caller)
        if self.per_minute > 0 and not waiting:
            self._buckets[caller] = (self._left(caller) - 1, self.clock())
            if len(self._buckets) > 10_000:  # forget full buckets: they are the default
                self._buckets = {k: v for k, v in self._buckets.items()
                                 if self._left(k) < self.per_minute}
        return waiting

    def _left(self, caller: str) -> float:
        left, when = self._buckets.get(caller, (float(self.per_minute), self.clock()))
        return min(float(self.per_minute), left + (self.clock() - when) * self.per_minute / 60)


def rate_refusal(seconds: int, text: Callable[..., str]) -> Refusal:
    """The refusal of a turn ``seconds`` too early."""
    return Refusal("rate_limited", text("rate_limited", seconds=seconds), retry_after=seconds)


def context_problems(schema: Mapping[str, Any] | None, context: Any) -> list[str]:
    """Why ``context`` (a request's, None when it has none) cannot be used with a service
    whose context schema is ``schema``; [] when fine."""
    if schema is None:
        return [] if context is None else ["this service declares no request context"]
    if context is not None and not isinstance(context, Mapping):
        return ["the context must be a JSON object"]
    return [_located(p) for p in validate_output(dict(context or {}), schema)]


def _located(problem: str) -> str:
    """``"b/c: 'x' is not ..."`` -> ``"context.b.c: 'x' is not ..."``."""
    where, _, what = problem.partition(": ")
    return "context: " + what if where == "(root)" else \
        f"context.{where.replace('/', '.')}: {what}"


def clean_text(message: str) -> str:
    """The message as understanding should read it: NFC, no invisible format characters
    (zero-width joiners and spaces, BOMs, bidi controls: "엄\u200d마" is "엄마"), no lone
    surrogates, no control characters but newlines and tabs, outer space stripped."""
    if message.isascii() and message.isprintable():
        return message.strip()
    text = _INVISIBLE_BMP.sub("", message)
    if _ASTRAL.search(text):  # rare (emoji, old scripts): check those one by one
        text = "".join(ch for ch in text if unicodedata.category(ch) not in _DROPPED)
    text = unicodedata.normalize("NFC", text).strip()
    return _HELD_KEY.sub(_key_let_go, text) if _JAMO.search(text) else text


_JAMO = re_compile(r"[ㄱ-ㅣ]")
_HELD_KEY = re_compile(r"(?<=[가-힣])(?:([ㄱ-ㅎ])|([ㅏ-ㅣ])\2*)(?=\s|$|[.,!?~])")
"""A key held a moment too long after a word ("확인ㄴ", "보내줘ㅓ", "취소ㅗ", "아니ㅣ"): the
stray letter is the last letter of the syllable before it; never two consonants, which are
a word of their own ("확인ㄴㄴ" ends in a no)."""
_FINALS = " ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ"
_VOWELS = "ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅏㅐㅣㅛㅜㅓㅔㅣㅠㅡㅣㅣ"  # of ㅘ ㅙ ㅚ, ㅝ ㅞ ㅟ, ㅢ: the last part


def _key_let_go(match: re.Match[str]) -> str:
    """The stray letters off when they repeat the syllable's last letter; else kept."""
    code = ord(match.string[match.start() - 1]) - 0xAC00
    last = _FINALS[code % 28] if code % 28 else _VOWELS[code // 28 % 21]
    return "" if (match[1] or match[2]) == last else match[0]


_DROPPED = frozenset({"Cf", "Cs", "Cc"})


def hides_in_words(message: str) -> bool:
    """Whether ``message`` hides an invisible character inside a word ("ye\u200bs",
    "확\u200d인") or marks a word with what no one types on it — a line struck through or
    over it ("y\u0336e\u0336s\u0336", "네\u0336"), accents on Hangul: read through for
    values, but never the user's own clear yes.

    >>> hides_in_words("ye\u200bs"), hides_in_words("yes\u200b"), hides_in_words("네 👍")
    (True, False, False)
    >>> hides_in_words("네\u0336"), hides_in_words("y\u0336es"), hides_in_words("café")
    (True, True, False)
    """
    return not message.isascii() and (_HIDDEN_IN_WORD.search(message) is not None or
                                       _MARKED.search(message) is not None)


def invisible_bmp_ranges() -> str:
    """Every dropped character below U+10000 as one character class's ranges, from the
    Unicode database of this Python (~10 ms: tests/test_money_safety.py checks _INVISIBLE_BMP
    against it, so a Python with a newer database cannot drift unnoticed)."""
    ranges: list[str] = []
    start = None
    for code in range(0x10001):
        dropped = code < 0x10000 and chr(code) not in "\n\t" and \
            unicodedata.category(chr(code)) in _DROPPED
        if dropped and start is None:
            start = code
        elif not dropped and start is not None:
            ranges.append(f"\\u{start:04x}-\\u{code - 1:04x}")
            start = None
    return "".join(ranges)


_INVISIBLE_BMP = re_compile(  # invisible_bmp_ranges(), written out: not built at import
    "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u00ad-\\u00ad\\u0600-\\u0605"
    "\\u061c-\\u061c\\u06dd-\\u06dd\\u070f-\\u070f\\u0890-\\u0891\\u08e2-\\u08e2"
    "\\u180e-\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f"
    "\\ud800-\\udfff\\ufeff-\\ufeff\\ufff9-\\ufffb]")
_ASTRAL = re_compile("[\U00010000-\U0010ffff]")
_HIDDEN_IN_WORD = re_compile(rf"(?<=\w){_INVISIBLE_BMP.pattern}+(?=\w)")
_MARKED = re_compile(r"[\u0334-\u0338\u20d2\u20d3\u20e5\u20e6\u20ea\u20eb]"
                     r"|(?<=[가-힣ㄱ-ㅣ])[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff]")
"""A line struck through or laid over a letter, or any combining mark on Hangul."""


def caller_of(session_id: str, owner: str | None) -> str:
    """Whose turns a rate counts: the caller's principal, else (no auth) its session."""
    return owner if owner is not None else "@" + session_id


__all__ = ["Refusal", "RefusalKind", "TurnRate", "admission", "caller_of", "clean_text",
           "context_problems", "hides_in_words", "invisible_bmp_ranges", "rate_refusal"]
