"""The immutable, compiled form of a service: what the runtime executes, built once per load."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.compiler.machine import StageMachine
from engine.compiler.rendering import Compiled
from engine.compiler.validators import SlotValidator
from engine.nlu import IntentRule, YesNoWords
from engine.source import SourceMap

if TYPE_CHECKING:
    # a build holds these as records (engine.dsl.records): a server never imports them
    from engine.dsl.spec import MemorySpec, ModelSpec, ServiceSpec, SlotSpec
    from engine.retrieval import KnowledgeIndex  # imported by a flow with knowledge bases


def mask(value: Any) -> Any:
    """A sensitive value as flowctl shows it: ``"•••7890"`` (None stays None)."""
    if value is None:
        return None
    text = str(value)
    return "•••" + text[-4:] if len(text) > 8 else "•••"


def shown(values: Mapping[str, Any], sensitive: frozenset[str]) -> dict[str, Any]:
    """``values`` with every sensitive slot masked."""
    if not sensitive:
        return values if isinstance(values, dict) else dict(values)  # callers pass fresh ones
    return {k: mask(v) if k in sensitive else v for k, v in values.items()}


def secrets_of(slots: Mapping[str, Any], sensitive: frozenset[str]) -> frozenset[str]:
    """The values of the sensitive slots among ``slots``, as text (to mask wherever they
    appear)."""
    if not sensitive:
        return frozenset()
    return frozenset(str(slots[n]) for n in sensitive if slots.get(n) not in (None, ""))


def scrubbed(data: Any, secrets: frozenset[str]) -> Any:
    """``data`` (an action's result, a hook's data) with every string that holds one of the
    sensitive values masked, however deep it sits."""
    if not secrets:
        return data
    if isinstance(data, str):
        return mask(data) if any(s in data for s in secrets) else data
    if isinstance(data, Mapping):
        return {k: scrubbed(v, secrets) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [scrubbed(v, secrets) for v in data]
    return data


@dataclass(frozen=True, slots=True)
class Const:
    """A literal value written in YAML (not a string, so not an expression)."""

    value: Any

    def render(self, ctx: Mapping[str, Any]) -> Any:
        return self.value


@dataclass(frozen=True, slots=True)
class Argv:
    """A command's argv: one template per argument, rendered to a list of strings."""

    items: tuple[Compiled, ...]

    def render(self, ctx: Mapping[str, Any]) -> list[str]:
        return [str(item.render(ctx)) for item in self.items]


Value = Compiled | Const | Argv


@dataclass(frozen=True, slots=True)
class CompiledSlot:
    name: str
    spec: SlotSpec
    patterns: tuple[re.Pattern[str], ...] = ()
    full_pattern: re.Pattern[str] | None = None
    synonyms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    validator: SlotValidator | None = None
    required_when: Compiled | None = None
    """``required:`` written as a condition over ``slots``."""
    known: tuple[str, ...] = ()
    """The titles of the knowledge base ``extract.known`` names: the slot's known values."""


_SPECIFICITY = {"money": 1, "date": 2, "time": 2, "enum": 3, "integer": 4, "number": 4}


def extraction_order(slots: Sequence[CompiledSlot]) -> tuple[CompiledSlot, ...]:
    """Most specific slot kinds first (patterns, money, dates, enums, numbers), so a span
    of text goes to the slot that claims it most precisely."""
    return tuple(sorted(slots, key=lambda s: 0 if s.patterns else _SPECIFICITY.get(s.spec.type, 9)))


@dataclass(frozen=True, slots=True)
class SayStep:
    message: str


@dataclass(frozen=True, slots=True)
class SetStep:
    assignments: tuple[tuple[str, Value], ...]


@dataclass(frozen=True, slots=True)
class TriggerStep:
    trigger: str


@dataclass(frozen=True, slots=True)
class CallActionStep:
    """Run ``action``; its outcome fires ``ok`` or ``error`` (a spec ``call:`` naming an
    action; one naming a flow is a ``CallFlowStep``)."""

    action: str
    ok: str | None
    error: str | None


@dataclass(frozen=True, slots=True)
class CallFlowStep:
    """Push ``flow`` on top of this one; ``ok`` fires here when it ends."""

    flow: str
    ok: str | None


@dataclass(frozen=True, slots=True)
class LinkStep:
    """End this flow and start ``flow`` in its place."""

    flow: str


@dataclass(frozen=True, slots=True)
class EmitStep:
    type: str
    data: tuple[tuple[str, Value], ...]


@dataclass(frozen=True, slots=True)
class AgentStep:
    """Ask a model for the reply (``fallback`` said when none answers); the step's result is
    ``agents.<agent>`` for the rest of the turn (``AGENT_RESULT_FIELDS``)."""

    agent: str
    prompt: str
    model: str | None
    label: str | None
    fallback: str
    json_output: bool
    tools: tuple[str, ...]
    max_rounds: int = 4
    validator: SlotValidator | None = None
    """Called as ``validator(output, slots, today)`` on a JSON reply that passed its schema."""
    last_n_turns: int | None = None
    """Raw turns its request carries, the latest; None: all memory keeps."""


@dataclass(frozen=True, slots=True)
class RetrieveStep:
    """Search ``knowledge`` for ``query`` (the user's message when None); the hits go to
    ``retrieved.<name>``."""

    knowledge: str
    name: str
    query: Compiled | None
    top_k: int
    label: str | None


@dataclass(frozen=True, slots=True)
class ResponseLine:
    """A message (``say``), or one line per item of ``each``; only when ``when`` holds."""

    message: str | None
    each: Compiled | None
    when: Compiled | None


@dataclass(frozen=True, slots=True)
class RespondStep:
    """A synthesised response: summary, numbered actions, caveats; DONE's two fields."""

    summary: str | None
    actions: tuple[ResponseLine, ...]
    caveats: tuple[ResponseLine, ...]
    requires_confirmation: Value
    next: tuple[ResponseLine, ...]
    fallback: str | None


@dataclass(frozen=True, slots=True)
class IfStep:
    condition: Compiled
    then: tuple[Step, ...]
    otherwise: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class LoopStep:
    """Run ``steps`` once per attempt until ``until`` holds or the attempts run out."""

    steps: tuple[Step, ...]
    max_attempts: Value
    until: Compiled | None
    feedback: Compiled | None
    ok: str | None
    exhausted: str | None


Step = (SayStep | SetStep | TriggerStep | CallActionStep | CallFlowStep | LinkStep | EmitStep
        | AgentStep | IfStep | RetrieveStep | RespondStep | LoopStep)


@dataclass(frozen=True, slots=True)
class CompiledStage:
    name: str
    terminal: bool
    say: str | None
    reprompt: str | None
    next_action: str
    buttons: tuple[str, ...]
    decide: str | None
    steps: tuple[Step, ...]
    words: YesNoWords | None = None
    """The stage's own decision words merged with the service's (None: the service's)."""
    background: bool = False
    """Its steps run as a background run, after the turn that reached it (engine/runs)."""
    failed: bool = False
    """A background run that ends here ends ``failed``."""


@dataclass(frozen=True, slots=True)
class CompiledAction:
    name: str
    kind: str  # "tool" | "http" | "read" | "apply" | "command"
    tool: str | None
    args: tuple[tuple[str, Value], ...]
    label: str | None
    irreversible: bool
    timeout_sec: float
    retries: int
    method: str = "POST"
    url: Compiled | None = None
    headers: tuple[tuple[str, Compiled], ...] = ()
    files: tuple[str, ...] = ()
    """Workspace globs: what ``read`` returns, or what ``apply`` may write."""
    limits: tuple[int, int] = (0, 0)
    """(most files, largest file in bytes) of a workspace action; (0, tail) of a command."""
    rules: tuple[CompiledRule, ...] = ()
    """The action's own gateway rules (its tool's, if declared, are checked first)."""
    returns: tuple[str, ...] = ()
    """Fields its result must have; a result without one is its failure."""


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """A gateway rule: ``when`` (over ``args`` and the turn) holding rejects with ``reject``."""

    when: Compiled
    reject: Compiled


@dataclass(frozen=True, slots=True)
class CompiledTool:
    """A tool declared under ``tools``: run over HTTP (``kind == "http"``) or by an MCP
    server (``kind == "mcp"``: ``server`` and ``remote`` name it; its parameters, when the
    flow gives none, come from the server's tool list at run time)."""

    name: str
    kind: str  # "http" | "mcp"
    description: str
    parameters: Mapping[str, Any] | None
    result: Mapping[str, Any] | None
    timeout_sec: float
    rules: tuple[CompiledRule, ...] = ()
    method: str = "POST"
    url: Compiled | None = None
    headers: tuple[tuple[str, Compiled], ...] = ()
    body: tuple[tuple[str, Value], ...] | None = None
    server: str | None = None
    remote: str | None = None


@dataclass(frozen=True, slots=True)
class CompiledFlow:
    name: str
    description: str
    slots: tuple[str, ...]
    required: tuple[str, ...]
    initial: str
    batch: bool
    max_fill_turns: int | None
    stages: Mapping[str, CompiledStage]
    machine: StageMachine
    extraction: tuple[CompiledSlot, ...] = ()
    """The flow's slots in the order understanding tries them (most specific first)."""
    terminal_stages: tuple[str, ...] = ()
    guard: Compiled | None = None
    """`if:` — the flow may start only when it holds."""
    refused: str | None = None
    interruptible: bool = True
    resume_ask: str | None = None
    resume_buttons: tuple[str, ...] = ()
    resume_after_digression: str = "reask"
    confirm_corrections: str | None = None
    correction_denied: str | None = None
    ask: Mapping[str, str] = field(default_factory=dict)
    """Slot -> this flow's own question for it."""
    required_when: Mapping[str, Compiled] = field(default_factory=dict)
    """Required slots whose requirement is a condition over ``slots``."""
    fresh: tuple[str, ...] = ()
    """Slots emptied when a task of the flow starts and reset when it ends: its own slots
    that are not kept, and those asked every time (``always_ask``)."""
    initial_values: Mapping[str, Any] = field(default_factory=dict)
    amount_verbs: tuple[str, ...] = ()
    """The flow's own verbs when its one money slot is the only number it takes: a plain
    number said with one is the amount ("엄마한테 50000 보내줘"); none where it may be a count."""

    def in_progress(self, stage: str | None) -> bool:
        """A flow keeps the turn while its stage is neither initial nor terminal."""
        return stage is not None and stage != self.initial and stage in self.stages \
            and not self.stages[stage].terminal


def _memory_defaults() -> MemorySpec:
    """The memory settings of a service that names none (made when compiling)."""
    from engine.dsl.spec import MemorySpec

    return MemorySpec()


@dataclass(frozen=True, slots=True)
class CompiledService:
    spec: ServiceSpec
    source: SourceMap
    base_dir: Path
    name: str
    locale: str
    flows: Mapping[str, CompiledFlow]
    default_flow: str
    routes: Mapping[str, str]
    intents: tuple[IntentRule, ...]
    intent_thresholds: Mapping[str, float]
    slots: Mapping[str, CompiledSlot]
    messages: Mapping[str, Compiled]
    actions: Mapping[str, CompiledAction]
    prompts: Mapping[str, Compiled]
    models: Mapping[str, ModelSpec]
    words: YesNoWords
    description: str = ""
    settings: Mapping[str, int] = field(default_factory=dict)
    """The file's defaults for FLOW_SETTINGS (``config.Settings.with_flow_defaults``)."""
    memory: MemorySpec = field(default_factory=_memory_defaults)
    sensitive: frozenset[str] = frozenset()
    """Slots shown masked outside templates and actions (``mask``)."""
    intent_names: tuple[str, ...] = ()
    """The declared intents' names, in file order."""
    understanding_model: str | None = None
    understanding_prompt: str | None = None
    patterns: Patterns = field(default_factory=lambda: Patterns())
    kept: frozenset[str] = frozenset()
    """Slots kept when their flow ends (``keep: true``), shared by every flow."""
    context_schema: Mapping[str, Any] | None = None
    """JSON Schema of the request context (None: a request may carry none)."""
    guard: tuple[GuardRule, ...] = ()
    agent_outputs: frozenset[str] = frozenset()
    """Agent steps whose validated JSON output templates read as ``agents.<name>``."""
    knowledge: Mapping[str, KnowledgeIndex] = field(default_factory=dict)
    """Knowledge base -> its index, loaded into memory."""
    retrievals: frozenset[str] = frozenset()
    """The names ``retrieve`` steps put hits under (``retrieved.<name>``)."""
    response: str = "done"
    """DONE's shape: ``done``, or ``orchestrator`` (``events.Orchestrated`` added)."""
    tools: Mapping[str, CompiledTool] = field(default_factory=dict)
    """Tools declared under ``tools`` (built-in ones live in ``registry``)."""


@dataclass(frozen=True, slots=True)
class GuardRule:
    """A compiled ``guard`` rule: it matches when a keyword or pattern is found (or there is
    none) and ``when`` holds."""

    keywords: tuple[str, ...]
    patterns: tuple[re.Pattern[str], ...]
    when: Compiled | None
    say: str
    tag: str


@dataclass(frozen=True, slots=True)
class Patterns:
    """The service's conversation patterns, resolved (see ``PatternsSpec``)."""

    chitchat: str | None = None
    """Flow a digression goes to (None: digressions are off)."""
    clarify_ask: str | None = None
    clarify_margin: float = 0.02
    clarify_limit: int = 2
    clarify_alternatives: float | None = None
    """Two or more alternatives this confident (of other flows) are also a "which one?"."""
    clarify_prefer: Mapping[str, Compiled] = field(default_factory=dict)
    """Intent -> condition that takes it, among the options of a "which one?", unasked."""
    handoff: str | None = None
    completed: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    resume: YesNoWords = field(default_factory=YesNoWords)
    """Answers to "go on with the flow?": confirm = go on, cancel/deny = cancel the flow."""
    bands: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    """Intent -> (act, confirm) confidence bounds; empty when the service has no bands."""
    confirm_ask: str | None = None
    low_confidence: str | None = None
    """The bands' questions: confirm the intent, and say more (``patterns.confidence``)."""
    clarify_unmatched: bool = False
    """``confidence.unmatched: clarify``: a request no intent matches is asked to say more."""
    by_priority: bool = False
    """``patterns.ranking: priority``: intents over their thresholds go by priority first."""
