"""Chat text -> typed values and decisions, offline and deterministic (no model, no I/O).

Each extractor returns ``Match`` spans sorted by start and non-overlapping; the spans
refer to the text as given, so callers should NFC-normalise a message once before
extracting (decomposed Hangul is not read).

>>> from datetime import date
>>> [m.value for m in find_money("엄마한테 만원, 용걸이한테 5만원 보내줘")]
[10000, 50000]
>>> yes_no("확인해줘", default_words("ko"))
'confirm'
"""

from .dates import find_dates
from .enums import EnumMatcher, compile_enum, enum_conflicts, find_enum
from .intents import IntentRule, IntentScore, classify
from .money import find_money
from .numbers import find_numbers
from .phrases import FILLERS, INTERROGATIVES, asks, is_question, is_statement, not_knowing
from .reasons import denied_with_reason, only_reason, stopped_doing
from .segments import split_segments
from .spans import Match, MatchValue, find_pattern, non_overlapping
from .times import find_times, parse_time
from .words import (
    Answer,
    YesNoWords,
    cancel_first,
    decision_text,
    default_words,
    normalise,
    yes_no,
)

__all__ = [
    "Answer",
    "INTERROGATIVES",
    "EnumMatcher",
    "FILLERS",
    "IntentRule",
    "IntentScore",
    "Match",
    "MatchValue",
    "YesNoWords",
    "asks",
    "cancel_first",
    "classify",
    "compile_enum",
    "decision_text",
    "default_words",
    "enum_conflicts",
    "find_dates",
    "find_enum",
    "find_money",
    "find_numbers",
    "find_pattern",
    "find_times",
    "is_question",
    "is_statement",
    "not_knowing",
    "non_overlapping",
    "parse_time",
    "normalise",
    "only_reason",
    "denied_with_reason",
    "split_segments",
    "stopped_doing",
    "yes_no",
]
