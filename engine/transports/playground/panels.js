// The panels beside the chat, each drawn from one turn as the page recorded it
// ({user, events, done, ttft}): the state snapshot, the flow stack, the trace (DONE's _trace
// plus the time to the first token the page measured), hooks, completed tasks and the event
// timeline of every turn.

import { t } from "./texts.js";

export const $ = (id) => document.getElementById(id);

export function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

export function show(value) {
  if (value === null || value === undefined || value === "") return "–";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function listOr(items, empty) {
  return items.length ? items : [el("li", { className: "none", textContent: t(empty) })];
}

// -- state ------------------------------------------------------------------------------------

export function renderState(snapshot, nextAction) {
  const s = snapshot || {};
  $("flow").textContent = show(s.flow);
  $("stage").textContent = show(s.stage);
  $("next-action").textContent = show(nextAction);
  const meta = s.meta || {};
  $("batch").textContent = meta.batch_total
    ? `${(meta.batch_progress || 0) + 1} / ${meta.batch_total}` : "–";
  const missing = new Set(nextAction === "DONE" ? [] : s.missing_required || []);
  const rows = Object.entries(s.slots || {}).map(([name, value]) =>
    el("tr", { className: missing.has(name) ? "missing" : "" },
      el("th", { textContent: name }), el("td", { textContent: show(value) })));
  $("slots").tBodies[0].replaceChildren(...rows);
  $("slot-errors").replaceChildren(...listOr(Object.entries(meta.slot_errors || {}).map(
    ([name, why]) => el("li", {}, el("b", { textContent: name }), ": " + why)), "none"));
  $("task-queue").replaceChildren(...listOr((s.task_queue || []).map(
    (task) => el("li", { textContent: show(task) })), "empty"));
}

// -- the flow stack ----------------------------------------------------------------------------

// Why a flow waits (state_snapshot.stack[].kind; an interrupted one whose push said
// "pending" waits on an irreversible action's unknown outcome).
const WAITING = ["interrupted", "caller", "queued", "pending"];

// The current flow on top, then the flows waiting under it, the most recent first. `pushes`:
// flow -> the reason of its latest push (DONE's _trace.stack), up to the turn shown.
export function renderStack(snapshot, pushes = {}) {
  const s = snapshot || {};
  const waiting = [...(s.stack || [])].reverse().map((entry) => {
    const why = entry.kind === "interrupted" && pushes[entry.flow] === "pending"
      ? "pending" : entry.kind;
    const item = el("li", { className: `frame ${why}` },
      el("b", { textContent: entry.flow }), " ", el("code", { textContent: show(entry.stage) }),
      " ", el("span", { className: "why", textContent: t(WAITING.includes(why) ? `stack_${why}` : why) }));
    item.dataset.kind = why;
    item.title = show(entry.slots);
    return item;
  });
  const top = s.flow ? [el("li", { className: "frame current" },
    el("b", { textContent: s.flow }), " ", el("code", { textContent: show(s.stage) }), " ",
    el("span", { className: "why", textContent: t("stack_current") }))] : [];
  if (top.length) top[0].dataset.kind = "current";
  $("stack").replaceChildren(...listOr([...top, ...waiting], "none"));
}

// -- trace, hooks, completed ------------------------------------------------------------------

const ms = (value) => (value === null || value === undefined ? "–" : `${Number(value).toFixed(1)}`);

export function renderTrace(turn, number) {
  const trace = turn?.done?._trace;
  if (!trace) {
    $("trace-summary").textContent = "";
    $("trace").tBodies[0].replaceChildren();
    return;
  }
  const parts = [t("traceTurn", { turn: number, id: trace.turn_id }),
                 `${t("total")} ${ms(trace.total_elapsed_ms)} ms`];
  if (turn.ttft !== null && turn.ttft !== undefined) parts.push(`${t("firstToken")} +${ms(turn.ttft)} ms`);
  if (trace.error) parts.push(`${t("error")}: ${trace.error}`);
  $("trace-summary").textContent = parts.join(" · ");
  const rows = (trace.agents || []).map((a) => el("tr", { className: a.success ? "" : "failed" },
    el("td", { textContent: a.agent }),
    el("td", { textContent: a.model ? `${a.provider}:${a.model}` : "–" }),
    el("td", { textContent: ms(a.elapsed_ms) }),
    el("td", { textContent: a.tokens_in !== undefined ? `${a.tokens_in}→${a.tokens_out}` : "–" }),
    el("td", { textContent: String(a.retries ?? 0) }),
    el("td", { textContent: (a.error || "") + (a.fallback ? " (fallback)" : "") })));
  $("trace").tBodies[0].replaceChildren(...rows);
}

export function renderHooks(hooks) {
  $("hooks").replaceChildren(...listOr((hooks || []).map((hook) =>
    el("li", {}, el("b", { textContent: hook.type }), " " + show(hook.data))), "none"));
}

export function renderCompleted(tasks) {
  $("completed").replaceChildren(...listOr((tasks || []).map((task) => {
    const slots = Object.fromEntries(Object.entries(task.slots || {}).filter(([, v]) => v !== null));
    return el("li", { className: `task ${task.outcome}` },
      el("b", { textContent: task.outcome }), ` ${task.flow} ${show(slots)}`,
      el("small", { textContent: ` ${task.at || ""}` }));
  }), "none"));
}

// -- event timeline ---------------------------------------------------------------------------

function describe(event) {
  const data = event.data;
  switch (event.name) {
    case "AGENT_START": return `${data.agent} · ${data.label}`;
    case "AGENT_DONE":
      return `${data.agent} ${data.success ? "✓" : "✗"}` + (data.stage ? ` → ${data.stage}` : "")
        + (data.result !== undefined && data.result !== null ? ` · ${show(data.result)}` : "");
    case "LLM_TOKEN": return `×${event.count}`;
    case "LLM_DONE": return `${data.action || ""} ${data.message || ""}`.trim();
    case "TASK_PROGRESS": return `${t("task", data)} ${show(data.slots)}`;
    case "DONE": return `${data.next_action} · ${data.state_snapshot?.stage ?? "–"}`;
    default: return show(data);
  }
}

export function eventRow(event) {
  const row = el("li", { className: `ev ${event.name}` },
    el("span", { className: "at", textContent: `+${event.at.toFixed(1)} ms` }),
    el("span", { className: "name", textContent: event.name }),
    el("span", { className: "what", textContent: describe(event) }));
  if (event.name === "LLM_TOKEN") row.title = event.text;
  return row;
}

// One turn in the timeline: its number and message (click: show that turn), a button that
// continues the conversation from it in a new session (`onFork`), its events.
export function turnGroup(turn, index, onSelect, onFork) {
  const head = el("button", { type: "button", className: "turn-head" },
    el("span", { textContent: t("turn", { turn: index + 1 }) }),
    el("span", { className: "said", textContent: turn.user }));
  head.addEventListener("click", () => onSelect(index));
  const fork = el("button", { type: "button", className: "fork", textContent: "⑂",
                              title: t("forkTitle", { turn: index + 1 }) });
  fork.setAttribute("aria-label", t("forkTitle", { turn: index + 1 }));
  fork.addEventListener("click", () => onFork?.(index));
  fork.hidden = !onFork || !turn.done;
  // a turn that got no answer says so, instead of an empty list
  const rows = turn.failed && !turn.events.length
    ? [el("li", { className: "event failed", textContent: t("noAnswer") })]
    : turn.events.map(eventRow);
  return el("li", { className: turn.failed ? "turn failed" : "turn" },
    el("div", { className: "turn-bar" }, head, fork), el("ol", { className: "events" }, ...rows));
}
