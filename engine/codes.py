"""The catalogue of finding codes: code -> severity, title and what it catches.

Codes are stable: a code keeps its meaning forever, so CI configurations, SARIF rules and
docs/lint.md can refer to them. FL001–FL035 come from loading, the schema and the
compiler; FL040 and up from the lint checks; FL09x from conversation test files; FL105–FL109
from knowledge bases and retrieval; FL115–FL119 from loop steps and workspace and command
actions; FL120–FL122 from background runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import Severity


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    severity: Severity
    title: str
    summary: str


def _c(code: str, severity: Severity, title: str, summary: str) -> Code:
    return Code(code, severity, title, summary)


CATALOGUE: tuple[Code, ...] = (
    _c("FL001", "error", "unreadable-file", "The file cannot be read or is not UTF-8 text."),
    _c("FL002", "error", "yaml-syntax", "The file is not valid YAML."),
    _c("FL003", "error", "empty-file", "The file is empty."),
    _c("FL004", "error", "complex-key", "A mapping key is not a plain name."),
    _c("FL005", "error", "duplicate-key", "A key appears twice in one mapping (duplicate "
       "stage, slot, intent, message, route, ...)."),
    _c("FL006", "error", "yaml-expansion", "The YAML loops or explodes: an alias inside the "
       "collection it names, aliases multiplying past 100,000 values, or nesting over 100 "
       "levels."),
    _c("FL010", "error", "unknown-key", "A key the schema does not know (a typo, or a key in "
       "the wrong place)."),
    _c("FL011", "error", "missing-key", "A required key is missing."),
    _c("FL012", "error", "wrong-type", "A value has the wrong type (also YAML's on/off/yes/no "
       "read as booleans)."),
    _c("FL013", "error", "not-allowed", "A value is not one of the allowed ones."),
    _c("FL014", "error", "bad-name", "A name or value does not match its pattern."),
    _c("FL015", "error", "step-kind", "A step has no kind key, an unknown one, or two."),
    _c("FL016", "error", "invalid-spec", "A rule the schema cannot express (an enum slot "
       "without values)."),
    _c("FL019", "error", "schema", "Any other schema violation."),
    _c("FL020", "error", "unknown-message", "A message name that `messages` does not define."),
    _c("FL021", "error", "unknown-tool", "An action or an agent step names a tool that is not "
       "built in."),
    _c("FL022", "error", "unknown-stage", "A stage name (initial, transition source or dest) "
       "that the flow does not define."),
    _c("FL023", "error", "unknown-slot", "A slot name that `slots` does not declare."),
    _c("FL024", "error", "trigger-without-transition", "A step fires a trigger that no "
       "transition of the flow handles."),
    _c("FL025", "error", "unknown-action", "A `call` step names an action that is not "
       "declared."),
    _c("FL026", "error", "prompt-missing", "An agent step's prompt file does not exist."),
    _c("FL027", "error", "unknown-model", "A model name that `models` does not define."),
    _c("FL028", "error", "unknown-flow", "A route or `default_flow` names an unknown flow."),
    _c("FL029", "error", "unknown-intent", "A route names an intent that is not declared."),
    _c("FL030", "error", "template-syntax", "A message, prompt or expression does not parse."),
    _c("FL031", "error", "undefined-variable", "A template or expression reads a variable "
       "the turn context does not provide."),
    _c("FL032", "error", "undeclared-slot", "A template or expression reads `slots.x` of an "
       "undeclared slot."),
    _c("FL033", "error", "bad-regex", "A regular expression does not compile."),
    _c("FL034", "error", "validator-import", "A slot validator `module:function` cannot be "
       "imported."),
    _c("FL035", "error", "step-fires-confirm", "A step fires `confirm`; only the user's own yes "
       "at a `decide: confirm` stage may confirm."),
    _c("FL036", "error", "model-fixture", "A scripted model has no replies file, or it does "
       "not exist."),
    _c("FL037", "error", "unknown-agent-output", "`agents.<name>` names no agent step, or "
       "reads an output field of one that keeps no output."),
    _c("FL038", "error", "ambiguous-call", "A `call` step names something that is both an "
       "action and a flow."),
    _c("FL040", "warning", "unreachable-stage", "No path from the initial stage reaches the "
       "stage."),
    _c("FL041", "error", "dead-end", "A non-terminal stage the flow can stop in has no way "
       "out: the conversation is stuck there."),
    _c("FL042", "error", "terminal-has-exits", "A terminal stage is the source of a "
       "transition."),
    _c("FL043", "error", "trapped", "From the stage no terminal stage (nor the initial one) "
       "can be reached: the conversation loops forever."),
    _c("FL044", "error", "no-terminal", "A flow that collects slots has no path from its "
       "initial stage to a terminal stage."),
    _c("FL045", "error", "never-fires", "A transition can never fire: its condition is always "
       "false, an earlier transition shadows it, or its trigger is never fired at its source."),
    _c("FL046", "error", "unconfirmed-irreversible", "An irreversible action can run without "
       "passing a `decide: confirm` stage's `confirm` transition."),
    _c("FL047", "warning", "call-without-error", "A `call` step has no `error` trigger."),
    _c("FL048", "warning", "implicit-timeout", "An irreversible action relies on the default "
       "timeout."),
    _c("FL049", "error", "confirm-without-transition", "A `decide: confirm` stage has no "
       "`confirm` transition, so a yes does nothing."),
    _c("FL050", "warning", "read-before-set", "A slot only `set` steps fill is read where no "
       "step has set it yet on some path."),
    _c("FL051", "error", "result-before-call", "`result` is read where no `call` step ran "
       "before it in the same turn."),
    _c("FL052", "error", "slot-not-in-flow", "A flow reads a slot no flow collects, or sets "
       "a slot it does not collect (not in its `slots` list)."),
    _c("FL053", "error", "impossible-comparison", "A slot is compared with a value it can "
       "never take."),
    _c("FL054", "error", "set-wrong-type", "A `set` step gives a slot a literal of the wrong "
       "type or an unknown enum value."),
    _c("FL055", "warning", "never-asked", "A required slot is never asked for in its flow."),
    _c("FL056", "error", "enum-synonym-conflict", "One enum synonym maps to two values."),
    _c("FL057", "error", "flow-recursion", "A flow can call or link back to itself: the flow "
       "stack could grow without end."),
    _c("FL058", "error", "agent-output-before-agent", "`agents.<name>` is read where agent "
       "step `<name>` did not run before it in the same turn."),
    _c("FL059", "warning", "resume-button", "A `resume` button is neither a resume nor a "
       "cancel word, so pressing it does not answer the question."),
    _c("FL060", "warning", "unused-slot", "A declared slot no flow collects or reads."),
    _c("FL061", "warning", "unused-message", "A message nothing says."),
    _c("FL062", "warning", "unused-prompt", "A prompt file no agent step uses."),
    _c("FL063", "warning", "intent-without-route", "An intent with no route that no template "
       "or condition handles."),
    _c("FL064", "warning", "intent-collision", "Two intents share a keyword, or an intent's "
       "example is classified as another intent."),
    _c("FL065", "warning", "unused-action", "A declared action no `call` step runs."),
    _c("FL066", "warning", "unused-model", "A declared model nothing uses."),
    _c("FL067", "warning", "unreachable-flow", "A flow that is neither the default flow nor "
       "the target of a route."),
    _c("FL068", "error", "unknown-provider", "A model names an unknown provider."),
    _c("FL069", "error", "prompt-variable-not-provided", "An agent step's prompt reads a "
       "variable the step does not provide."),
    _c("FL070", "warning", "duplicate-agent-id", "Two different agent steps, or an agent step "
       "and an action or built-in agent, share one name in events and the trace."),
    _c("FL072", "warning", "button-not-a-word", "A button of a deciding stage is no decision "
       "word there (add it to the stage's `words`)."),
    _c("FL073", "warning", "guard-without-message", "A flow guard without a `refused` message, "
       "or a `refused` message without a guard."),
    _c("FL074", "warning", "kept-slot-uncollected", "A `keep: true` slot that no flow collects."),
    _c("FL075", "warning", "context-undeclared", "A template or condition reads `context`, "
       "but the service declares no `context` schema, so it is always empty."),
    _c("FL076", "warning", "guard-blocks-everything", "A guard pattern matches the empty "
       "text, so it blocks every message."),
    _c("FL080", "error", "unknown-service", "An app's `default` names a service the app does "
       "not hold."),
    _c("FL081", "warning", "keyword-claimed-twice", "Two services of an app claim one keyword "
       "(their own or their flow's intent keyword); the one listed first always gets it."),
    _c("FL082", "warning", "unreachable-service", "A service of an app that is not the default "
       "and claims no keyword: no message reaches it."),
    _c("FL083", "warning", "remote-url-unset", "A remote service's URL variable is not set "
       "(and has no `:-default`)."),
    _c("FL084", "error", "app-flow-invalid", "An app's local flow file is missing or does not "
       "compile."),
    _c("FL085", "error", "no-local-service", "An app has no local service to answer when its "
       "remote services are down."),
    _c("FL086", "error", "bad-tool-schema", "A tool's `parameters` or `result` is not a valid "
       "JSON Schema, or its `parameters` is not an object schema."),
    _c("FL087", "error", "undeclared-tool", "An agent step or action uses `server.tool` of an "
       "MCP server without declaring it under `tools`."),
    _c("FL088", "warning", "unused-tool", "A declared tool no agent step or action uses."),
    _c("FL089", "error", "tool-shadows-builtin", "A declared tool has the name of a built-in "
       "tool."),
    _c("FL105", "error", "unknown-knowledge", "A `retrieve` step names a knowledge base that "
       "`knowledge` does not declare."),
    _c("FL106", "error", "knowledge-dir", "A knowledge base's `dir` is absolute, leaves the "
       "flow file's directory, does not exist, holds no markdown file or cannot be indexed."),
    _c("FL107", "error", "unknown-retrieval", "`retrieved.<name>` names no `retrieve` step's "
       "hits."),
    _c("FL108", "warning", "knowledge-too-large", "A knowledge base holds more than 1 MiB of "
       "markdown: slow to index when the flow is compiled, and kept in memory."),
    _c("FL109", "warning", "index-stale", "A knowledge base's index is older than its "
       "documents; `flowctl index FLOW` rebuilds it."),
    _c("FL090", "error", "invalid-test-file", "A conversation test file is not valid."),
    _c("FL091", "error", "test-names-unknown", "A conversation test names a stage, flow, slot, "
       "intent, agent, hook or event that does not exist."),
    _c("FL094", "warning", "hook-type-never-emitted", "A hook handler asks for a hook type no "
       "`emit` step of the service sends."),
    _c("FL095", "warning", "service-undescribed", "An app with an LLM router holds a service "
       "with no `description` and no routed intents: the router model cannot tell what it is "
       "for."),
    _c("FL096", "warning", "app-hook-type-never-emitted", "An app's hook handler asks for a "
       "hook type no local service emits (and the app has no remote service that could)."),
    _c("FL097", "warning", "hooks-without-emit", "A flow declares hook handlers, but none of "
       "its steps emits a hook."),
    _c("FL115", "error", "command-shell-operator", "A command action's argument holds a "
       "shell operator such as `;`, `&` or `$`; commands run without a shell."),
    _c("FL116", "error", "workspace-path", "A workspace action's glob is absolute or has "
       "`..`, a `read` names no files, or an `apply` has no `changes`."),
    _c("FL117", "error", "loop-body-leaves", "A loop body fires a trigger, links, or gives a "
       "`call` its own `ok`/`error` trigger: only the loop's `ok`/`exhausted` end it."),
    _c("FL118", "warning", "loop-without-feedback", "A loop with `until` but no `feedback`: "
       "every attempt sees the same input, so it likely fails the same way."),
    _c("FL119", "error", "nested-loop", "A loop inside another loop's body."),
    _c("FL120", "error", "background-stage-shape", "A `background` stage is terminal, "
       "decides a confirmation, or has no steps to run."),
    _c("FL121", "error", "background-no-exit", "No trigger a step can fire leaves a "
       "`background` stage: its run could never end anywhere else."),
    _c("FL122", "warning", "failed-without-run", "A stage is marked `failed`, but no "
       "`background` stage of its flow leads to it, so no run can end there."),
    _c("FL123", "warning", "ranking-without-priorities", "`patterns.ranking: priority`, but "
       "every routed intent has the same `priority`, so the ranking changes nothing."),
    _c("FL124", "warning", "slot-open-to-model", "A slot a `set` step fills and no question "
       "asks for is not marked `extract: {llm: false}`: the understanding model may set it."),
    _c("FL125", "warning", "particle-pair-after-value", "A message writes both forms of a "
       "Korean particle after a template value (\"{{ item }}을(를)\"): the `josa` filter "
       "picks the one the value takes."),
)

CODES: dict[str, Code] = {c.code: c for c in CATALOGUE}
UNUSABLE = frozenset({"FL001"})
"""Findings that make the input unusable (exit code 2), not merely wrong."""


def severity(code: str) -> Severity:
    return CODES[code].severity if code in CODES else "error"
