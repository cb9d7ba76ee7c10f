// The panels beside the chat, each drawn from one turn as the page recorded it
// ({user, events, done, ttft}): the state snapshot, the trace (DONE's _trace plus the time to
// the first token the page measured), hooks, completed tasks and the event timeline of
// every turn.

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

// One turn in the timeline: its number and message (click: show that turn), its events.
export function turnGroup(turn, index, onSelect) {
  const head = el("button", { type: "button", className: "turn-head" },
    el("span", { textContent: t("turn", { turn: index + 1 }) }),
    el("span", { className: "said", textContent: turn.user }));
  head.addEventListener("click", () => onSelect(index));
  // a turn that got no answer says so, instead of an empty list
  const rows = turn.failed && !turn.events.length
    ? [el("li", { className: "event failed", textContent: t("noAnswer") })]
    : turn.events.map(eventRow);
  return el("li", { className: turn.failed ? "turn failed" : "turn" }, head,
    el("ol", { className: "events" }, ...rows));
}
