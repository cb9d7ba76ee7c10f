"""An agent with tools states only facts it has a source for in this turn.

An order number, a tracking number, an amount, a year: a model that was offered tools but
writes such a fact without a tool having returned it this turn (or the user, or the turn's
state having said it) is repeating an earlier turn's answer or making it up (what a tool
was asked about counts: the order number it answered for). Facts are the
runs of at least ``MIN_DIGITS`` digits in the reply (``ORD-1002``, ``159,000원``,
``2023년``), compared by their digits alone (``1,234-5`` is ``12345``) with every digit run
of the sources; a reply with one that has no source is not shown (the step's fallback
answers, and ``_trace`` says ``UNGROUNDED_VALUE``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from engine.precompiled import re_compile
from engine.providers.base import ToolSpec
from engine.providers.tools import Tool

MIN_DIGITS = 3
FACTS_RULE = ("State only facts (order and tracking numbers, amounts, dates, statuses) that a "
              "tool returned in this turn or the user said; when no tool answered, say that "
              "you could not check, and never repeat an earlier answer as if it were new.")

# digits with the separators facts are written with: 1,234 · 2023-09-15 · 010-1234-5678
_RUN = re_compile(r"\d(?:[\d,.:/-]*\d)?")

__all__ = ["FACTS_RULE", "MIN_DIGITS", "Heard", "unfounded"]


@dataclass(slots=True)
class Heard:
    """What this turn's tools answered."""

    results: list[str] = field(default_factory=list)

    def recording(self, tools: Mapping[str, Tool]) -> dict[str, Tool]:
        """``tools`` whose every answer is kept here."""
        return {name: _Kept(tool.spec, tool, self.results) for name, tool in tools.items()}


@dataclass(slots=True)
class _Kept:
    """A tool whose answers are appended to ``results``."""

    spec: ToolSpec
    tool: Tool
    results: list[str]

    async def __call__(self, arguments: Mapping[str, object]) -> str:
        result = await self.tool(arguments)
        # what was asked about counts as told: "A100" is the order the tool answered for
        self.results += [json.dumps(dict(arguments), ensure_ascii=False, default=str), result]
        return result


def unfounded(reply: str, sources: Iterable[str]) -> list[str]:
    """The facts of ``reply`` that no source states (digits compared, separators ignored)."""
    known = "\n".join(_digits(run) for source in sources for run in _RUN.findall(source))
    return [run for run in _RUN.findall(reply)
            if len(digits := _digits(run)) >= MIN_DIGITS and digits not in known]


def _digits(run: str) -> str:
    return re.sub(r"\D", "", run)
