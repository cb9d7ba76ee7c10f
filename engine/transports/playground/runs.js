// The Runs panel: the session's background runs (GET /v1/runs?session_id=) and one run's
// event log, read over fetch as Server-Sent Events (GET /v1/runs/{id}/events), so that any
// event name a run records is shown, not only the names known here. The log replays from its
// first event, so a reload shows the whole run again, then follows it live to its final
// RUN_STATUS; a dropped stream goes on after the last event it had (?after=N). Events that
// carry an attempt, file changes (diffs) or a command's output tail show them; a loop's
// TASK_PROGRESS starts an attempt, and the events after it carry its number (data-attempt).

import { $, el, show } from "./panels.js";
import { t } from "./texts.js";

const RUNS = "/v1/runs";
const FINAL = new Set(["success", "failed", "cancelled", "interrupted"]);

const state = {
  sessionId: null,
  runId: null,      // the run shown
  reading: null,    // AbortController of its stream
  attempt: null,    // the attempt the shown run's events belong to (its last TASK_PROGRESS)
  onEnd: () => {},
};

export function initRuns({ onEnd }) {
  state.onEnd = onEnd;
  $("run-cancel").addEventListener("click", cancelShown);
}

// The session's runs; the newest opens (replayed, then live). Hidden on a server without runs.
export async function showRuns(sessionId, open = null) {
  state.sessionId = sessionId;
  const query = new URLSearchParams({ session_id: sessionId });
  const response = await fetch(`${RUNS}?${query}`).catch(() => null);
  const runs = response && response.ok ? (await response.json()).runs : [];
  if (state.sessionId !== sessionId) return;
  $("runs-panel").hidden = !runs.length;
  $("runs").replaceChildren(...runs.map((run) => {
    const open = el("button", { type: "button", className: `run ${run.status}`, title: run.id,
                                onclick: () => openRun(run.id) },
      el("b", { className: "status", textContent: run.status }),
      ` ${run.flow}.${run.stage} `,
      el("small", { textContent: new Date(run.created_at * 1000).toLocaleTimeString() }));
    open.dataset.run = run.id;
    return el("li", {}, open);
  }));
  const wanted = open || (runs.some((r) => r.id === state.runId) ? state.runId : runs[0]?.id);
  if (wanted && (wanted !== state.runId || !state.reading)) openRun(wanted);
  if (!runs.length) closeRun();
}

// A turn's DONE started a run: list it and watch it.
export function runStarted(ref) {
  if (state.sessionId) showRuns(state.sessionId, ref.id);
}

function closeRun() {
  state.reading?.abort();
  state.reading = null;
  state.runId = null;
  state.attempt = null;
  $("run-events").replaceChildren();
  $("run-summary").textContent = "";
  $("run-status").textContent = "";
  $("run-cancel").hidden = true;
}

async function openRun(runId) {
  closeRun();
  state.runId = runId;
  document.querySelectorAll("#runs .run").forEach((b) =>
    b.setAttribute("aria-pressed", String(b.dataset.run === runId)));
  const reading = new AbortController();
  state.reading = reading;
  let after = 0;
  for (let tries = 0; tries < 30 && !reading.signal.aborted; tries += 1) {
    const ended = await readEvents(runId, after, reading.signal, (seq) => { after = seq; })
      .catch(() => false);
    if (ended || reading.signal.aborted) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));  // dropped: go on after `after`
  }
  if (state.reading === reading) state.reading = null;
}

// Read the stream of `runId` after event `after`; true when the run's log has ended.
async function readEvents(runId, after, signal, onSeq) {
  const response = await fetch(`${RUNS}/${encodeURIComponent(runId)}/events?after=${after}`,
                               { signal, headers: { Accept: "text/event-stream" } });
  if (response.status === 204 || response.status === 404) return true;
  if (!response.ok) return false;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return false;
    buffer += value.replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = parseFrame(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
      if (!frame || state.runId !== runId) continue;
      onSeq(frame.id);
      if (addEvent(frame.event, frame.data)) return true;
    }
  }
}

function parseFrame(block) {
  const frame = { id: 0, event: "message", data: [] };
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;  // a keep-alive ping
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") frame.data.push(value);
    else if (field === "id") frame.id = Number(value);
    else if (field === "event") frame.event = value;
  }
  if (!frame.data.length) return null;
  return { ...frame, data: JSON.parse(frame.data.join("\n")) };
}

// -- one event ------------------------------------------------------------------------------

// Show one event of the run; true when it is the run's final status.
function addEvent(name, data) {
  if (name === "RUN_STATUS") {
    $("run-status").textContent = data.status;
    $("run-status").className = `status ${data.status}`;
    $("run-cancel").hidden = FINAL.has(data.status);
    if (data.summary) $("run-summary").textContent = data.summary;
    if (FINAL.has(data.status)) {
      markListed(data.status);
      state.onEnd(data);
      return true;
    }
    return false;
  }
  if (name === "LLM_TOKEN") {
    const last = $("run-events").lastElementChild;
    if (last?.dataset.name === "LLM_TOKEN") {
      last.querySelector(".what").textContent += data;
      return false;
    }
  }
  $("run-events").append(eventItem(name, data));
  return false;
}

function markListed(status) {
  const button = document.querySelector(`#runs .run[data-run="${state.runId}"]`);
  if (!button) return;
  button.className = `run ${status}`;
  button.querySelector(".status").textContent = status;
}

function eventItem(name, data) {
  const item = el("li", { className: `ev ${name}` },
    el("span", { className: "name", textContent: name }),
    el("span", { className: "what", textContent: describe(name, data) }));
  item.dataset.name = name;
  const found = details(data);
  if (name === "TASK_PROGRESS" && Number.isInteger(data?.index)) {
    state.attempt = data.index;
    found.attempt = data.index;
  }
  if (state.attempt !== null) item.dataset.attempt = String(state.attempt);
  if (found.attempt !== undefined) {
    item.classList.add("attempt");
    item.prepend(el("span", { className: "attempt-no",
                              textContent: t("attempt", { attempt: found.attempt }) }));
  }
  for (const change of found.changes) {
    item.append(el("div", { className: "file", textContent: change.path || "" }),
                diffBlock(change.diff || change.content || ""));
  }
  if (found.output !== undefined) {
    const head = found.exitCode !== undefined ? t("exitCode", { code: found.exitCode }) : "";
    item.append(el("div", { className: "file", textContent: head }),
                el("pre", { className: "tail", textContent: String(found.output) }));
  }
  return item;
}

function describe(name, data) {
  if (typeof data !== "object" || data === null) return String(data);
  switch (name) {
    case "AGENT_START": return `${data.agent} · ${data.label}`;
    case "AGENT_DONE": return `${data.agent} ${data.success ? "✓" : "✗"}`
      + (data.stage ? ` → ${data.stage}` : "");
    case "TASK_PROGRESS": return `${data.index}/${data.total}`;
    case "DONE": return `${data.state_snapshot?.stage ?? "–"} · ${data.message}`;
    default: return data.message || data.summary || data.label || "";
  }
}

// What an event (or the result it carries) says about attempts, changes and commands.
function details(data) {
  const found = { changes: [] };
  const sources = [data, data?.result].filter((x) => x && typeof x === "object");
  for (const source of sources) {
    if (source.attempt !== undefined) found.attempt = source.attempt;
    if (typeof source.diff === "string") found.changes.push({ path: source.path, diff: source.diff });
    for (const change of Array.isArray(source.changes) ? source.changes : []) {
      if (change && typeof change === "object") found.changes.push(change);
    }
    const output = source.output_tail ?? source.tail ?? source.output;
    if (output !== undefined && output !== null) found.output = show(output);
    if (source.exit_code !== undefined) found.exitCode = source.exit_code;
  }
  return found;
}

// A unified diff, one span per line: its `---`/`+++` head and `@@` hunk lines apart from the
// lines it adds and removes.
function diffBlock(text) {
  let inHunk = false;
  const kind = (line) => {
    if (line.startsWith("@@")) { inHunk = true; return "hunk"; }
    if (!inHunk && (line.startsWith("--- ") || line.startsWith("+++ "))) return "head";
    return line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
  };
  const lines = String(text).replace(/\n$/, "").split("\n");
  return el("pre", { className: "diff" }, ...lines.map((line) =>
    el("span", { className: kind(line), textContent: line + "\n" })));
}

async function cancelShown() {
  if (!state.runId) return;
  $("run-cancel").disabled = true;
  await fetch(`${RUNS}/${encodeURIComponent(state.runId)}/cancel`, { method: "POST" })
    .catch(() => null);
  $("run-cancel").disabled = false;
}
