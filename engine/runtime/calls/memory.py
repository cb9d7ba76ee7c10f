"""raw_history + summary_text -> the same, folded when the history grows past its threshold.

Once ``summarize_threshold`` turns are kept raw, the older ones are folded into
``summary_text`` and only ``keep_recent_turns`` stay raw. A summary model writes the summary
when one is live, in the background after the turn (``folding.py``); otherwise (offline, or
the model failed) it is built deterministically from the completed tasks and the folded
turns, so it never invents anything. The summary
survives flow resets; ``FLOWCTL_MEMORY_ENABLE_SUMMARY=false`` writes no summary and keeps the last
``summarize_threshold`` turns raw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.compiler.compiled import CompiledService
from engine.config import Settings
from engine.errors import ProviderError
from engine.providers.base import ChatMessage, ChatRequest
from engine.runtime.calls.agent import ModelCall
from engine.runtime.values.session import SessionState

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
    system: str = SUMMARY_PROMPT
    max_raw: int = 20
    """Raw turns kept at most (never fewer than ``threshold``): older ones are summarised
    offline at once."""
    """The summary model's instructions: ``memory.summary_prompt`` rendered, or the built-in."""

    @classmethod
    def of(cls, settings: Settings, service: CompiledService | None = None) -> MemoryPolicy:
        """The policy the resolved settings give (``config.resolve_settings``), with the
        service's ``memory.summary_prompt`` rendered once."""
        prompt = service.memory.summary_prompt if service is not None else None
        system = SUMMARY_PROMPT
        if service is not None and prompt and prompt in service.prompts:
            system = service.prompts[prompt].render({
                "service": service.name, "description": service.description,
                "locale": service.locale}).strip() or SUMMARY_PROMPT
        return cls(enabled=settings.memory_enable_summary,
                   threshold=settings.memory_summarize_threshold,
                   keep_recent=settings.memory_keep_recent_turns,
                   summary_model=settings.memory_summary_model, system=system,
                   max_raw=max(settings.memory_max_raw_turns,
                               settings.memory_summarize_threshold))


def remember(state: SessionState, message: str, reply: str, policy: MemoryPolicy) -> bool:
    """Append the turn to raw_history; True when older turns are due to be folded."""
    state.raw_history.append({"role": "user", "content": message})
    state.raw_history.append({"role": "assistant", "content": reply})
    state.turns += 1
    if not policy.enabled:  # no summary: keep the last `summarize_threshold` turns raw
        del state.raw_history[:-max(policy.threshold, policy.keep_recent, 1) * 2]
        return False
    over = len(state.raw_history) - policy.max_raw * 2
    if over > 0:  # a summary not written yet, or its model failing: never more than max_raw
        fold(state, state.raw_history[:over], None)
    return len(state.raw_history) >= policy.threshold * 2


def fold(state: SessionState, folded: Sequence[Mapping[str, str]], summary: str | None) -> None:
    """Take ``folded`` (the oldest raw turns) out of the raw history into the summary: the
    model's ``summary`` text, or the offline one when None; ``summary_struct`` either way."""
    state.summary_text = summary or offline_summary(state.summary_text, folded, state.done)
    state.summary_struct = summary_struct(state.summary_struct, folded, state.done)
    del state.raw_history[:len(folded)]


def summary_struct(previous: Mapping[str, Any], folded: Sequence[Mapping[str, str]],
                   done: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The summary as data: the last completed tasks (flow, outcome, slots as shown) and the
    user's earlier requests, verbatim, the latest ``MAX_REQUESTS``.

    >>> summary_struct({}, [{"role": "user", "content": "hi"}, {"role": "assistant",
    ...                 "content": "hello"}], [{"flow": "pay", "outcome": "DONE", "slots": {}}])
    {'completed': [{'flow': 'pay', 'outcome': 'DONE', 'slots': {}}], 'requests': ['hi']}
    """
    asked = [h["content"] for h in folded if h.get("role") == "user"]
    return {"completed": [{"flow": t.get("flow"), "outcome": t.get("outcome"),
                           "slots": t.get("slots", {})} for t in done[-MAX_COMPLETED:]],
            "requests": [*previous.get("requests", []), *asked][-MAX_REQUESTS:]}


MAX_COMPLETED, MAX_REQUESTS = 10, 8
"""What ``summary_struct`` keeps: the last completed tasks, the last earlier requests."""


def latest_turns(history: list[dict[str, str]], turns: int | None) -> list[dict[str, str]]:
    """The last ``turns`` turns of ``history`` (all of it for None).

    >>> latest_turns([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
    ...               {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}], 1)
    [{'role': 'user', 'content': 'c'}, {'role': 'assistant', 'content': 'd'}]
    """
    if turns is None:
        return history
    return history[max(0, len(history) - turns * 2):] if turns else []


async def summarise(call: ModelCall, system: str, previous: str,
                    folded: list[dict[str, str]]) -> str | None:
    """The summary model's summary of ``previous`` and the ``folded`` turns; None on failure."""
    request = ChatRequest(system=system, messages=(ChatMessage(
        role="user", content=dialog_text(previous, folded)),))
    try:
        text = await call.text(request)
    except ProviderError as err:
        call.failed(err)
        return None
    call.live.breaker.success()
    return text.strip() or None


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
