"""Stored session JSON <-> SessionState, the mutable working copy a turn changes.

A turn works on a copy made from the stored JSON; the store only sees the new JSON if the
whole turn succeeded, so a failure leaves the session exactly as it was.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

MAX_DONE_KEPT = 50

QueuedTask = dict[str, Any]
"""A task waiting in the batch queue: the slot values the user gave for it."""


class JournalEntry(TypedDict):
    """An irreversible action of the current task (the action journal).

    Written ``pending`` and committed before the call; ``done`` or ``failed`` after it. A
    ``pending`` entry found when a turn starts means the process died around the call: the
    turn first repeats it with the same key, so an idempotent target answers with its first
    result, and the task ends as the target says.
    """

    action: str
    key: str
    status: Literal["pending", "done", "failed"]
    args: dict[str, Any]
    ok: str | None
    error: str | None
    result: Any
    retried: NotRequired[bool]
    """An earlier attempt (an earlier turn, or a process that died) may have reached the
    target: a connection refused now no longer proves that nothing happened."""


class Untold(TypedDict):
    """The reply of a turn that settled an irreversible action, until its client is known
    to have received it (``Engine.told``)."""

    turn: str
    text: str


class Meta(TypedDict, total=False):
    """The per-task bookkeeping a turn keeps (templates read it as ``meta``).

    ``slot_errors`` holds this turn's validation messages by slot (``_unclear`` when the
    message could not be understood); the ``batch_*`` keys exist while a batch runs.
    """

    slot_errors: dict[str, str]
    batch_total: int
    batch_progress: int
    batch_counts: dict[str, int]
    batch_executed: int
    """Tasks of the batch whose irreversible action ran."""
    last_cancelled: bool
    """The batch's task that ended last was cancelled (the next one goes on)."""
    awaiting: Literal["continue", "correction"]
    """The flow asked a question of its own kind: whether to go on after an interruption,
    or whether to apply a correction (``correction`` holds it)."""
    correction: dict[str, Any]
    """The change waiting for the user's yes: ``{"slot", "old", "new"}``."""
    corrected: dict[str, Any]
    """Slots this turn changed from a value they had: slot -> the old value."""
    held_errors: dict[str, str]
    """Why values of ``keep_rejected`` slots were refused, until each slot is asked."""
    unread: dict[str, str]
    """Date slots given a time that names no date ("다음 달 초"), asked for until they have
    one (or the user says "now"): slot -> why."""
    run: RunRef
    """The background run a turn started in this task's current stage (engine/runs)."""


class RunRef(TypedDict):
    """DONE's ``state_snapshot.meta.run``: the run the turn started, to follow at
    ``/v1/runs/{id}``."""

    id: str
    flow: str
    stage: str


class Frame(TypedDict):
    """A flow waiting under the top of the session's flow stack.

    ``interrupted``: another flow's intent (or a digression) came in mid-way; it resumes when
    that flow ends. ``caller``: it called a flow with a ``call`` step; ``ok`` fires in it
    when the called flow ends. ``queued``: a flow the user asked for in the same message as
    another; it starts (understanding ``message``) when the flows above it are done.
    """

    kind: Literal["interrupted", "caller", "queued"]
    flow: str
    stage: str | None
    slots: dict[str, Any]
    meta: Meta
    task_queue: list[QueuedTask]
    filling_turns: int
    task_id: str
    journal: dict[str, JournalEntry]
    ok: NotRequired[str]
    message: NotRequired[str]
    cause: NotRequired[str]
    """Why an ``interrupted`` flow waits: ``digression`` (small talk, a question it could not
    use), ``pending`` (its irreversible action's outcome is unknown) or another flow's
    intent."""
    asked_in: NotRequired[str]
    """For a ``pending`` task: the turn that last asked its target."""


class StreamLog(TypedDict):
    """The events of the session's last streamed turn, for a client that reconnects."""

    id: str
    events: list[tuple[str, Any]]


def replayed(log: StreamLog | None, stream: str, after: int) -> list[tuple[int, str, Any]]:
    """(index, name, payload) of ``log``'s events after the ``after``-th, if it is ``stream``."""
    if not log or log.get("id") != stream:
        return []
    return [(i, name, payload) for i, (name, payload) in enumerate(log["events"]) if i > after]


def owned_key(session_id: str, owner: str | None) -> str:
    """Where a client's session is stored: every principal names its own sessions, so one
    id sent with two keys is two sessions, and nobody can learn which ids another uses.
    Without keys (``owner`` None) the id is the key.

    >>> owned_key("s1", "key-87cbebfeebc05f7c"), owned_key("s1", None)
    ('key-87cbebfeebc05f7c:s1', 's1')
    """
    return session_id if owner is None else f"{owner}:{session_id}"


class Clarify(TypedDict):
    """A clarification question waiting for its answer: which intent was meant."""

    options: list[str]
    message: str
    attempts: int


@dataclass(slots=True)
class SessionState:
    flow: str | None = None
    stage: str | None = None
    slots: dict[str, Any] = field(default_factory=dict)
    meta: Meta = field(default_factory=Meta)
    task_queue: list[QueuedTask] = field(default_factory=list)
    filling_turns: int = 0
    raw_history: list[dict[str, str]] = field(default_factory=list)
    summary_text: str = ""
    summary_struct: dict[str, Any] = field(default_factory=dict)
    """The summary as data (``memory.summary_struct``): the completed tasks and the user's
    earlier requests folded so far, whoever wrote ``summary_text``."""
    done: list[dict[str, Any]] = field(default_factory=list)
    """The most recent completed tasks (also in the store's completed table)."""
    turns: int = 0
    tasks_started: int = 0
    task_id: str = ""
    """Random, new for every task: the idempotency keys of the task's actions derive from it."""
    journal: dict[str, JournalEntry] = field(default_factory=dict)
    """The current task's irreversible actions by name."""
    owner: str | None = None
    """The principal (API key) that created the session; only it may read or act in it."""
    notice: str = ""
    """What the user is told first on their next turn (how an action that was finished at
    start-up, with nobody listening, ended)."""
    untold: Untold | None = None
    """An action's outcome whose reply may not have reached the user: told on the next turn."""
    stack: list[Frame] = field(default_factory=list)
    """Flows waiting under the current one, the most recent last."""
    clarify: Clarify | None = None
    stream: StreamLog | None = None
    """The last streamed turn's events (replaced by each streamed turn)."""
    run_context: dict[str, Any] | None = None
    """The request context of the turn that started the background run the session waits
    for: the run's steps read it as ``context``, as the turn's did."""

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> SessionState:
        """Adopt ``data`` (fresh from the store's JSON decoding; it is not copied again)."""
        if not data:
            return cls()
        memory = data.get("memory", {})
        return cls(flow=data.get("flow"), stage=data.get("stage"), slots=data.get("slots", {}),
                   meta=data.get("meta", {}), task_queue=data.get("task_queue", []),
                   filling_turns=data.get("filling_turns", 0),
                   raw_history=memory.get("raw_history", []),
                   summary_text=memory.get("summary_text", ""),
                   summary_struct=memory.get("summary_struct", {}), done=data.get("done", []),
                   turns=data.get("turns", 0), tasks_started=data.get("tasks_started", 0),
                   task_id=data.get("task_id", ""), journal=data.get("journal", {}),
                   owner=data.get("owner"), notice=data.get("notice", ""),
                   untold=data.get("untold"),
                   stack=data.get("stack", []), clarify=data.get("clarify"),
                   stream=data.get("stream"), run_context=data.get("run_context"))

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
                "flow": self.flow, "stage": self.stage, "slots": self.slots, "meta": self.meta,
                "task_queue": self.task_queue, "filling_turns": self.filling_turns,
                "memory": {"raw_history": self.raw_history, "summary_text": self.summary_text,
                           **({"summary_struct": self.summary_struct}
                              if self.summary_struct else {})},
                "done": self.done[-MAX_DONE_KEPT:], "turns": self.turns,
                "tasks_started": self.tasks_started, "task_id": self.task_id}
        # rarely set: left out while empty, so every turn's JSON stays small
        if self.journal:
            data["journal"] = self.journal
        if self.owner is not None:
            data["owner"] = self.owner
        if self.notice:
            data["notice"] = self.notice
        if self.untold is not None:
            data["untold"] = self.untold
        if self.stack:
            data["stack"] = self.stack
        if self.clarify is not None:
            data["clarify"] = self.clarify
        if self.stream is not None:
            data["stream"] = self.stream
        if self.run_context is not None:
            data["run_context"] = self.run_context
        return data

    def pending(self) -> list[JournalEntry]:
        """Irreversible actions that were about to run, or ran, when a process died."""
        return [e for e in self.journal.values() if e["status"] == "pending"]

    def start_task(self, flow: str, initial: str, fresh: tuple[str, ...] = (),
                   initial_values: dict[str, Any] | None = None) -> None:
        """Begin a new task of ``flow``: its ``fresh`` slots are emptied, then slots that
        have none take their ``initial_values``; memory, kept slots and the batch queue stay."""
        self.flow, self.stage = flow, initial
        for name in fresh:
            self.slots.pop(name, None)
        for name, value in (initial_values or {}).items():
            if self.slots.get(name) in (None, ""):
                self.slots[name] = value
        self.meta = _batch_only(self.meta)
        self.filling_turns = 0
        self.tasks_started += 1
        self.task_id = secrets.token_hex(16)  # 128 bits: keys never repeat across runs
        self.journal = {}

    def reset(self) -> None:
        """Forget the flow, its slots and queue; memory and completed tasks stay (they belong
        to the conversation, not to one task)."""
        self.flow = self.stage = None
        self.slots, self.meta, self.task_queue, self.filling_turns = {}, Meta(), [], 0

    def push(self, kind: Literal["interrupted", "caller", "queued"], own: tuple[str, ...],
             hide: tuple[str, ...] = ()) -> Frame:
        """Put the current task (its ``own`` slots' values with it) under a new one; the
        ``hide`` slots are emptied until it comes back."""
        frame = Frame(kind=kind, flow=self.flow or "", stage=self.stage,
                      slots={n: self.slots[n] for n in own if n in self.slots},
                      meta=self.meta, task_queue=self.task_queue,
                      filling_turns=self.filling_turns, task_id=self.task_id,
                      journal=self.journal)
        self.stack.append(frame)
        for name in hide:
            self.slots.pop(name, None)
        self.meta, self.task_queue, self.filling_turns, self.journal = Meta(), [], 0, {}
        return frame

    def restore(self, frame: Frame) -> None:
        """Make ``frame`` (taken off the stack) the current task again."""
        self.flow, self.stage = frame["flow"], frame["stage"]
        self.slots.update(frame["slots"])
        self.meta, self.task_queue = frame["meta"], frame["task_queue"]
        self.filling_turns, self.task_id = frame["filling_turns"], frame["task_id"]
        self.journal = frame["journal"]


_BATCH_KEYS = ("batch_total", "batch_progress", "batch_counts", "batch_executed",
               "last_cancelled")


def _batch_only(meta: Meta) -> Meta:
    kept = Meta()
    for key in _BATCH_KEYS:
        if key in meta:
            kept[key] = meta[key]  # type: ignore[literal-required]
    return kept
