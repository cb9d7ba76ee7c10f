"""raw_history + summary_text -> the same, folded when the history grows past its threshold.

Seed 000 §8: once ``summarize_threshold`` turns are kept raw, the older ones are folded into
``summary_text`` and only ``keep_recent_turns`` stay raw. A summary model writes the summary
when one is live; otherwise (offline, or the model failed) it is built deterministically
from the completed tasks and the folded turns, so it never invents anything. The summary
survives flow resets; ``MEMORY_ENABLE_SUMMARY=false`` writes no summary and keeps the last
``summarize_threshold`` turns raw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.config import Settings
from engine.dsl.spec import MemorySpec

SUMMARY_PROMPT = (
    "Summarise the earlier conversation below for an assistant that will continue it. "
    "Keep facts, amounts, names, decisions and completed tasks; at most 6 short lines; "
    "write in the conversation's language; never add anything that was not said."
)


@dataclass(frozen=True, slots=True)
class MemoryPolicy:
    enabled: bool
    threshold: int
    keep_recent: int
    summary_model: str | None

    @classmethod
    def of(cls, spec: MemorySpec, settings: Settings) -> MemoryPolicy:
        """The environment wins over the flow file's ``memory:`` block."""
        env = settings.env
        return cls(
            enabled=settings.memory_enable_summary if "MEMORY_ENABLE_SUMMARY" in env
            else spec.enabled,
            threshold=settings.memory_summarize_threshold if "MEMORY_SUMMARIZE_THRESHOLD" in env
            else spec.summarize_threshold,
            keep_recent=settings.memory_keep_recent_turns if "MEMORY_KEEP_RECENT_TURNS" in env
            else spec.keep_recent_turns,
            summary_model=settings.memory_summary_model or spec.summary_model,
        )


def turns_of(history: Sequence[Mapping[str, str]]) -> int:
    return sum(1 for h in history if h.get("role") == "user")


def split_for_folding(history: list[dict[str, str]],
                      policy: MemoryPolicy) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(to fold, to keep) once the raw turns reach the threshold; ([], history) before."""
    if turns_of(history) < policy.threshold:
        return [], history
    keep_messages = policy.keep_recent * 2
    cut = max(0, len(history) - keep_messages)
    return history[:cut], history[cut:]


def offline_summary(previous: str, folded: Sequence[Mapping[str, str]],
                    done: Sequence[Mapping[str, Any]]) -> str:
    """A deterministic summary: completed tasks and the user's earlier requests, verbatim."""
    lines = [line for line in previous.splitlines()
             if line and not line.startswith(("completed:", "earlier requests:"))]
    if done:
        tasks = "; ".join(_task(t) for t in done[-10:])
        lines.append(f"completed: {tasks}")
    asked = [h["content"] for h in folded if h.get("role") == "user"]
    if asked:
        earlier = [line for line in previous.splitlines() if line.startswith("earlier requests:")]
        before = earlier[0].removeprefix("earlier requests: ").split(" | ") if earlier else []
        lines.append("earlier requests: " + " | ".join([*before, *asked][-8:]))
    return "\n".join(lines)


def _task(task: Mapping[str, Any]) -> str:
    values = ", ".join(f"{k}={v}" for k, v in (task.get("slots") or {}).items() if v is not None)
    return f"{task.get('flow')} {task.get('outcome')} ({values})"


def dialog_text(previous: str, folded: Sequence[Mapping[str, str]]) -> str:
    """What the summary model reads: the old summary and the folded turns."""
    lines = [f"Earlier summary:\n{previous}"] if previous else []
    lines += [f"{h.get('role')}: {h.get('content')}" for h in folded]
    return "\n".join(lines)
