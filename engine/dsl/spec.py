"""Closed pydantic models of what a flow author writes; schemas/flow.schema.json is generated here.

Every model forbids unknown keys and is frozen. Step kinds are told apart by their one
kind key (``say:``, ``call:``, ...). Strings in ``when``, ``set``, ``args`` and ``data``
are jinja2 *expressions*; strings in ``messages`` and ``prompts`` are jinja2 *templates*.
Nothing here can switch on trusted code: the only Python a service may name is a slot
``validator`` (``module:function``), imported at compile time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import Field, model_validator

from engine.dsl.answers_spec import KnowledgeSpec, RespondStep, RetrieveStep
from engine.dsl.answers_spec import (
    RespondLine as RespondLine,  # re-exported: the compiler reads them as s.*
)
from engine.dsl.answers_spec import SynthesisSpec as SynthesisSpec
from engine.dsl.base import Expression, Name, SourceName, Spec, StageName
from engine.dsl.hooks import HookSpec
from engine.dsl.tools_spec import GatewayRule as ToolRule
from engine.dsl.tools_spec import ToolSpec
from engine.registry import FAILURE_TAGS, MAX_LOOP_ATTEMPTS, NextAction
from engine.workspace.command import MAX_TAIL_CHARS, MAX_TIMEOUT_SEC
from engine.workspace.files import MAX_FILE_BYTES, MAX_FILES

FailureTag = Literal[FAILURE_TAGS]  # type: ignore[valid-type]
SlotType = Literal["string", "integer", "number", "money", "date", "time", "enum", "boolean", "list"]


class ModelSpec(Spec):
    """A named LLM configuration, referenced by agent steps and the understanding call."""

    provider: str = Field(description="openai, anthropic, scripted or offline, or a provider an installed package adds (entry-point group flowctl.providers).")
    model: str = Field("", description="The provider's model name, e.g. gpt-4.1-mini.")
    temperature: float = Field(0.0, ge=0, le=2, description="Sampling temperature.")
    max_tokens: int | None = Field(None, ge=1, description="Upper bound on output tokens.")
    max_retry: int = Field(2, ge=0, le=10, description="Retries on timeouts, 429 and 5xx.")
    backoff_sec: float = Field(0.5, ge=0, description="First backoff; doubles each retry, with jitter.")
    timeout_sec: float = Field(30.0, gt=0, description="Timeout of one call.")
    output_schema: dict[str, Any] | None = Field(None, description="JSON Schema the JSON output must satisfy.")
    fixture: str | None = Field(None, description="Replies file for the scripted provider, relative to the flow file.")


class MemorySpec(Spec):
    """Conversation memory: raw recent turns plus a folded summary."""

    enabled: bool = Field(True, description="Fold older turns into a summary (FLOWCTL_MEMORY_ENABLE_SUMMARY).")
    summarize_threshold: int = Field(6, ge=1, description="Turns kept raw before folding (FLOWCTL_MEMORY_SUMMARIZE_THRESHOLD).")
    keep_recent_turns: int = Field(4, ge=0, description="Raw turns kept after folding (FLOWCTL_MEMORY_KEEP_RECENT_TURNS).")
    summary_model: str | None = Field(None, description="Name of a `models` entry that writes summaries (FLOWCTL_MEMORY_SUMMARY_MODEL may also name a vendor model, e.g. gpt-4o-mini).")
    summary_prompt: str | None = Field(None, description="Prompt file in prompts/ (name without .j2) replacing the built-in summary instructions; it sees `service`, `description` and `locale`.")
    max_raw_turns: int = Field(20, ge=1, description="Raw turns kept at most (never fewer than `summarize_threshold`), whatever else happens (a summary not yet written, its model failing); older ones go into the summary at once (FLOWCTL_MEMORY_MAX_RAW_TURNS).")


class UnderstandSpec(Spec):
    """LLM understanding for what the rules cannot settle: ONE call returns the intent, slot
    operations and tasks together. Without a model (or its key) only the rules run."""

    model: str | None = Field(None, description="Name of a `models` entry; none means rules only.")
    prompt: str | None = Field(None, description="Prompt file in prompts/ replacing the built-in understanding prompt.")


class WordsSpec(Spec):
    """Extra words for the deterministic yes/no decision, merged with the locale's defaults."""

    confirm: list[str] = Field(default_factory=list, description="Words that confirm at a `decide: confirm` stage.")
    cancel: list[str] = Field(default_factory=list, description="Words that cancel the flow at any non-terminal stage.")
    deny: list[str] = Field(default_factory=list, description="Words that say no at a `decide: confirm` stage: they fire `deny` where the stage has a `deny` transition, else `cancel`.")
    resume: list[str] = Field(default_factory=list, description="Words that take up an interrupted flow again when it asks whether to continue (besides the confirm words).")
    objects: list[str] = Field(default_factory=list, description="Nouns that name what the service does things to (`[카드]` for card applications, `[order]`): said beside a decision they add nothing, so \"카드 신청 취소\" cancels and \"네 카드 신청해 주세요\" confirms; alone they decide nothing. Not for a word that is also something else the user may confirm or cancel (a transfer's `문자`).")


class IntentSpec(Spec):
    """An intent the offline understanding recognises from keywords and examples."""

    description: str = Field("", description="What the intent means; also given to LLM understanding.")
    keywords: list[str] = Field(default_factory=list, description="Substrings that signal the intent.")
    unless: list[str] = Field(default_factory=list, description="Words that, said as a word of the message, make it none of this intent's, whatever its keywords or examples (`[문자, 사진, text]` for a transfer: \"엄마한테 문자 보내줘\" sends no money). A Hangul word may carry a particle (\"사진을\"); an English one is matched in its regular forms (\"texts\").")
    examples: list[str] = Field(default_factory=list, description="Example utterances, matched by similarity.")
    priority: int = Field(0, description="Higher wins when several intents match equally.")
    threshold: float = Field(0.5, ge=0, le=1, description="Minimum confidence to act on the intent.")
    act: float | None = Field(None, ge=0, le=1, description="This intent's `patterns.confidence.act` (needs `patterns.confidence`).")
    confirm: float | None = Field(None, ge=0, le=1, description="This intent's `patterns.confidence.confirm` (needs `patterns.confidence`).")


class ExtractSpec(Spec):
    """Hints for finding a slot's value in a message."""

    patterns: list[str] = Field(default_factory=list, description="Regexes; the named group `value` (or the whole match) is the value.")
    bare: bool = Field(False, description="When this slot is the one being asked for and nothing else matched, take the whole message if it is a short answer (at most three words, not a question).")
    free_text: bool = Field(False, description="When this slot is the one being asked for, the whole message is its value, however long (a reason, feedback, a note): not only a short answer. A cancel word alone still cancels; a lone yes or no (\"네\", \"no\") is no value.")
    known: Name | None = Field(None, description="A `knowledge` base whose documents' titles (their first heading) are this slot's known values: a message naming one, or a run of two or more of its words covering at least half of it (\"로지텍 MX Keys\" for \"로지텍 MX Keys Mini\"), gives that title. Two titles matched as well: neither.")
    exact: bool | None = Field(None, description="Only an exact value is one: an amount said roughly or as a bound (\"5만원 정도\", \"최소 5만원\", \"2만원 이상\", \"about 30000\") or inside a sum (\"2만원 + 5천원\", \"3만원씩 두 번\") is left to the model, or the slot is asked. A code, id or number said as a guess or only in part (\"something like u48\", \"u48-something\", \"starts with 48\") or a year (\"since 2015\") is none either. Default: true for a `money` slot (an amount that moves money), a `sensitive` one and one read by its own `patterns` (codes, ids, numbers), false otherwise; a budget, where a bound is the value, says `false`.")
    asked_only: bool = Field(False, description="Look for this slot's value only on the turn that answers its question (two slots of one type then never take each other's value).")
    typed: bool = Field(True, description="Use the slot type's own extractor (money, dates, numbers, enum synonyms); `false` leaves only `patterns` and `bare`.")
    llm: bool = Field(True, description="An LLM's understanding may fill it. `false`: the model is not told of the slot and its `set` of it is ignored; only the rules above and `set` steps fill it (a value a system gave, such as an order's amount from an API).")
    grounded: bool = Field(True, description="A value the model sets must be found in what the user said (the name or text in the message, an amount or number among its readings, a date among its dates, an enum value by its synonyms); an ungrounded one is dropped and the slot asked. `false`: the model may infer a value nobody wrote.")


class SlotSpec(Spec):
    """A typed piece of information a flow collects; validated in code, never by a prompt."""

    type: SlotType = Field(description="How the value is extracted and validated.")
    description: str = Field("", description="What the slot holds; shown to LLM understanding.")
    required: bool | Expression = Field(False, description="The flow cannot reach its confirmation without it; a condition over `slots` (e.g. `slots.method == 'card'`) makes it required only when that holds.")
    keep: bool = Field(False, description="Kept when its flow ends (a session-long slot such as a verified user id): other flows may read it and it is not asked again. By default a flow's slots are reset when it ends.")
    initial: Any = Field(None, description="Value the slot takes when a flow that collects it starts and it has none.")
    always_ask: bool = Field(False, description="Asked in every flow that collects it, even when a kept value exists (the old value is dropped when the flow starts).")
    keep_rejected: bool = Field(False, description="A value refused while the flow asks for another slot is not reported at once: its error is held until this slot's own question comes up (the first missing slot), and said with it. By default a refused value is reported in the turn it was given.")
    sensitive: bool = Field(False, description="Masked (last 4 characters kept) wherever flowctl shows it: DONE's state_snapshot, TASK_PROGRESS, completed tasks, the debug API and logs. Templates and actions still see the value.")
    ask: str | None = Field(None, description="Message (name in `messages`) that asks for the slot.")
    error: str | None = Field(None, description="Message (name in `messages`) said when a value is rejected.")
    minimum: float | None = Field(None, description="Smallest allowed value (integer, number, money).")
    maximum: float | None = Field(None, description="Largest allowed value (integer, number, money).")
    min_length: int | None = Field(None, ge=0, description="Shortest allowed text (string).")
    max_length: int | None = Field(None, ge=1, description="Longest allowed text (string).")
    pattern: str | None = Field(None, description="Regex the whole text must match (string).")
    currency: str | None = Field(None, description="ISO currency of a money slot, e.g. KRW.")
    values: dict[str, list[str]] | None = Field(None, description="Enum values, each with its synonyms.")
    items: Literal["string", "integer", "number"] | None = Field(None, description="Item type of a list slot.")
    extract: ExtractSpec | None = Field(None, description="Extraction hints.")
    names: list[str] = Field(default_factory=list, description="Words that name the slot when the user takes it back without a new value (\"change the date\", \"날짜는 빼줘\"): it is emptied, and asked again if required. Default: the slot's name, underscores as spaces.")
    validator: str | None = Field(None, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$", description="`module:function(value, slots[, today]) -> bool | str | Replace` for business rules: accept, reject (a str says why) or replace the value.")

    @model_validator(mode="after")
    def _enum_has_values(self) -> SlotSpec:
        if self.type == "enum" and not self.values:
            raise ValueError("an enum slot needs `values`")
        return self


class _Returning(Spec):
    """What a tool and an HTTP action share: whether it is irreversible, and the fields its
    result must have."""

    irreversible: bool = Field(False, description="Moves money or changes the world; must follow a confirmation.")
    returns: list[str] = Field(default_factory=list, description="Fields the result must have (top-level keys of its JSON object): a result without one is the action's failure, so the step's `error` trigger fires (`result.error` names the field) instead of a message failing the turn on it. Not for an irreversible action (it ran: its outcome is kept and told as it is).")

    @model_validator(mode="after")
    def _returns_not_irreversible(self) -> Self:
        if self.returns and self.irreversible:
            raise ValueError("`returns` cannot be used on an irreversible action: once it ran, "
                             "a missing field cannot make it not have run")
        return self


class ToolAction(_Returning):
    """An action run by a built-in tool."""

    tool: str = Field(description="Built-in tool name (sandbox_bank, sandbox_balance, calculator) or a tool declared under `tools`.")
    args: dict[str, Any] = Field(default_factory=dict, description="Arguments; strings are expressions.")
    label: str | None = Field(None, description="Progress label shown while it runs.")
    timeout_sec: float = Field(10.0, gt=0, description="Timeout of one attempt.")
    retries: int = Field(0, ge=0, le=5, description="Retries after a failure (only safe with idempotency).")
    rules: list[ToolRule] = Field(default_factory=list, description="Gateway rules checked before the action runs (after its tool's own); the first whose `when` holds rejects it: the `error` trigger fires, nothing runs (failure tag TOOL_GATEWAY_REJECTED).")


class HttpAction(_Returning):
    """An action that calls an HTTP endpoint, with an idempotency key per task."""

    http: HttpRequestSpec = Field(description="The HTTP request: method, URL, JSON body and headers.")
    label: str | None = Field(None, description="Progress label shown while it runs.")
    timeout_sec: float = Field(10.0, gt=0, description="Timeout of one attempt.")
    retries: int = Field(0, ge=0, le=5, description="Retries on timeouts and 5xx, reusing the idempotency key.")
    rules: list[ToolRule] = Field(default_factory=list, description="Gateway rules checked before the action runs (after its tool's own); the first whose `when` holds rejects it: the `error` trigger fires, nothing runs (failure tag TOOL_GATEWAY_REJECTED).")


class WorkspaceAction(Spec):
    """Reads files from, or writes file changes into, the workspace root the operator
    configures (`flowctl serve --workspace-root`); a flow file can never name the root."""

    workspace: Literal["read", "apply"] = Field(description="`read`: result `{files: [{path, content}]}`; `apply`: write `changes`, result `{applied: [paths], count, changes: [{path, diff}]}` (each write's unified diff, at most 8 KiB a file and 32 KiB a change set).")
    files: list[str] = Field(default_factory=list, description="Globs relative to the root: the files `read` returns, or the only files `apply` may write (none: any file inside the root).")
    changes: Expression | None = Field(None, description="`apply`: expression giving the list of `{path, content}` to write, e.g. `agents.dev.changes`.")
    paths: Expression | None = Field(None, description="`read`: expression giving the paths to read instead of every file `files` matches, e.g. `context.files` (a request's list); each must match one of `files`, so the flow bounds what a request may ask for. Empty or none: `files`.")
    max_files: int = Field(MAX_FILES, ge=1, le=MAX_FILES, description="Most files read or written at once.")
    max_bytes: int = Field(MAX_FILE_BYTES, ge=1, le=MAX_FILE_BYTES, description="Largest file read or written, in bytes.")
    label: str | None = Field(None, description="Progress label shown while it runs.")
    irreversible: ClassVar[bool] = False
    timeout_sec: ClassVar[float] = 60.0


class CommandAction(Spec):
    """Runs an argv in the workspace root, without a shell; the operator's allow-list
    (`--allow-command`) must allow it. Result: `{command, exit_code, output, timed_out,
    seconds}`; a non-zero exit code is data, not a failure."""

    command: list[str] = Field(min_length=1, description="The argv, each item a template, e.g. `[python, -m, pytest, -q]`; shell operators are refused.")
    argv: Expression | None = Field(None, description="Expression giving the argv as a list, used instead of `command` when it gives a non-empty one, e.g. `context.test_command` (a request's list); the operator's allow-list decides whether it may run, exactly as for `command`.")
    timeout_sec: float = Field(60.0, gt=0, le=MAX_TIMEOUT_SEC, description="The process group is killed after this long (`timed_out: true`, `exit_code: null`).")
    output_tail: int = Field(4000, ge=0, le=MAX_TAIL_CHARS, description="Characters of the combined stdout and stderr kept, from the end.")
    label: str | None = Field(None, description="Progress label shown while it runs.")
    irreversible: ClassVar[bool] = False


class HttpRequestSpec(Spec):
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = Field("POST", description="HTTP method.")
    url: str = Field(description="Template of the URL, e.g. `{{ env.BANK_URL }}/transfers`.")
    json_body: dict[str, Any] | None = Field(None, alias="json", description="Body; strings are expressions.")
    headers: dict[str, str] = Field(default_factory=dict, description="Header templates.")


class SayStep(Spec):
    say: str = Field(description="Message name to say.")


class SetStep(Spec):
    set: dict[str, Any] = Field(description="Slot -> expression (strings) or literal.")


class TriggerStep(Spec):
    trigger: Name = Field(description="Trigger to fire on the stage machine.")


class CallStep(Spec):
    call: str = Field(description="An action from `actions` to run, or a flow from `flows` to call: the called flow runs on top of this one and, when it ends, this flow goes on with `result` = {outcome, slots} of the called flow.")
    ok: Name | None = Field(None, description="Trigger fired when the action succeeds, or when the called flow ends (branch on `result.outcome` in the transitions' `when`).")
    error: Name | None = Field(None, description="Trigger fired when the action fails (actions only).")


class LinkStep(Spec):
    link: Name = Field(description="Flow to hand the conversation over to: this flow ends (recorded with its current stage as the outcome) and the linked flow starts.")


class EmitStep(Spec):
    emit: str = Field(description="Hook type sent in DONE.hooks.")
    data: dict[str, Any] = Field(default_factory=dict, description="Hook data; strings are expressions.")


class AgentStep(Spec):
    agent: Name = Field(description="Agent name, used in events and the trace.")
    prompt: str = Field(description="Prompt file name in prompts/ (without .j2).")
    model: str | None = Field(None, description="Name of a `models` entry; the offline fallback is used without one.")
    label: str | None = Field(None, description="Progress label shown while it runs.")
    fallback: str = Field(description="Message said when no LLM is configured or every retry failed.")
    json_output: bool = Field(False, description="The agent answers in JSON; its `message` field is streamed.")
    tools: list[str] = Field(default_factory=list, description="Tools the agent may call: built-in (calculator) or declared under `tools`; every call passes the gateway.")
    max_rounds: int = Field(4, ge=1, le=10, description="Model calls of the tool loop at most; a model still asking for tools after that gets the fallback.")
    last_n_turns: int | None = Field(None, ge=0, le=100, description="Raw turns of the conversation the agent's request carries (the latest ones); none: every raw turn memory keeps. The summary is sent either way.")
    validator: str | None = Field(None, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$", description="`module:function(output, slots[, today]) -> bool | str | Replace` for business rules on a `json_output` reply that passed its schema: accept, reject (a str says why; the model is asked once more, told why, then the fallback is said) or replace the reply's object.")


class IfStep(Spec):
    if_: Expression = Field(alias="if", description="Condition.")
    then: list[Step] = Field(default_factory=list, description="Steps run when the condition holds.")
    else_: list[Step] = Field(default_factory=list, alias="else", description="Steps run when it does not.")


class LoopSpec(Spec):
    """Attempts of the same steps until a condition holds or the attempts run out."""

    steps: list[Step] = Field(min_length=1, description="The body, run once per attempt; it may not fire triggers, call or link flows.")
    max_attempts: Annotated[int, Field(ge=1, le=MAX_LOOP_ATTEMPTS)] | Expression = Field(description=f"How many attempts at most: a number, or an expression such as `slots.attempts` (at most {MAX_LOOP_ATTEMPTS}).")
    until: Expression | None = Field(None, description="Checked after each attempt; when it holds the loop succeeds, e.g. `result.exit_code == 0`.")
    feedback: str | None = Field(None, description="Template rendered after an attempt that failed; the next attempt reads it as `loop.feedback`, and `loop.summary` keeps the last one.")
    ok: Name | None = Field(None, description="Trigger fired when `until` held.")
    exhausted: Name | None = Field(None, description="Trigger fired when the attempts ran out.")


class LoopStep(Spec):
    loop: LoopSpec = Field(description="Repeat steps with feedback: `loop.attempt`, `loop.feedback`, then `loop.outcome` (success | exhausted) and `loop.summary`.")


Step = (SayStep | SetStep | TriggerStep | CallStep | LinkStep | EmitStep | AgentStep | IfStep
        | RetrieveStep | RespondStep | LoopStep)


class StageSpec(Spec):
    """A stage of a flow: what happens when a turn ends in it."""

    terminal: bool = Field(False, description="The flow ends here; the task is stored in completed.")
    say: str | None = Field(None, description="Message said when a turn ends in (or passes through) this stage.")
    reprompt: str | None = Field(None, description="Message said when a turn leaves the stage unchanged.")
    next_action: NextAction | None = Field(None, description="UI hint; ASK for stages, DONE for terminal ones by default.")
    buttons: list[str] = Field(default_factory=list, description="Buttons offered to the user (ui_hint.buttons).")
    decide: Literal["confirm"] | None = Field(None, description="`confirm`: yes fires `confirm`, no fires `deny` (where the stage has a `deny` transition) or `cancel`, a new slot value fires `update`; decided in code, no LLM.")
    words: WordsSpec | None = Field(None, description="Decision words for this stage only, added to the locale's and the service's words (a `계속` that confirms here confirms nowhere else).")
    steps: list[Step] = Field(default_factory=list, description="Steps run, in order, when a turn ends in this stage.")
    background: bool = Field(False, description="The stage's steps run as a background run: the turn that reaches the stage ends at once with the run's id (`state_snapshot.meta.run`), and the run goes on in the server, recorded in a replayable event log (`/v1/runs`), until a step's trigger moves the flow on. Without a server (`flowctl test`, `flowctl chat`) the steps run inside the turn.")
    failed: bool = Field(False, description="A background run that ends in this stage ends with status `failed` (e.g. its attempts ran out) rather than `success`.")


class TransitionSpec(Spec):
    trigger: Name = Field(description="update, confirm, cancel (fired by the runtime) or any name fired by a step.")
    source: SourceName | list[SourceName] = Field(description="Stage(s) it leaves; `*` means every non-terminal stage.")
    dest: StageName = Field(description="Stage it enters.")
    when: Expression | None = Field(None, description="Condition; the first transition whose condition holds fires.")


class BatchSpec(Spec):
    """Several tasks in one message become a queue, confirmed and run one by one."""

    enabled: bool = True


class ResumeSpec(Spec):
    """What an interrupted flow asks when it is taken up again (next_action ASK_CONTINUE)."""

    ask: str = Field(description="Message asking whether to go on with the flow; next_action is ASK_CONTINUE. A yes or a resume word goes on, a cancel or no word cancels the flow, anything else is taken as an answer to the flow.")
    buttons: list[str] = Field(default_factory=list, description="Buttons offered with the question, e.g. [계속 진행, 취소].")
    after_digression: Literal["reask", "ask"] = Field("reask", description="After small talk or a question the flow could not use (a digression): `reask` asks the flow's question again, `ask` asks `ask` as after another flow's task.")


class FlowSpec(Spec):
    description: str = Field("", description="What the flow does; for people reading the file.")
    if_: Expression | None = Field(None, alias="if", description="Guard: the flow may start only when this condition holds (it sees kept slots, `turn` and `completed`).")
    refused: str | None = Field(None, description="Message said when the guard keeps the flow from starting.")
    interruptible: bool = Field(True, description="Another flow's intent may interrupt this flow mid-way (it resumes when that flow ends); `false` keeps every turn in this flow.")
    resume: ResumeSpec | None = Field(None, description="Ask before taking this flow up again after an interruption; without it the flow resumes at once and repeats its question.")
    confirm_corrections: str | None = Field(None, description="Message that asks before a filled slot is changed (it sees `correction.slot`, `correction.old`, `correction.new`, and `correction.slots` when one message changes several); without it a new value replaces the old one at once.")
    correction_denied: str | None = Field(None, description="Message said when the user answers no to `confirm_corrections` (the slots keep their values; it sees `correction`); without it the flow's question is asked again.")
    ask: dict[Name, str] = Field(default_factory=dict, description="Slot -> message: this flow's own question for a slot, instead of the slot's `ask`.")
    slots: list[Name] = Field(default_factory=list, description="Slots this flow fills, in asking order.")
    initial: StageName = Field(description="Stage a new task starts in.")
    batch: bool = Field(False, description="Split several tasks in one message into a queue, confirmed one by one.")
    max_fill_turns: int | None = Field(None, ge=1, description="Turns allowed with required slots missing (FLOWCTL_MAX_FILL_TURNS).")
    stages: dict[StageName, StageSpec] = Field(description="The stages, by name.")
    transitions: list[TransitionSpec] = Field(default_factory=list, description="Stage changes, tried in order; the first whose trigger, source and condition match fires.")


class GuardRule(Spec):
    """A rule of the service's guard: a message it matches ends the turn before understanding."""

    keywords: list[str] = Field(default_factory=list, description="Substrings (any case) that block the message.")
    patterns: list[str] = Field(default_factory=list, description="Regexes searched in the message; a match blocks it.")
    when: Expression | None = Field(None, description="Condition over `context` (and `slots`, `turn`); with keywords or patterns both must hold, alone it blocks every message while it holds.")
    say: str = Field(description="Message (name in `messages`) said instead of an answer.")
    tag: FailureTag = Field("POLICY_BLOCKED", description="Failure tag in DONE's `_trace.failure_tags`.")

    @model_validator(mode="after")
    def _matches_something(self) -> GuardRule:
        if not (self.keywords or self.patterns or self.when):
            raise ValueError("a guard rule needs `keywords`, `patterns` or `when`")
        return self


class GuardSpec(Spec):
    """Checks run on every turn before understanding, mid-flow included; no LLM call."""

    rules: list[GuardRule] = Field(default_factory=list, description="Tried in order; the first that matches ends the turn with its message, leaving the session as it was.")


class ServiceSpec(Spec):
    """A whole conversational service in one file."""

    service: Name = Field(description="Service name.")
    description: str = Field("", description="What the service does; shown by `flowctl chat`.")
    locale: Literal["ko", "en"] = Field("ko", description="Language of the built-in words and labels.")
    version: int | str = Field(1, description="Version of this service file, for people and deploy tooling.")
    response: Literal["done", "orchestrator"] = Field("done", description="The shape of DONE: `done` (the default), or `orchestrator`, which adds `final_response`, `selected_agents` ({agent_name, order, output} of the agent steps and actions that ran), `action_requests` (the actions requested, as the gateway let them through) and `confidence_score` beside `requires_confirmation` and `next_suggested_actions`.")
    settings: dict[Literal["max_fill_turns", "max_message_chars", "turn_deadline_ms"], int] = Field(default_factory=dict, description="Defaults for max_fill_turns, max_message_chars and turn_deadline_ms (every model call of a turn ends by then); the environment overrides them. Nothing security-relevant (such as FLOWCTL_DEV_MODE) can be set from a flow file.")
    models: dict[Name, ModelSpec] = Field(default_factory=dict, description="Named LLM configurations, referenced by agent steps and `memory.summary_model`.")
    memory: MemorySpec = Field(default_factory=MemorySpec, description="Conversation memory settings.")
    understand: UnderstandSpec = Field(default_factory=UnderstandSpec, description="LLM understanding for turns the rules cannot settle.")
    words: WordsSpec = Field(default_factory=WordsSpec, description="Extra yes/no/cancel words for confirmations.")
    intents: dict[Name, IntentSpec] = Field(default_factory=dict, description="Intents recognised offline by keywords and examples, by name.")
    routes: dict[Name, Name] = Field(default_factory=dict, description="Intent -> flow; a flow in progress keeps the turn.")
    default_flow: Name = Field(description="Flow used when no intent matches.")
    slots: dict[Name, SlotSpec] = Field(default_factory=dict, description="Typed slots the flows collect, by name.")
    tools: dict[Name, ToolSpec] = Field(default_factory=dict, description="Tools over HTTP or on MCP servers, by name, that agent steps and actions use; every request passes the gateway (the `parameters` schema, then `rules`).")
    actions: dict[Name, ToolAction | HttpAction | WorkspaceAction | CommandAction] = Field(default_factory=dict, description="Tool, HTTP, workspace or command actions that `call` steps run, by name.")
    knowledge: dict[Name, KnowledgeSpec] = Field(default_factory=dict, description="Knowledge bases (directories of markdown documents) that `retrieve` steps search, by name.")
    flows: dict[Name, FlowSpec] = Field(description="The flows of the service, by name; each is one stage machine.")
    messages: dict[Name, str] = Field(default_factory=dict, description="Every user-facing sentence, as a jinja2 template.")
    context: dict[str, Any] | None = Field(None, description="JSON Schema of the request context a chat request may carry (e.g. logged_in, user_type); checked on every request, read as `context`. Without it a request with a context is refused.")
    guard: GuardSpec = Field(default_factory=GuardSpec, description="Rules checked before understanding on every turn; a match ends the turn with a fixed message and a failure tag.")
    patterns: PatternsSpec = Field(default_factory=lambda: PatternsSpec(), description="The built-in conversation patterns (digressions, clarification, what is said after a flow ends), each replaceable.")
    hooks: list[HookSpec] = Field(default_factory=list, description="Server-side hook handlers (webhooks): DONE's hooks POSTed, signed, after the turn is saved.")


class ClarifySpec(Spec):
    """Two intents match a message about equally well: ask which one was meant."""

    ask: str | None = Field(None, description="Message asking which one (it sees `options`, the candidates' labels); the built-in `clarify` text by default.")
    margin: float = Field(0.02, ge=0, le=1, description="Candidates within this much confidence of the best (and over their thresholds) are offered.")
    limit: int = Field(2, ge=1, description="Unanswered clarifications in a row before `handoff`.")
    handoff: Name | None = Field(None, description="Flow started when the limit is reached (e.g. a human hand-off); without it the default flow answers.")
    prefer: dict[Name, Expression] = Field(default_factory=dict, description="Intent -> condition: when \"which one?\" would be asked and this intent is among the options, its condition holding (over kept slots, `turn`, `completed`) takes it without asking, e.g. `{status: \"completed | selectattr('flow', 'equalto', 'replace') | list\"}`.")
    alternatives: float | None = Field(None, ge=0, le=1, description="Also ask which one when two or more alternatives to the chosen intent (by the rules, or named by the understanding call), of other flows, reach this confidence; the question offers the chosen intent and those.")


class ConfidenceSpec(Spec):
    """Confidence bands of a new request's intent: at or above `act` its flow starts; from
    `confirm` up to `act` the user is asked to confirm it first; below `confirm` the user is
    asked to say more, and the turn ends there (nothing is routed)."""

    act: float = Field(0.85, ge=0, le=1, description="Confidence from which the intent's flow starts at once.")
    confirm: float = Field(0.70, ge=0, le=1, description="Confidence from which the user is asked to confirm the intent (below `act`); below it the user is asked to clarify.")
    confirm_ask: str = Field(description="Message asking whether the intent was meant (it sees `turn.intent` and `turn.confidence`); a yes starts its flow with the first message's words.")
    clarify_ask: str = Field(description="Message asking the user to say more; failure tag INTENT_LOW_CONFIDENCE.")
    unmatched: Literal["default_flow", "clarify"] = Field("default_flow", description="A new request no intent matches at all: `default_flow` hands it to the default flow; `clarify` asks `clarify_ask` (failure tag INTENT_LOW_CONFIDENCE) unless the message is only social (a greeting, thanks, a goodbye, a laugh) or the turn's model read it as small talk — those still go to the default flow.")

    @model_validator(mode="after")
    def _ordered(self) -> ConfidenceSpec:
        if self.confirm > self.act:
            raise ValueError("`confirm` must not be above `act`")
        return self


class PatternsSpec(Spec):
    """Conversation patterns every flow gets; a service replaces the parts it wants."""

    chitchat: Name | None = Field(None, description="Flow that answers a question the current flow cannot use (a digression); it runs on top of the flow, which then resumes. Default: `default_flow`; the flow must be in `flows`.")
    digressions: bool = Field(True, description="A question mid-flow that fills nothing goes to `chitchat` and the flow resumes after it; `false` keeps such turns in the flow.")
    clarify: ClarifySpec = Field(default_factory=ClarifySpec, description="Asking which of several matching intents was meant.")
    completed: str | None = Field(None, description="Message said after a flow ends when nothing else is waiting (e.g. \"무엇을 더 도와드릴까요?\").")
    labels: dict[Name, str] = Field(default_factory=dict, description="Intent -> the words offered for it in a clarification question (default: its first example, or its name).")
    confidence: ConfidenceSpec | None = Field(None, description="Confidence bands of a new request's intent (act, ask to confirm, ask to clarify); without it every routed intent acts.")
    ranking: Literal["confidence", "priority"] = Field("confidence", description="How intents that match together are ordered: `confidence` (the best score first; `priority` breaks ties) or `priority` (the highest `priority` first among the intents over their thresholds, the score breaking ties; several flows asked for in one message then also run in priority order).")




def walk_steps(steps: list[Step], path: tuple[str | int, ...] = ()
               ) -> Iterator[tuple[tuple[str | int, ...], Step]]:
    """Every step, nested ``if`` branches and ``loop`` bodies included, with its YAML path: the one walker of
    the step tree (the compiler, its checks and the test-file name checks all use it)."""
    for i, step in enumerate(steps):
        yield (*path, i), step
        if isinstance(step, IfStep):
            yield from walk_steps(step.then, (*path, i, "then"))
            yield from walk_steps(step.else_, (*path, i, "else"))
        elif isinstance(step, LoopStep):
            yield from walk_steps(step.loop.steps, (*path, i, "loop", "steps"))


def service_steps(service: ServiceSpec) -> Iterator[tuple[str, str, tuple[str | int, ...], Step]]:
    """(flow, stage, path, step) for every step of every stage of ``service``."""
    for fname, flow in service.flows.items():
        for sname, stage in flow.stages.items():
            for path, step in walk_steps(stage.steps, ("flows", fname, "stages", sname, "steps")):
                yield fname, sname, path, step

